/**
 * One row per catalog variable: its name, status badge, editor and description. The editor is drawn by the value
 * type's kind (enum → select, switch/presence → checkbox, anything else → text input) and its accessible name is
 * exactly the variable's name. A row keeps what the user is typing until they commit (Enter, leaving the field,
 * or a change of a select/checkbox); the kernel's answer then comes back through the model.
 */
import { EntryInfo, VariableInfo } from '../protocol';
import { Badge } from './badges';
import { Language, text } from './text';

/** Set (value) or unset (null) a variable. */
export type EditHandler = (name: string, value: string | null) => void;

export class VariableRow {
  readonly entry: EntryInfo;
  readonly node: HTMLElement;
  private _editor: HTMLInputElement | HTMLSelectElement;
  private _badge: HTMLElement;
  private _unset: HTMLButtonElement;
  private _current: string | null = null;
  private _sent: string | null | undefined = undefined; // what the text input last sent, until the kernel answers
  private _onEdit: EditHandler;
  private _language: Language;

  constructor(entry: EntryInfo, onEdit: EditHandler, language: Language) {
    this.entry = entry;
    this._onEdit = onEdit;
    this._language = language;
    this.node = el('div', 'mgenv-sb-row');
    this.node.dataset.name = entry.name;

    const head = el('div', 'mgenv-sb-row-head');
    const name = el('code', 'mgenv-sb-name');
    name.textContent = entry.name;
    name.title = details(entry, language);
    this._badge = el('span', 'mgenv-sb-badge');
    head.append(name, this._badge);

    const edit = el('div', 'mgenv-sb-row-edit');
    this._editor = this._makeEditor();
    this._editor.setAttribute('aria-label', entry.name);
    this._editor.classList.add('mgenv-sb-editor');
    this._unset = el('button', 'mgenv-sb-unset') as HTMLButtonElement;
    this._unset.textContent = '×';
    this._unset.title = text('unsetTitle', language);
    this._unset.setAttribute('aria-label', `${text('unset', language)} ${entry.name}`);
    this._unset.addEventListener('click', () => this._onEdit(entry.name, null));
    edit.append(this._editor, this._unset);

    const description = el('div', 'mgenv-sb-desc');
    description.textContent = entry.description;
    this.node.append(head, edit, description);
    if (entry.caveats.length) {
      const caveats = el('details', 'mgenv-sb-caveats');
      const summary = el('summary', '');
      summary.textContent = `⚠ ${text('caveats', language)} (${entry.caveats.length})`;
      const list = el('ul', '');
      for (const caveat of entry.caveats) {
        const item = el('li', '');
        item.textContent = caveat;
        list.append(item);
      }
      caveats.append(summary, list);
      this.node.append(caveats);
    }
    this.update(undefined, null);
  }

  get editor(): HTMLInputElement | HTMLSelectElement {
    return this._editor;
  }

  /** Show the kernel's value and status; an editor the user is typing in keeps their text. */
  update(info: VariableInfo | undefined, badge: Badge | null): void {
    this._current = info?.value ?? null;
    if (badge) {
      this._badge.textContent = badge.label;
      this._badge.className = `mgenv-sb-badge mgenv-sb-badge-${badge.kind}`;
      this._badge.title = info?.message ?? '';
      this._badge.hidden = false;
    } else {
      this._badge.hidden = true;
    }
    this._unset.hidden = this._current === null;
    this.node.classList.toggle('mgenv-sb-set', this._current !== null);
    const typing = this._editor.ownerDocument.activeElement === this._editor && this._sent === undefined;
    if (!typing || !(this._editor instanceof HTMLInputElement)) {
      this.revert();
    }
  }

  /** Put the kernel's value back in the editor (after Escape, or when the kernel refused the edit). */
  revert(): void {
    this._sent = undefined;
    this._editor.classList.remove('mgenv-sb-invalid');
    this._editor.removeAttribute('aria-invalid');
    this._editor.title = this.entry.type.allowed;
    const kind = this.entry.type.kind;
    const value = this._current;
    const editor = this._editor;
    if (editor instanceof HTMLSelectElement) {
      const wanted = value ?? '';
      if (![...editor.options].some(o => o.value === wanted)) {
        editor.append(option(wanted, wanted));
      }
      editor.value = wanted;
    } else if (kind === 'presence') {
      editor.checked = value !== null;
    } else if (kind === 'switch') {
      const on = this.entry.type.choices[0] ?? '1';
      editor.checked = (value ?? this.entry.default) === on;
      editor.indeterminate = false;
    } else {
      editor.value = value ?? '';
    }
  }

  /** The kernel refused the edit: keep what was typed so it can be fixed, and say why on the editor. */
  markInvalid(message: string): void {
    this._sent = undefined;
    this._editor.classList.add('mgenv-sb-invalid');
    this._editor.setAttribute('aria-invalid', 'true');
    this._editor.title = message;
    if (!(this._editor instanceof HTMLInputElement && this._editor.type === 'text')) {
      this.revert();
    }
  }

  setEnabled(enabled: boolean): void {
    this._editor.disabled = !enabled;
    this._unset.disabled = !enabled;
  }

  private _makeEditor(): HTMLInputElement | HTMLSelectElement {
    const { kind, choices } = this.entry.type;
    const name = this.entry.name;
    if (kind === 'enum') {
      const select = el('select', '') as HTMLSelectElement;
      const unsetLabel = text('notSet', this._language) + (this.entry.default ? ` — ${text('defaultIs', this._language)} ${this.entry.default}` : '');
      select.append(option('', unsetLabel), ...choices.map(c => option(c, c)));
      select.addEventListener('change', () => this._onEdit(name, select.value === '' ? null : select.value));
      return select;
    }
    if (kind === 'switch' || kind === 'presence') {
      const box = el('input', '') as HTMLInputElement;
      box.type = 'checkbox';
      box.addEventListener('change', () => {
        if (kind === 'presence') {
          this._onEdit(name, box.checked ? (choices[0] ?? '1') : null);
        } else {
          this._onEdit(name, box.checked ? (choices[0] ?? '1') : (choices[1] ?? '0'));
        }
      });
      return box;
    }
    const input = el('input', '') as HTMLInputElement;
    input.type = 'text';
    input.spellcheck = false;
    input.placeholder = this.entry.default ?? text('notSet', this._language);
    input.title = this.entry.type.allowed;
    const commit = () => {
      const typed = input.value.trim();
      const next = typed === '' ? null : typed;
      if (typed === (this._current ?? '') || next === this._sent) {
        return; // unchanged, or Enter already sent it and this is the "change" event that follows
      }
      this._sent = next;
      this._onEdit(name, next);
    };
    input.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        commit();
      } else if (event.key === 'Escape') {
        this.revert();
      }
    });
    input.addEventListener('change', commit);
    return input;
  }
}

function details(entry: EntryInfo, language: Language): string {
  const lines = [
    `${text('defaultIs', language)}: ${entry.default ?? text('notSet', language)}`,
    entry.type.allowed,
    entry.when + (entry.readers.length ? ` (${entry.readers.join(', ')})` : '')
  ];
  if (entry.live_api) {
    lines.push(`live: ${entry.live_api}`);
  }
  if (entry.replaced_by) {
    lines.push(`→ ${entry.replaced_by}`);
  }
  return lines.join('\n');
}

function option(value: string, label: string): HTMLOptionElement {
  const node = document.createElement('option');
  node.value = value;
  node.textContent = label;
  return node;
}

export function el(tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  return node;
}
