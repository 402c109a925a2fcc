/**
 * The catalog: an error that concerns no variable, a search box, the catalog grouped by framework (named as the
 * kernel names them) then category, with one editor row per variable (an error about a variable is shown in its row,
 * under its editor), and "no variable matches" when the search leaves none. One part of the variables section
 * (ConfigView); it renders the model and hands each edit to `edit`.
 */
import { Answer } from '../client';
import { el } from '../../shared/dom';
import { EnvModel } from '../model';
import { VariableRow } from '../rows';
import { Translation } from '../text';

export class CatalogView {
  /** The error that concerns no variable. */
  readonly error: HTMLElement;
  /** The search box. */
  readonly search: HTMLElement;
  /** The rows, by framework and category. */
  readonly catalog: HTMLElement;
  /** What the list says when the search matches nothing. */
  readonly empty: HTMLElement;
  private _model: EnvModel;
  private _trans: Translation;
  private _edit: (name: string, value: string | null) => Promise<Answer | null>;
  private _rows = new Map<string, VariableRow>();
  private _input: HTMLInputElement;

  private _trySeveral: ((name: string) => void) | undefined;

  /**
   * `edit` sets (a value) or unsets (null) a variable in the followed kernel; `trySeveral` asks it for a %%envsweep
   * cell of a variable (its row offers "try several values…" where the kernel says a sweep applies).
   */
  constructor(
    model: EnvModel,
    trans: Translation,
    edit: (name: string, value: string | null) => Promise<Answer | null>,
    trySeveral?: (name: string) => void
  ) {
    this._trySeveral = trySeveral;
    this._model = model;
    this._trans = trans;
    this._edit = edit;
    this.error = el('div', 'mgenv-sb-error');
    this.error.setAttribute('role', 'alert');
    this.search = el('div', 'jp-InputGroup mgenv-sb-searchbox');
    this._input = el('input', 'mgenv-sb-search') as HTMLInputElement;
    this.search.append(this._input);
    this._input.type = 'search';
    this._input.placeholder = trans.__('Search name or description…');
    this._input.setAttribute('aria-label', trans.__('Search variables'));
    this._input.addEventListener('input', () => this._model.setFilter(this._input.value));
    this.catalog = el('div', 'mgenv-sb-catalog');
    this.empty = el('div', 'mgenv-sb-empty');
    this.empty.textContent = trans.__('No variable matches.');
  }

  row(name: string): VariableRow | undefined {
    return this._rows.get(name);
  }

  /** Every row editable only while the kernel is ready. */
  setEnabled(live: boolean): void {
    for (const row of this._rows.values()) {
      row.setEnabled(live);
    }
  }

  /** An error about one variable goes under its editor; any other above the catalog. */
  renderError(): void {
    const field = this._model.fieldError;
    if (field) {
      this._rows.get(field.name)?.markInvalid(field.message);
    }
    const error = this._model.error;
    this.error.textContent = error ? this._trans.__('Error: %1', error) : '';
    this.error.hidden = !error;
  }

  render(): void {
    this._rows.clear();
    this.catalog.replaceChildren();
    const live = this._model.connection.state === 'ready';
    for (const group of this._model.groups('')) {
      const framework = el('details', 'mgenv-sb-framework') as HTMLDetailsElement;
      framework.open = true;
      framework.dataset.framework = group.framework;
      const summary = el('summary', '');
      summary.textContent = this._model.frameworkLabel(group.framework);
      framework.append(summary);
      for (const category of group.categories) {
        const section = el('details', 'mgenv-sb-category') as HTMLDetailsElement;
        section.open = true;
        const heading = el('summary', '');
        heading.textContent = category.category;
        section.append(heading);
        for (const entry of category.entries) {
          const row = new VariableRow(
            entry,
            (name, value) => void this._editRow(name, value),
            this._trans,
            entry.sweep ? this._trySeveral : undefined
          );
          row.update(this._model.variable(entry.name), this._model.badge(entry.name));
          row.setEnabled(live);
          this._rows.set(entry.name, row);
          section.append(row.node);
        }
        framework.append(section);
      }
      this.catalog.append(framework);
    }
    this.applyFilter();
  }

  /** The rows of `names` (all when not given) show what the kernel holds now. */
  update(names?: string[]): void {
    const targets = names ?? [...this._rows.keys()];
    for (const name of targets) {
      this._rows.get(name)?.update(this._model.variable(name), this._model.badge(name));
    }
  }

  applyFilter(): void {
    const filter = this._model.filter;
    let shown = 0;
    for (const row of this._rows.values()) {
      const match = this._model.matches(row.entry, filter);
      row.node.hidden = !match;
      shown += match ? 1 : 0;
    }
    for (const section of this.catalog.querySelectorAll<HTMLElement>('.mgenv-sb-category, .mgenv-sb-framework')) {
      section.hidden = !section.querySelector('.mgenv-sb-row:not([hidden])');
    }
    this.empty.hidden = shown > 0 || this._rows.size === 0;
  }

  private async _editRow(name: string, value: string | null): Promise<void> {
    const answer = await this._edit(name, value);
    const row = this._rows.get(name);
    if (answer?.type === 'error') {
      row?.markInvalid(answer.message);
    } else if (answer?.type === 'result') {
      // Accepted: show what the kernel holds now (normalised: "2GB" → 2147483648), even if nothing changed.
      row?.accepted();
      row?.update(this._model.variable(name), this._model.badge(name));
    }
  }
}
