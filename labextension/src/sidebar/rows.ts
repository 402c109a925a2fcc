/**
 * One row per catalog variable, drawn from what the kernel's presentation layer sent: the name and its status badge,
 * the editor the kernel chose (editors.ts), whether the variable applies with the values chosen (a row that does not
 * is greyed, stays editable, and says why beside it), and, folded under "details", the description, the live call
 * (labelled as an example when it shows the default) and the entry's facts: when it is read, its default, what is
 * allowed, its caveats. Folded, so that a row is three short lines and several rows are in view at the sidebar's
 * default width (the name's tooltip gives the description too). The row decides nothing about the variable; it
 * shows it.
 */
import { EntryInfo, VariableInfo } from '../protocol';
import { Badge, badgeClass } from '../shared/badges';
import { breakableName, el, withCode } from '../shared/dom';
import { Editor, editorFor, valueText } from './editors';
import { Translation } from './text';

/** Set (value) or unset (null) a variable. */
export type EditHandler = (name: string, value: string | null) => void;

export const INAPPLICABLE_CLASS = 'mgenv-sb-inapplicable';

export class VariableRow {
  readonly entry: EntryInfo;
  readonly node: HTMLElement;
  readonly editor: Editor;
  private _badge: HTMLElement;
  private _unset: HTMLButtonElement;
  private _odd: HTMLElement;
  private _error: HTMLElement;
  private _applies: HTMLElement;
  private _live: HTMLElement;
  private _info: VariableInfo | undefined;
  private _refused = false; // the editor holds an edit the kernel refused, with its reason shown
  private _trans: Translation;

  constructor(entry: EntryInfo, onEdit: EditHandler, trans: Translation, onTry?: (name: string) => void) {
    this.entry = entry;
    this._trans = trans;
    this.node = el('div', 'mgenv-sb-row');
    this.node.dataset.name = entry.name;

    const head = el('div', 'mgenv-sb-row-head');
    const name = el('code', 'mgenv-sb-name');
    name.append(...breakableName(entry.name));
    name.title = `${entry.name}\n${entry.description}`;
    this._badge = el('span', 'mgenv-sb-badge');
    head.append(name, this._badge);

    const edit = el('div', 'mgenv-sb-row-edit');
    this.editor = editorFor(entry, value => onEdit(entry.name, value), trans);
    this._unset = el('button', 'jp-Button jp-mod-minimal jp-mod-small mgenv-sb-unset') as HTMLButtonElement;
    this._unset.textContent = '×';
    this._unset.title = trans.__('Unset (back to the framework’s default)');
    this._unset.setAttribute('aria-label', `${trans.__('Unset')} ${entry.name}`);
    this._unset.addEventListener('click', () => onEdit(entry.name, null));
    edit.append(this.editor.node, this._unset);
    edit.addEventListener('keydown', event => {
      if (event.key === 'Escape') {
        this.revert();
      }
    });

    this._odd = el('div', 'mgenv-sb-row-odd');
    this._error = el('div', 'mgenv-sb-row-error');
    this._error.setAttribute('role', 'alert');
    this._applies = el('div', 'mgenv-sb-applies');
    const description = el('div', 'mgenv-sb-desc');
    description.append(...withCode(entry.description));
    const facts = el('div', 'mgenv-sb-facts');
    const fallback = entry.default !== null ? valueText(entry.default_size, entry.default) : null;
    const byDefault = el('span', 'mgenv-sb-default');
    byDefault.textContent = fallback !== null ? trans.__('default: %1', fallback) : trans.__('no default');
    if (fallback !== null && fallback !== entry.default) {
      byDefault.title = entry.default ?? ''; // a size reads as 1 MiB; what the framework reads (1048576) on hover
    }
    facts.append(byDefault, ' · ', ...withCode(entry.reading));
    this._live = el('div', 'mgenv-sb-live');
    const folded: HTMLElement[] = [description, facts, this._live];
    if (entry.note) {
      const note = el('div', 'mgenv-sb-note');
      note.textContent = entry.note;
      folded.push(note);
    }
    this.node.append(head, edit, this._odd, this._error, this._applies, this._details(folded, onTry));
    this.update(undefined, null);
  }

  /** Show the kernel's value, status and applicability; an editor the user is typing in keeps their text. */
  update(info: VariableInfo | undefined, badge: Badge | null): void {
    this._info = info;
    const value = info?.value ?? null;
    if (badge) {
      this._badge.textContent = badge.label;
      this._badge.className = badgeClass(badge);
      this._badge.title = info?.message ?? '';
      this._badge.hidden = false;
      this.node.dataset.status = badge.code;
    } else {
      this._badge.hidden = true;
      delete this.node.dataset.status;
    }
    this._unset.hidden = value === null || this.entry.editor.kind === 'presence'; // unchecking already unsets it
    this.node.classList.toggle('mgenv-sb-set', value !== null);

    const applies = info?.applies ?? true;
    const reason = info?.applies_reason ?? null;
    this.node.classList.toggle(INAPPLICABLE_CLASS, !applies);
    this._applies.replaceChildren(...withCode(reason ?? ''));
    this._applies.hidden = reason === null;
    this._applies.classList.toggle('mgenv-sb-applies-quiet', applies);

    this._live.replaceChildren();
    this._live.hidden = !info?.live;
    if (info?.live) {
      const label = el('span', 'mgenv-sb-live-label');
      const trans = this._trans;
      label.textContent = `${info.live_example ? trans.__('live (example, with the default)') : trans.__('live')}: `;
      const call = el('code', '');
      call.append(...breakableCall(info.live));
      this._live.append(label, call);
      this._live.classList.toggle('mgenv-sb-live-example', info.live_example);
    }

    const keep = this.editor.editing || (this._refused && this.editor.dirty);
    if (!keep) {
      this.revert();
    }
  }

