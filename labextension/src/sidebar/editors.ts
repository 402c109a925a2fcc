/**
 * The input for each editor kind the kernel's presentation layer chose (EntryInfo.editor): a select, a checkbox, a
 * number with a slider, a number, a number with a unit, or text — the same kinds, choices, bounds and units the
 * magics and the ipywidgets use. The editor only shows the kernel's value and hands back what the user entered, as
 * text the kernel takes ("5GB", "0.5", "naive_best_fit"); checking and normalising it is the kernel's job.
 *
 * Commits: Enter or leaving a typed field sends, a change of a select, checkbox or slider sends; `revert()` (the row
 * calls it on Escape) puts the kernel's value back. The input named after the variable (`input`) has exactly its
 * name as accessible name; the second input of a size is "<NAME> unit", of a fraction "<NAME> slider".
 */
import { EditorInfo, EditorKind, EntryInfo } from '../protocol';
import { el, option } from './dom';
import { Translate } from './text';

/** Set (text) or unset (null) the variable. */
export type Commit = (value: string | null) => void;

type Control = HTMLInputElement | HTMLSelectElement;

/** What an optional NPURunConfig keyword offers for "leave it to the framework" (presentation/editor.py). */
export const NONE_CHOICE = 'None';

export abstract class Editor {
  readonly entry: EntryInfo;
  readonly node: HTMLElement;
  private _commit: Commit;
  private _value: string | null = null; // the kernel's value
  private _shown: string | null = null; // what read() gave right after the kernel's value was shown
  private _sent: string | null | undefined = undefined; // what was sent, until the kernel answers

  constructor(entry: EntryInfo, commit: Commit) {
    this.entry = entry;
    this._commit = commit;
    this.node = el('span', `mgenv-sb-editor mgenv-sb-editor-${entry.editor.kind}`);
    this.node.dataset.editor = entry.editor.kind;
  }

  get kind(): EditorKind {
    return this.entry.editor.kind;
  }

  /** The input whose accessible name is the variable's name. */
  abstract get input(): Control;

  /** Every input of this editor. */
  abstract get controls(): readonly Control[];

  /** What the inputs hold, as the kernel takes it; null means unset. */
  abstract read(): string | null;

  /** Put `value` into the inputs; false when these inputs cannot show it (the kernel holds something odd). */
  protected abstract _render(value: string | null): boolean;

  /** Show the kernel's value (null: not set); false when the inputs cannot show it. */
  show(value: string | null): boolean {
    this._value = value;
    this._sent = undefined;
    const shown = this._render(value);
    this._shown = this.read();
    return shown;
  }

  /** Put the kernel's value back (Escape, or a refused select or checkbox). */
  revert(): boolean {
    return this.show(this._value);
  }

  /** The kernel refused what was sent: it may be sent again once fixed. */
  refused(): void {
    this._sent = undefined;
  }

  /** The inputs hold something other than the kernel's value. */
  get dirty(): boolean {
    return this.read() !== this._shown;
  }

  /** The user is typing something not sent yet: a kernel update must leave it alone. */
  get editing(): boolean {
    const focused = this.node.contains(this.node.ownerDocument.activeElement);
    return focused && this._sent === undefined && this.dirty;
  }

  setEnabled(enabled: boolean): void {
    for (const control of this.controls) {
      control.disabled = !enabled;
    }
  }

  /**
   * Send what the inputs hold, unless it is what was just sent (Enter, then "change") or, with nothing on its way,
   * what the kernel shows already.
   */
  protected _send(): void {
    const next = this.read();
    if (next === this._sent || (this._sent === undefined && next === this._shown)) {
      return;
    }
    this._sent = next;
    this._commit(next);
  }

  /** A field the user types in: Enter or leaving it sends. */
  protected _typed(input: HTMLInputElement): HTMLInputElement {
    input.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this._send();
      }
    });
    input.addEventListener('change', () => this._send());
    return input;
  }

  protected _named(control: Control, label: string = this.entry.name): Control {
    control.setAttribute('aria-label', label);
    control.title = this.entry.allowed;
    return control;
  }
}

/** An input or select in JupyterLab's own style (jp-mod-styled). */
function styled<T extends HTMLElement>(tag: string, className = ''): T {
  return el(tag, `jp-mod-styled ${className}`.trim()) as T;
}

/** A select as JupyterLab's HTMLSelect draws one: inside a wrapper that draws the caret in the theme's colour. */
function selectBox(select: HTMLSelectElement): HTMLElement {
  const box = el('span', 'mgenv-sb-select');
  box.append(select);
  return box;
}

/** A select of the framework's spellings; a non-optional variable can also be "not set" (the default applies). */
class ChoiceEditor extends Editor {
  private _select = styled<HTMLSelectElement>('select');

