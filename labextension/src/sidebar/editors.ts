/**
 * The input for each editor kind the kernel's presentation layer chose (EntryInfo.editor): a select, a checkbox, a
 * number with a slider, a number, a number with a unit, text, or one typed input per key of a `key:value` config —
 * the same kinds, choices, bounds, units and keys the magics and the ipywidgets use. The editor only shows the kernel's value and hands back what the user entered, as
 * text the kernel takes ("5GB", "0.5", "naive_best_fit"); checking and normalising it is the kernel's job.
 *
 * Commits: Enter or leaving a typed field sends, a change of a select, checkbox or slider sends; `revert()` (the row
 * calls it on Escape) puts the kernel's value back. What the kernel parsed of its value comes with it (`KernelReading`:
 * a `key:value` config's keys, a size's number and unit): the editor never splits a value itself. The input named after the variable (`input`) has exactly its
 * name as accessible name; the second input of a size is "<NAME> unit", of a fraction "<NAME> slider".
 */
import { EditorKind, EntryInfo, KeyInfo, NONE_CHOICE, SizeInfo, VariableInfo } from '../protocol';
import { breakableName, el, option } from '../shared/dom';
import { Translation } from './text';

/** Set (text) or unset (null) the variable. */
export type Commit = (value: string | null) => void;

type Control = HTMLInputElement | HTMLSelectElement;

/** What the kernel parsed of the value it holds (VariableInfo's `keys` and `size`; null: nothing). */
export type KernelReading = Pick<VariableInfo, 'keys' | 'size'>;

const NOTHING_READ: KernelReading = { keys: null, size: null };

export { NONE_CHOICE };

export abstract class Editor {
  readonly entry: EntryInfo;
  readonly node: HTMLElement;
  private _commit: Commit;
  private _value: string | null = null; // the kernel's value
  private _reading: KernelReading = NOTHING_READ; // what the kernel parsed of it
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

  /** The element whose accessible name is the variable's name: its input, or the group of a config's key inputs. */
  abstract get input(): HTMLElement;

  /** Every input of this editor. */
  abstract get controls(): readonly Control[];

  /** What the inputs hold, as the kernel takes it; null means unset. */
  abstract read(): string | null;

  /**
   * Put `value` into the inputs (`reading`: what the kernel parsed of it, a key:value config's keys or a size's number
   * and unit); false when these inputs cannot show it (the kernel holds something odd).
   */
  protected abstract _render(value: string | null, reading: KernelReading): boolean;

  /** Show the kernel's value (null: not set) with what it parsed of it; false when it cannot. */
  show(value: string | null, reading: KernelReading | null = null): boolean {
    this._value = value;
    this._reading = reading ?? NOTHING_READ;
    this._sent = undefined;
    const shown = this._render(value, this._reading);
    this._shown = this.read();
    // Not set: what the inputs show is the framework's default, greyed (a checked box or a "2" beside a "not set"
    // badge read as a value set).
    this.node.classList.toggle('mgenv-sb-at-default', value === null);
    return shown;
  }

  /** Put the kernel's value back (Escape, or a refused select or checkbox). */
  revert(): boolean {
    return this.show(this._value, this._reading);
  }

  /** The kernel refused what was sent: it may be sent again once fixed. */
  refused(): void {
    this._sent = undefined;
  }