  /** Put the kernel's value back in the editor (after Escape, or once the kernel answered). */
  revert(): void {
    this._refused = false;
    this._setInvalid(null);
    const value = this._info?.value ?? null;
    const shown = this.editor.show(value, this._info ?? null);
    // An editor that cannot hold the value (text in a number box) still says what the kernel has.
    this._odd.textContent = shown || value === null ? '' : this._trans.__('the kernel holds %1', value);
    this._odd.hidden = shown || value === null;
  }

  /** The kernel refused the edit: a typed value stays so it can be fixed, and the kernel's reason is shown under it. */
  markInvalid(message: string): void {
    this.editor.refused();
    if (!this.editor.keepsRefusedEdit) {
      this.editor.revert();
    }
    this._setInvalid(message);
    this._refused = true;
  }

  /** The kernel took the edit: a reason given for an earlier, refused one no longer applies. */
  accepted(): void {
    this._refused = false;
  }

  setEnabled(enabled: boolean): void {
    this.editor.setEnabled(enabled);
    this._unset.disabled = !enabled;
  }

  private _setInvalid(message: string | null): void {
    for (const control of this.editor.controls) {
      control.classList.toggle('mgenv-sb-invalid', message !== null);
    }
    if (message === null) {
      this.editor.input.removeAttribute('aria-invalid');
    } else {
      this.editor.input.setAttribute('aria-invalid', 'true');
    }
    this._error.replaceChildren(...withCode(message ?? ''));
    this._error.hidden = message === null;
  }

  /**
   * All but the name, the status and the editor, folded (`first`: the description, the facts and the live call): what
   * is allowed, where the framework reads it, what replaces it, and the caveats, which the summary announces.
   */
  private _details(first: HTMLElement[], onTry?: (name: string) => void): HTMLElement {
    const trans = this._trans;
    const { caveats } = this.entry;
    const details = el('details', 'mgenv-sb-details');
    const summary = el('summary', '');
    const title = el('span', 'mgenv-sb-details-title');
    title.textContent = trans.__('details');
    summary.append(title);
    if (caveats.length) {
      const warning = el('span', 'mgenv-sb-caveats-title');
      warning.textContent = `⚠ ${trans.__('caveats (%1)', caveats.length)}`;
      summary.append(' · ', warning);
    }
    const list = el('dl', '');
    const add = (term: string, value: string) => {
      const dt = el('dt', '');
      dt.textContent = term;
      const dd = el('dd', '');
      dd.append(...withCode(value));
      list.append(dt, dd);
    };
    add(trans.__('Allowed'), this.entry.allowed);
    if (this.entry.read_at) {
      add(trans.__('Read in the source at'), this.entry.read_at);
    }
    if (this.entry.readers.length) {
      add(trans.__('Read by'), this.entry.readers.join(', '));
    }
    if (this.entry.replaced_by) {
      add(trans.__('Use instead'), this.entry.replaced_by);
    }
    let tryLine: HTMLElement | null = null;
    if (onTry) {
      // First in the details: the summary stays one line at the sidebar's default width. The kernel writes a
      // %%envsweep cell for this variable into the notebook; the user edits and runs it.
      const tryButton = el('button', 'jp-Button jp-mod-minimal jp-mod-small mgenv-sb-try') as HTMLButtonElement;
      tryButton.type = 'button';
      tryButton.textContent = trans.__('Try several values…');
      tryButton.title = trans.__('Insert a cell below the active one that measures your code at several values of it');
      tryButton.addEventListener('click', event => {
        onTry(this.entry.name);
      });
      tryLine = el('div', 'mgenv-sb-try-line');
      tryLine.append(tryButton);
    }
    details.append(summary, ...(tryLine ? [tryLine] : []), ...first, list);
    if (caveats.length) {
      const items = el('ul', 'mgenv-sb-caveats');
      for (const caveat of caveats) {
        const item = el('li', '');
        item.append(...withCode(caveat));
        items.append(item);
      }
      details.append(items);
    }
    return details;
  }
}

export { breakableName };

/**
 * A framework call as text that breaks after its dots and opening brackets (megengine.set_default_device( / 'gpu1')),
 * never inside a name or a quoted value ('x / pux', 'gpu1:2'); the spaces after commas and colons break as usual.
 */
export function breakableCall(call: string): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < call.length; i++) {
    const c = call[i];
    if (quote) {
      quote = c === quote && call[i - 1] !== '\\' ? null : quote;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    const next = call[i + 1] ?? '';
    const opens = '([{'.includes(c) || (c === '.' && /[A-Za-z_]/.test(next));
    if (opens && next !== '' && !')]}'.includes(next)) {
      parts.push(call.slice(start, i + 1), document.createElement('wbr'));
      start = i + 1;
    }
  }
  parts.push(call.slice(start));
  return parts;
}