  constructor(entry: EntryInfo, commit: Commit, t: Translate) {
    super(entry, commit);
    const { choices, optional } = entry.editor;
    if (!optional) {
      const label = entry.default !== null ? t('notSetDefault', entry.default) : t('notSet');
      this._select.append(option('', label));
    }
    this._select.append(...choices.map(choice => option(choice)));
    this._named(this._select);
    this._select.addEventListener('change', () => this._send());
    this.node.append(selectBox(this._select));
  }

  get input(): Control {
    return this._select;
  }

  get controls(): readonly Control[] {
    return [this._select];
  }

  read(): string | null {
    const value = this._select.value;
    return value === '' || (this.entry.editor.optional && value === NONE_CHOICE) ? null : value;
  }

  protected _render(value: string | null): boolean {
    const wanted = value ?? (this.entry.editor.optional ? NONE_CHOICE : '');
    if (![...this._select.options].some(o => o.value === wanted)) {
      this._select.append(option(wanted)); // a value set elsewhere, outside the choices: shown as it is
    }
    this._select.value = wanted;
    return true;
  }
}

/** A checkbox writing the switch's own spellings of on and off. */
class SwitchEditor extends Editor {
  protected _box = styled<HTMLInputElement>('input');

  constructor(entry: EntryInfo, commit: Commit) {
    super(entry, commit);
    this._box.type = 'checkbox';
    this._named(this._box);
    this._box.addEventListener('change', () => this._send());
    this.node.append(this._box);
  }

  get input(): Control {
    return this._box;
  }

  get controls(): readonly Control[] {
    return [this._box];
  }

  read(): string | null {
    const { on, off } = this.entry.editor;
    return this._box.checked ? on : off;
  }

  protected _render(value: string | null): boolean {
    this._box.checked = (value ?? this.entry.default) === this.entry.editor.on;
    return true;
  }
}

/** A checkbox for a flag that is on whenever the variable exists: checked sets it, unchecked unsets it. */
class PresenceEditor extends SwitchEditor {
  read(): string | null {
    return this._box.checked ? this.entry.editor.on : null;
  }

  protected _render(value: string | null): boolean {
    this._box.checked = value !== null;
    return true;
  }
}

/** A number box with the kernel's bounds (step 1 for integers); out-of-range input is the kernel's to refuse. */
class NumberEditor extends Editor {
  protected _number = styled<HTMLInputElement>('input', 'mgenv-sb-number');

  constructor(entry: EntryInfo, commit: Commit) {
    super(entry, commit);
    const { min, max, integer } = entry.editor;
    this._number.type = 'number';
    setBound(this._number, 'min', min);
    setBound(this._number, 'max', max);
    this._number.step = integer ? '1' : 'any';
    this._number.placeholder = entry.default ?? '';
    this._named(this._typed(this._number));
    this.node.append(this._number);
  }

  get input(): Control {
    return this._number;
  }

  get controls(): readonly Control[] {
    return [this._number];
  }

  read(): string | null {
    const typed = this._number.value.trim();
    return typed === '' ? null : typed;
  }

  protected _render(value: string | null): boolean {
    this._number.value = value ?? '';
    return value === null || this._number.value !== ''; // a number box shows nothing for text it cannot parse
  }
}

/** A number from min to max in steps of 0.01, with a slider beside it that moves with it. */
class FractionEditor extends NumberEditor {
  private _slider = el('input', 'mgenv-sb-slider') as HTMLInputElement;

  constructor(entry: EntryInfo, commit: Commit) {
    super(entry, commit);
    const { min, max } = entry.editor;
    this._number.step = '0.01';
    this._slider.type = 'range';
    this._slider.min = String(min ?? 0);
    this._slider.max = String(max ?? 1);
    this._slider.step = '0.01';
    this._named(this._slider, `${entry.name} slider`);
    this._slider.addEventListener('input', () => (this._number.value = this._slider.value));
    this._slider.addEventListener('change', () => {
      this._number.value = this._slider.value;
      this._send();
    });
    this._number.addEventListener('input', () => {
      if (this._number.value !== '') {
        this._slider.value = this._number.value;
      }
    });
    this.node.append(this._slider);
  }

  get controls(): readonly Control[] {
    return [this._number, this._slider];
  }

  protected _render(value: string | null): boolean {
    const shown = super._render(value);
    this._slider.value = value ?? this.entry.default ?? this._slider.min;
    return shown;
  }
}

/**
 * How a unit of a size reads. The kernel's units are 1024-based (its "GB" is 1024³ bytes, as Paddle and MegEngine
 * read "5GB"), so they read as the chart and the magics' messages write them, GiB; the value sent stays "5GB".
 */
export function unitLabel(bytes: number, name: string): string {
  return BINARY_UNITS.get(bytes) ?? name;
}

const BINARY_UNITS = new Map([
  [1, 'B'],
  [1024, 'KiB'],
  [1024 ** 2, 'MiB'],
  [1024 ** 3, 'GiB'],
  [1024 ** 4, 'TiB']
]);

/**
 * A number and a unit (1024-based) for a size the kernel holds as a count of `unit_bytes`; sent as text such as
 * "5GB" for the kernel to normalise, and the kernel's value shown back in the largest unit that divides it exactly.
 */