  /** A refused edit stays in the inputs to be fixed (typed fields); a select or checkbox shows the kernel's again. */
  get keepsRefusedEdit(): boolean {
    return this.input instanceof HTMLInputElement && this.input.type !== 'checkbox';
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

  constructor(entry: EntryInfo, commit: Commit, trans: Translation) {
    super(entry, commit);
    const { choices, optional } = entry.editor;
    if (!optional) {
      const label = entry.default !== null ? trans.__('(not set) — default %1', entry.default) : trans.__('(not set)');
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
 * A number and a unit (the kernel's units, 1024-based) for a size the kernel holds as a count of `unit_bytes`; sent as
 * text such as "5GiB" for the kernel to normalise, and the kernel's value shown back as the kernel split it
 * (VariableInfo.size; the default's, EntryInfo.default_size, greyed while nothing is set). The box also takes a size
 * typed with its unit ("512MB", "1.5 GiB"), as its tooltip (the kernel's `allowed`) says: that text goes to the kernel
 * as typed, whatever the unit list shows.
 */
class SizeEditor extends Editor {
  private _number = styled<HTMLInputElement>('input', 'mgenv-sb-number');
  private _unit = styled<HTMLSelectElement>('select', 'mgenv-sb-unit');

  constructor(entry: EntryInfo, commit: Commit) {
    super(entry, commit);
    this._number.type = 'text';
    this._number.inputMode = 'decimal';
    this._number.spellcheck = false;
    this._named(this._typed(this._number));
    for (const unit of entry.editor.units) {
      const node = option(unit.name);
      node.dataset.bytes = String(unit.bytes);
      this._unit.append(node);
    }
    this._named(this._unit, `${entry.name} unit`);
    this._unit.addEventListener('change', () => {
      if (this._number.value.trim() !== '' && !HAS_UNIT.test(this._number.value)) {
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
    if (typed === '') {
      return null;
    }
    return HAS_UNIT.test(typed) ? typed : `${typed}${this._unit.value}`;
  }

  protected _render(value: string | null, reading: KernelReading): boolean {
    const fallback = this.entry.default_size;
    const parts = value === null ? null : reading.size;
    // Not set: the default's unit, and the default greyed in the box.
    this._unit.value = (parts ?? fallback)?.unit ?? this.entry.editor.units[0]?.name ?? '';
    this._number.value = parts?.number ?? '';
    this._number.placeholder = value === null && fallback ? fallback.number : '';
    return value === null || parts !== null;
  }
}

/** A size typed with its unit: letters after the number ("512MB", "1.5 GiB"). */
const HAS_UNIT = /[a-z]/i;

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

/**
 * A `key:value` config (PyTorch's allocator config) key by key, as the widget draws it: each key its own typed input
 * (a select, a checkbox, a number or text, from the kernel's `keys`), a key left out shows the framework's default
 * beside it and ↺ leaves a given key out again; the joined value is shown under the keys and is what is sent, as one
 * value the kernel checks and sets. The kernel's value is shown from the keys it parsed (VariableInfo.keys).
 */
class KeyValueEditor extends Editor {
  private _trans: Translation;
  private _group = el('div', 'mgenv-sb-keys');
  private _joined = el('div', 'mgenv-sb-joined');
  private _inputs = new Map<string, Control>();
  private _marks = new Map<string, HTMLElement>();
  private _resets = new Map<string, HTMLButtonElement>();
  private _given = new Map<string, boolean>();

  constructor(entry: EntryInfo, commit: Commit, trans: Translation) {
    super(entry, commit);
    this._trans = trans;
    this._group.setAttribute('role', 'group');
    this._group.setAttribute('aria-label', entry.name);
    for (const key of entry.editor.keys) {
      const line = el('div', 'mgenv-sb-key');
      line.dataset.key = key.name;
      const name = el('code', 'mgenv-sb-key-name');
      name.append(...breakableName(key.name)); // a long key breaks after an underscore, as variable names do
      name.title = key.description;
      const input = this._control(key);
      input.setAttribute('aria-label', `${entry.name} ${key.name}`);
      input.title = `${key.description} (${key.allowed})`;
      const reset = el('button', 'jp-Button jp-mod-minimal jp-mod-small mgenv-sb-key-reset') as HTMLButtonElement;
      reset.type = 'button';
      reset.textContent = '↺';
      reset.title = trans.__('%1: back to the default (left out of the value)', key.name);
      reset.setAttribute('aria-label', trans.__('%1: back to the default (left out of the value)', `${entry.name} ${key.name}`));
      reset.addEventListener('click', () => {
        this._given.set(key.name, false);
        this._put(key, null);
        this._after(true);
      });
      const mark = el('span', 'mgenv-sb-key-mark');
      mark.textContent = key.default !== null ? trans.__('default: %1', key.default) : trans.__('default: off or unlimited');
      this._inputs.set(key.name, input);
      this._marks.set(key.name, mark);
      this._resets.set(key.name, reset);
      const box = key.editor.kind === 'choice' ? selectBox(input as HTMLSelectElement) : input;
      line.append(name, box, reset, mark);
      this._group.append(line);
    }
    this.node.append(this._group, this._joined);
  }

  get input(): HTMLElement {
    return this._group;
  }

  get controls(): readonly Control[] {
    return [...this._inputs.values()];
  }

  get keepsRefusedEdit(): boolean {
    return true;
  }

  setEnabled(enabled: boolean): void {
    super.setEnabled(enabled);
    for (const reset of this._resets.values()) {
      reset.disabled = !enabled;
    }
  }

  /** The keys given, in the config's order, joined as the kernel takes them; null when every key is left out. */
  read(): string | null {
    const parts = this.entry.editor.keys.flatMap(key => {
      const text = this._given.get(key.name) ? this._keyText(key) : null;
      return text === null ? [] : [`${key.name}:${text}`];
    });
    return parts.length ? parts.join(',') : null;
  }

  /** The kernel's value from the keys it parsed; false for a value it sent no keys for (it does not parse). */
  protected _render(value: string | null, { keys }: KernelReading): boolean {
    const given = value === null ? {} : keys;
    for (const key of this.entry.editor.keys) {
      const text = given?.[key.name] ?? null;
      this._given.set(key.name, text !== null);
      this._put(key, text);
    }
    this._after(false);
    return value === null || keys !== null;
  }

  private _control(key: KeyInfo): Control {
    const { kind, choices, min, max, integer, on } = key.editor;
    let control: Control;
    if (kind === 'choice') {
      const select = styled<HTMLSelectElement>('select');
      select.append(...choices.map(choice => option(choice)));
      select.addEventListener('change', () => this._edited(key));
      control = select;
    } else if (kind === 'switch') {
      const box = styled<HTMLInputElement>('input');
      box.type = 'checkbox';
      box.value = on ?? '';
      box.addEventListener('change', () => this._edited(key));
      control = box;
    } else {
      const input = styled<HTMLInputElement>('input', kind === 'number' ? 'mgenv-sb-number' : 'mgenv-sb-text');
      input.type = kind === 'number' ? 'number' : 'text';
      if (kind === 'number') {
        setBound(input, 'min', min);
        setBound(input, 'max', max);
        input.step = integer ? '1' : 'any';
      } else {
        input.spellcheck = false;
      }
      input.placeholder = key.default ?? key.editor.placeholder;
      input.addEventListener('keydown', event => {
        if (event.key === 'Enter') {
          event.preventDefault();
          this._edited(key);
        }
      });
      input.addEventListener('change', () => this._edited(key));
      control = input;
    }
    return control;
  }

  /** A key's input changed: the key is given (an empty field leaves it out again), and the joined value is sent. */
  private _edited(key: KeyInfo): void {
    const input = this._inputs.get(key.name);
    const typed = input instanceof HTMLInputElement && input.type !== 'checkbox' ? input.value.trim() : null;
    this._given.set(key.name, typed !== '');
    this._after(true);
  }

  /** Show `text` in the key's input; null: the framework's default. */
  private _put(key: KeyInfo, text: string | null): void {
    const input = this._inputs.get(key.name);
    if (input instanceof HTMLSelectElement) {
      const wanted = text ?? key.default ?? key.editor.choices[0] ?? '';
      if (![...input.options].some(o => o.value === wanted)) {
        input.append(option(wanted)); // a value set elsewhere, outside the choices: shown as it is
      }
      input.value = wanted;
    } else if (input instanceof HTMLInputElement && input.type === 'checkbox') {
      input.checked = (text ?? key.default) === key.editor.on;
    } else if (input) {
      input.value = text ?? '';
    }
  }

  private _keyText(key: KeyInfo): string | null {
    const input = this._inputs.get(key.name);
    if (input instanceof HTMLInputElement && input.type === 'checkbox') {
      return input.checked ? key.editor.on : key.editor.off;
    }
    const text = input?.value.trim() ?? '';
    return text === '' ? null : text;
  }

  /** Marks and the joined line follow the keys; `send`: the user changed a key. */
  private _after(send: boolean): void {
    for (const key of this.entry.editor.keys) {
      const given = this._given.get(key.name) ?? false;
      this._marks.get(key.name)!.hidden = given;
      this._resets.get(key.name)!.hidden = !given;
    }
    const joined = this.read();
    this._joined.replaceChildren();
    if (joined === null) {
      this._joined.textContent = this._trans.__('every key at its default (the variable is left unset)');
    } else {
      const [before, after] = this._trans.__('joined: %1', '\u0000').split('\u0000');
      const code = el('code', '');
      code.textContent = joined;
      this._joined.append(before ?? '', code, after ?? '');
    }
    if (send) {
      this._send();
    }
  }
}

export function editorFor(entry: EntryInfo, commit: Commit, trans: Translation): Editor {
  switch (entry.editor.kind) {
    case 'key_value':
      return new KeyValueEditor(entry, commit, trans);
    case 'choice':
      return new ChoiceEditor(entry, commit, trans);
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
 * A value as the sidebar shows it outside its editor (the profile, the restart question, the default line): a size in
 * the one notation of sizes, as the kernel split it (`size`: "3 GiB" for the "3221225472" the environment and the
 * profile hold); anything else, or a size the kernel did not split, as it is.
 */
export function valueText(size: SizeInfo | null, value: string): string {
  return size ? `${size.number} ${size.unit}` : value;
}

function setBound(input: HTMLInputElement, which: 'min' | 'max', value: number | null): void {
  if (value === null) {
    input.removeAttribute(which);
  } else {
    input.setAttribute(which, String(value));
  }
}