class SizeEditor extends Editor {
  private _number = styled<HTMLInputElement>('input', 'mgenv-sb-number');
  private _unit = styled<HTMLSelectElement>('select', 'mgenv-sb-unit');

  constructor(entry: EntryInfo, commit: Commit) {
    super(entry, commit);
    this._number.type = 'number';
    this._number.step = 'any';
    this._named(this._typed(this._number));
    for (const unit of entry.editor.units) {
      const node = option(unit.name, unitLabel(unit.bytes, unit.name));
      node.dataset.bytes = String(unit.bytes);
      this._unit.append(node);
    }
    this._named(this._unit, `${entry.name} unit`);
    this._unit.addEventListener('change', () => {
      this._bounds();
      if (this._number.value.trim() !== '') {
        this._send();
      }
    });
    this.node.append(this._number, selectBox(this._unit));
  }

  get input(): Control {
    return this._number;
  }

  get controls(): readonly Control[] {
    return [this._number, this._unit];
  }

  read(): string | null {
    const typed = this._number.value.trim();
    return typed === '' ? null : `${typed}${this._unit.value}`;
  }

  protected _render(value: string | null): boolean {
    const fallback = sizeParts(this.entry.default, this.entry.editor);
    const parts = value === null ? null : sizeParts(value, this.entry.editor);
    // Not set: the default's unit, and the default greyed in the box.
    this._unit.value = (parts ?? fallback)?.unit ?? this.entry.editor.units[0]?.name ?? '';
    this._number.value = parts?.number ?? '';
    this._number.placeholder = value === null && fallback ? fallback.number : '';
    this._bounds();
    return value === null || parts !== null;
  }

  /** The kernel's bounds are counts of `unit_bytes`; the box counts the unit chosen. */
  private _bounds(): void {
    const { min, max, unit_bytes } = this.entry.editor;
    const chosen = Number(this._unit.selectedOptions[0]?.dataset.bytes ?? unit_bytes);
    const scale = (bound: number | null) => (bound === null ? null : (bound * unit_bytes) / chosen);
    setBound(this._number, 'min', scale(min));
    setBound(this._number, 'max', scale(max));
  }
}

/** Free text, checked by the kernel; empty unsets (and for an optional keyword, so does "None"). */
class TextEditor extends Editor {
  private _text = styled<HTMLInputElement>('input', 'mgenv-sb-text');

  constructor(entry: EntryInfo, commit: Commit) {
    super(entry, commit);
    this._text.type = 'text';
    this._text.spellcheck = false;
    this._text.placeholder = entry.editor.placeholder;
    this._named(this._typed(this._text));
    this.node.append(this._text);
  }

  get input(): Control {
    return this._text;
  }

  get controls(): readonly Control[] {
    return [this._text];
  }

  read(): string | null {
    const typed = this._text.value.trim();
    const none = this.entry.editor.optional && typed.toLowerCase() === NONE_CHOICE.toLowerCase();
    return typed === '' || none ? null : typed;
  }

  protected _render(value: string | null): boolean {
    this._text.value = value ?? '';
    return true;
  }
}

export function editorFor(entry: EntryInfo, commit: Commit, t: Translate): Editor {
  switch (entry.editor.kind) {
    case 'choice':
      return new ChoiceEditor(entry, commit, t);
    case 'switch':
      return new SwitchEditor(entry, commit);
    case 'presence':
      return new PresenceEditor(entry, commit);
    case 'fraction':
      return new FractionEditor(entry, commit);
    case 'number':
      return new NumberEditor(entry, commit);
    case 'size':
      return new SizeEditor(entry, commit);
    default:
      return new TextEditor(entry, commit); // 'text', and any kind a newer kernel may add
  }
}

/**
 * A size the kernel holds (a whole count of `unit_bytes`) as a number and the largest of `units` that divides it
 * exactly: "5368709120" bytes → 5 GB, "1536" MB → 1536 MB. Null for anything that is not a whole count.
 */
export function sizeParts(value: string | null, editor: EditorInfo): { number: string; unit: string } | null {
  if (value === null || !/^\d+$/.test(value.trim()) || !editor.units.length) {
    return null;
  }
  const bytes = BigInt(value.trim()) * BigInt(editor.unit_bytes); // exact past 2**53
  let chosen = editor.units[0];
  for (const unit of editor.units) {
    if (bytes !== 0n && bytes % BigInt(unit.bytes) === 0n) {
      chosen = unit;
    }
  }
  const count = bytes / BigInt(chosen.bytes);
  if (count * BigInt(chosen.bytes) !== bytes) {
    return null; // smaller than the smallest unit offered; cannot happen for the kernel's own units
  }
  return { number: count.toString(), unit: chosen.name };
}

function setBound(input: HTMLInputElement, which: 'min' | 'max', value: number | null): void {
  if (value === null) {
    input.removeAttribute(which);
  } else {
    input.setAttribute(which, String(value));
  }
}
