import { nullTranslator } from '@jupyterlab/translation';

import { ConfigView } from '../src/sidebar/configView';
import { EnvModel } from '../src/sidebar/model';
import { reviewBody } from '../src/sidebar/profile/review';
import { breakableCall } from '../src/sidebar/rows';
import { withCode } from '../src/shared/dom';
import { DOMAIN } from '../src/sidebar/text';
import { ChangeInfo, EntryInfo, ProfileItemInfo, Reply, VariableInfo } from '../src/protocol';
import { editorInfo, entry, flush, FRAMEWORKS, variable } from './fakes';
import { chineseTranslation } from './translation';

const trans = nullTranslator.load(DOMAIN);

const ENTRIES: EntryInfo[] = [
  entry('E_CHOICE', 'choice', { default: 'a' }),
  entry('E_OPTIONAL', 'choice', { is_env: false, editor: editorInfo('choice', { choices: ['None', 'x', 'y'], optional: true }) }),
  entry('E_SWITCH', 'switch', { default: '0' }),
  entry('E_PRESENCE', 'presence', { note: 'ON whenever the variable exists' }),
  entry('E_FRACTION', 'fraction', { framework: 'paddle', category: 'Memory', default: '0.92' }),
  entry('E_NUMBER', 'number', { default: '4' }),
  entry('E_SIZE', 'size', { framework: 'paddle', category: 'Memory', default: '0', default_size: { number: '0', unit: 'B' } }),
  entry('E_SIZE_MB', 'size', {
    framework: 'paddle', category: 'Memory', default: '500', default_size: { number: '500', unit: 'MiB' },
    editor: editorInfo('size', { unit_bytes: 1024 ** 2, min: 1, units: [{ name: 'MiB', bytes: 1024 ** 2 }, { name: 'GiB', bytes: 1024 ** 3 }] })
  }),
  entry('E_TEXT', 'text', { editor: editorInfo('text', { placeholder: 'xpux' }), caveats: ['one', 'two'] })
];

function view(entries: EntryInfo[] = ENTRIES) {
  const model = new EnvModel('en');
  const edits: [string, string | null][] = [];
  const actions = {
    edit: async (name: string, value: string | null) => {
      edits.push([name, value]);
      return null;
    },
    forget: jest.fn(),
    reviewProfile: jest.fn(async () => undefined),
    restartAndApply: jest.fn(async () => undefined),
    refresh: jest.fn(),
    loadHistory: jest.fn(async (_before: number, _limit: number) => undefined)
  };
  const widget = new ConfigView(model, actions, trans);
  document.body.append(widget.node);
  model.setConnection({ state: 'connecting', kernel: 'Python 3' });
  model.receive({ v: 1, type: 'catalog', reply_to: null, language: 'en', entries, frameworks: FRAMEWORKS });
  return { model, widget, edits, actions };
}

const editor = (name: string) => document.querySelector(`[aria-label="${name}"]`) as HTMLInputElement & HTMLSelectElement;
const row = (name: string) => document.querySelector(`.mgenv-sb-row[data-name="${name}"]`) as HTMLElement;
const options = (select: HTMLSelectElement) => [...select.options].map(o => o.value);
const texts = (root: HTMLElement, selector: string) => [...root.querySelectorAll(selector)].map(n => n.textContent);
const changed = (variables: Record<string, VariableInfo>, changes: ChangeInfo[] = []): Reply =>
  ({ v: 1, type: 'changed', changes, variables });

function type(input: HTMLInputElement, value: string, key = 'Enter'): void {
  input.focus();
  input.value = value;
  input.dispatchEvent(new Event('input'));
  input.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
}

describe('ConfigView', () => {
  afterEach(() => document.body.replaceChildren());

  it('draws every editor kind with the kernel’s choices, bounds and units, named exactly after the variable', () => {
    view();
    expect(editor('E_CHOICE').tagName).toBe('SELECT');
    expect(options(editor('E_CHOICE'))).toEqual(['', 'a', 'b', 'c']);
    expect(editor('E_CHOICE').options[0].textContent).toBe('(not set) — default a');
    expect(options(editor('E_OPTIONAL'))).toEqual(['None', 'x', 'y']); // "None" is its way of being unset
    expect(editor('E_OPTIONAL').value).toBe('None');
    expect(editor('E_SWITCH').type).toBe('checkbox');
    expect(editor('E_PRESENCE').type).toBe('checkbox');
    const fraction = editor('E_FRACTION');
    expect([fraction.type, fraction.min, fraction.max, fraction.step]).toEqual(['number', '0', '1', '0.01']);
    const slider = editor('E_FRACTION slider');
    expect([slider.type, slider.min, slider.max, slider.step, slider.value]).toEqual(['range', '0', '1', '0.01', '0.92']);
    const number = editor('E_NUMBER');
    expect([number.type, number.min, number.max, number.step, number.placeholder]).toEqual(['number', '1', '64', '1', '4']);
    expect(editor('E_SIZE').type).toBe('text'); // a number, or a size with its unit, as its tooltip says
    expect(options(editor('E_SIZE unit'))).toEqual(['B', 'KiB', 'MiB', 'GiB', 'TiB']);
    expect(options(editor('E_SIZE_MB unit'))).toEqual(['MiB', 'GiB']);
    expect(editor('E_SIZE_MB').placeholder).toBe('500'); // in MiB, the unit the default (500 MiB) is shown in
    expect(editor('E_TEXT').type).toBe('text');
    expect(editor('E_TEXT').placeholder).toBe('xpux');
    expect([...document.querySelectorAll<HTMLElement>('[data-editor]')].map(n => n.dataset.editor).sort()).toEqual(
      ENTRIES.map(e => e.editor.kind).sort()
    );
    // Framework headings as the kernel names them.
    expect([...document.querySelectorAll('.mgenv-sb-framework > summary')].map(s => s.textContent)).toEqual([
      'MegEngine', 'PaddlePaddle'
    ]);
    expect(editor('E_SIZE').disabled).toBe(false);
    expect(row('E_PRESENCE').querySelector('.mgenv-sb-note')!.textContent).toBe('ON whenever the variable exists');
    expect(row('E_TEXT').querySelector('.mgenv-sb-details > summary')!.textContent).toBe('details · ⚠ caveats (2)');
    expect(texts(row('E_TEXT'), '.mgenv-sb-caveats li')).toEqual(['one', 'two']);
  });

  it('turns edits into set and unset actions, each kind in the kernel’s spelling', async () => {
    const { edits } = view();
    const select = editor('E_CHOICE');
    select.value = 'b';
    select.dispatchEvent(new Event('change'));
    const optional = editor('E_OPTIONAL');
    optional.value = 'x';
    optional.dispatchEvent(new Event('change'));
    const presence = editor('E_PRESENCE');
    presence.checked = true;
    presence.dispatchEvent(new Event('change'));
    presence.checked = false;
    presence.dispatchEvent(new Event('change'));
    const toggle = editor('E_SWITCH');
    toggle.checked = true;
    toggle.dispatchEvent(new Event('change'));
    const slider = editor('E_FRACTION slider');
    slider.value = '0.5';
    slider.dispatchEvent(new Event('input'));
    expect(editor('E_FRACTION').value).toBe('0.5'); // the box moves with the slider
    slider.dispatchEvent(new Event('change'));
    type(editor('E_NUMBER'), '8');
    editor('E_NUMBER').dispatchEvent(new Event('change')); // the browser's change after Enter sends nothing more
    const unit = editor('E_SIZE unit');
    unit.value = 'GiB';
    unit.dispatchEvent(new Event('change')); // no number yet: nothing to send
    type(editor('E_SIZE'), '5');
    type(editor('E_TEXT'), 'cpu0');
    type(editor('E_TEXT'), '');
    await flush();
    expect(edits).toEqual([
      ['E_CHOICE', 'b'], ['E_OPTIONAL', 'x'], ['E_PRESENCE', '1'], ['E_PRESENCE', null], ['E_SWITCH', '1'],
      ['E_FRACTION', '0.5'], ['E_NUMBER', '8'], ['E_SIZE', '5GiB'], ['E_TEXT', 'cpu0'], ['E_TEXT', null]
    ]);
  });

  it('edits a key:value config key by key, each key its own typed input, sending the joined value', async () => {
    const conf = entry('PYTORCH_ALLOC_CONF', 'key_value', { framework: 'torch', category: 'GPU memory' });
    const { model, edits } = view([conf]);
    model.setConnection({ state: 'ready', kernel: 'Python 3' });
    const group = editor('PYTORCH_ALLOC_CONF');
    expect(group.getAttribute('role')).toBe('group'); // the variable's name names the group of its keys
    expect(editor('PYTORCH_ALLOC_CONF backend').tagName).toBe('SELECT');
    expect(editor('PYTORCH_ALLOC_CONF expandable_segments').type).toBe('checkbox');
    const split = editor('PYTORCH_ALLOC_CONF max_split_size_mb');
    expect([split.type, split.min, split.step]).toEqual(['number', '11', '1']);
    const joined = () => row('PYTORCH_ALLOC_CONF').querySelector('.mgenv-sb-joined')!.textContent;
    expect(joined()).toBe('every key at its default (the variable is left unset)');
    expect(texts(row('PYTORCH_ALLOC_CONF'), '.mgenv-sb-key-mark:not([hidden])')).toEqual(
      ['default: native', 'default: False', 'default: off or unlimited', 'default: off or unlimited']);
    const segments = editor('PYTORCH_ALLOC_CONF expandable_segments');
    segments.checked = true;
    segments.dispatchEvent(new Event('change'));
    type(split, '128');
    await flush();
    expect(edits).toEqual([['PYTORCH_ALLOC_CONF', 'expandable_segments:True'],
      ['PYTORCH_ALLOC_CONF', 'expandable_segments:True,max_split_size_mb:128']]);
    expect(joined()).toBe('joined: expandable_segments:True,max_split_size_mb:128');
    // The kernel's value, shown from the keys it parsed (a value with commas inside a key stays whole).
    model.receive(changed({ PYTORCH_ALLOC_CONF: variable('expandable_segments:False,roundup_power2_divisions:[256:1,512:2]',
      'pending_first_use', { keys: { expandable_segments: 'False', roundup_power2_divisions: '[256:1,512:2]' } }) }));
    expect(segments.checked).toBe(false);
    expect(split.value).toBe('');
    expect(editor('PYTORCH_ALLOC_CONF roundup_power2_divisions').value).toBe('[256:1,512:2]');
    expect(joined()).toBe('joined: expandable_segments:False,roundup_power2_divisions:[256:1,512:2]');
    const reset = (key: string) =>
      row('PYTORCH_ALLOC_CONF').querySelector<HTMLButtonElement>(`.mgenv-sb-key[data-key="${key}"] .mgenv-sb-key-reset`)!;
    expect(reset('backend').hidden).toBe(true); // a key left out has nothing to reset
    reset('expandable_segments').click();
    reset('roundup_power2_divisions').click();
    await flush();
    expect(edits.slice(2)).toEqual([['PYTORCH_ALLOC_CONF', 'roundup_power2_divisions:[256:1,512:2]'],
      ['PYTORCH_ALLOC_CONF', null]]); // every key left out: the variable is unset
  });

  it('round-trips a size: the kernel’s "5368709120" shows as 5 GiB, and 5 GiB is sent as "5GiB"', async () => {
    const { model, edits } = view();
    // The kernel splits its value (VariableInfo.size): the sidebar shows the parts it was sent, never splitting itself.
    model.receive(changed({
      E_SIZE: variable('5368709120', 'pending_import', { size: { number: '5', unit: 'GiB' } }),
      E_SIZE_MB: variable('2048', 'pending_import', { size: { number: '2', unit: 'GiB' } })
    }));
    expect([editor('E_SIZE').value, editor('E_SIZE unit').value]).toEqual(['5', 'GiB']);
    expect([editor('E_SIZE_MB').value, editor('E_SIZE_MB unit').value]).toEqual(['2', 'GiB']); // 2048 MiB
    // The units read as the kernel names them, the one notation of sizes (GiB, as the chart writes them too).
    const units = [...editor('E_SIZE_MB unit').options].map(o => [o.textContent, o.value]);
    expect(units).toEqual([['MiB', 'MiB'], ['GiB', 'GiB']]);
    type(editor('E_SIZE'), '5'); // unchanged: nothing to send
    type(editor('E_SIZE'), '1.5');
    const unit = editor('E_SIZE unit');
    unit.value = 'MiB';
    unit.dispatchEvent(new Event('change'));
    // Typed with a unit, as the tooltip offers ("512MB"): sent as typed, for the kernel to read, whatever the list shows.
    expect(editor('E_SIZE').title).toBe('allowed for size');
    type(editor('E_SIZE'), '512MB');
    unit.value = 'GiB';
    unit.dispatchEvent(new Event('change')); // the box has its own unit: the list changes nothing
    await flush();
    expect(edits).toEqual([['E_SIZE', '1.5GiB'], ['E_SIZE', '1.5MiB'], ['E_SIZE', '512MB']]);
    // The split itself is the kernel's (catalog/_values.py size_parts; its cases, 1536 MiB, 0 B, 2**60 bytes and "5GB",
    // are tested there): a value it did not split (set outside as "5GB") is said as the kernel holds it, never guessed.
    model.receive(changed({ E_SIZE: variable('5GB', 'pending_import') }));
    expect(row('E_SIZE').querySelector('.mgenv-sb-row-odd')!.textContent).toBe('the kernel holds 5GB');
  });

  it('shows a size exactly as the kernel split it, having no rule of its own', () => {
    const { model } = view();
    // 1610612736 bytes as a kernel that writes it 1.5 GiB would send it: the sidebar shows that, not 1536 MiB.
    model.receive(changed({ E_SIZE: variable('1610612736', 'pending_import', { size: { number: '1.5', unit: 'GiB' } }) }));
    expect([editor('E_SIZE').value, editor('E_SIZE unit').value]).toEqual(['1.5', 'GiB']);
    const body = reviewBody({ notebook: 'n.ipynb', items: [{ name: 'E_SIZE', value: '3221225472', size: { number: '3', unit: 'GiB' },
      current: '1610612736', current_size: { number: '1.5', unit: 'GiB' }, action: 'set', reason: null }] }, trans);
    const codes = [...body.querySelectorAll('tbody td code')].map(c => [c.textContent, c.getAttribute('title')]);
    expect(codes).toEqual([['3 GiB', '3221225472'], ['1.5 GiB', '1610612736']]); // the value, then what the kernel holds
  });

  it('writes a size’s default as the kernel split it, the plain number the framework reads on hover', () => {
    view();
    const byDefault = row('E_SIZE_MB').querySelector('.mgenv-sb-default') as HTMLElement;
    expect([byDefault.textContent, byDefault.title]).toEqual(['default: 500 MiB', '500']);
    expect(editor('E_SIZE_MB').placeholder).toBe('500');
    const other = row('E_NUMBER').querySelector('.mgenv-sb-default') as HTMLElement;
    expect([other.textContent, other.title]).toEqual(['default: 4', '']); // anything else as it is
  });

  it('shows values and badges from the kernel by status code, and filters rows with the search box', () => {
    const { model } = view();
    model.receive(changed({ E_SIZE: variable('5368709120', 'already_read', { message: 'paddle read unset' }) }));
    const badge = row('E_SIZE').querySelector('.mgenv-sb-badge') as HTMLElement;
    expect(badge.textContent).toBe('already read, restart needed');
    expect(badge.className).toBe('mgenv-sb-badge mgenv-sb-badge-already_read');
    expect(badge.title).toBe('paddle read unset');
    expect(row('E_SIZE').dataset.status).toBe('already_read');
    model.setFilter('e_size_mb');
    const shown = [...document.querySelectorAll<HTMLElement>('.mgenv-sb-row')].filter(r => !r.hidden).map(r => r.dataset.name);
    expect(shown).toEqual(['E_SIZE_MB']);
    expect((document.querySelector('[data-framework="megengine"]') as HTMLElement).hidden).toBe(true);
  });

  it('greys a row that does not apply, with the reason beside it, and follows a "changed" notice', () => {
    const { model } = view();
    const reason = 'only matters under naive_best_fit: with the chosen strategy auto_growth it has no effect';
    model.receive(changed({ E_FRACTION: variable(null, 'pending_import', { applies: false, applies_reason: reason }) }));
    const note = row('E_FRACTION').querySelector('.mgenv-sb-applies') as HTMLElement;
    expect(row('E_FRACTION').classList.contains('mgenv-sb-inapplicable')).toBe(true);
    expect([note.hidden, note.textContent, note.classList.contains('mgenv-sb-applies-quiet')]).toEqual([false, reason, false]);
    expect(editor('E_FRACTION').disabled).toBe(false); // greyed, still editable
    // The strategy changed in a cell: the notice carries the rows that follow it.
    model.receive(changed({ E_FRACTION: variable(null, 'pending_import', { applies: true, applies_reason: 'applies under naive_best_fit' }) }));
    expect(row('E_FRACTION').classList.contains('mgenv-sb-inapplicable')).toBe(false);
    expect([note.hidden, note.textContent, note.classList.contains('mgenv-sb-applies-quiet')]).toEqual([
      false, 'applies under naive_best_fit', true
    ]);
    model.receive(changed({ E_FRACTION: variable(null, 'pending_import') }));
    expect(note.hidden).toBe(true);
  });

  it('shows the live call, labelled as an example when it shows the default, and the entry’s facts', () => {
    const { model } = view();
    const call = "paddle.set_flags({'FLAGS_fraction_of_gpu_memory_to_use': 0.92})";
    model.receive(changed({ E_FRACTION: variable(null, 'pending_import', { live: call, live_example: true }) }));
    const live = row('E_FRACTION').querySelector('.mgenv-sb-live') as HTMLElement;
    expect(live.textContent).toBe(`live (example, with the default): ${call}`);
    model.receive(changed({ E_FRACTION: variable('0.5', 'applied_live', { live: call.replace('0.92', '0.5') }) }));
    expect(live.textContent).toBe(`live: ${call.replace('0.92', '0.5')}`);
    // The catalog's backticks mark code: drawn as code, never shown.
    const facts = row('E_FRACTION').querySelector('.mgenv-sb-facts')!;
    expect([facts.textContent, texts(facts as HTMLElement, 'code')]).toEqual([
      'default: 0.92 · read at import megengine', ['import megengine']
    ]);
    expect(row('E_TEXT').querySelector('.mgenv-sb-facts')!.textContent).toBe('no default · read at import megengine');
    expect(row('E_TEXT').querySelector('.mgenv-sb-details dl')!.textContent).toContain('allowed for text');
  });

  it('breaks a live call after its dots and brackets, never inside a name or a quoted value', () => {
    const pieces = (call: string) =>
      breakableCall(call).filter((part): part is string => typeof part === 'string');
    expect(pieces("megengine.set_default_device('gpu1:2')")).toEqual(['megengine.', 'set_default_device(', "'gpu1:2')"]);
    expect(pieces("paddle.set_flags({'FLAGS_x.y': 0.5})")).toEqual(['paddle.', 'set_flags(', '{', "'FLAGS_x.y': 0.5})"]);
    expect(pieces('megengine.dtr.eviction_threshold = 0')).toEqual(['megengine.', 'dtr.', 'eviction_threshold = 0']);
    expect(pieces('torch.get_num_threads()')).toEqual(['torch.', 'get_num_threads()']);
  });

  it('draws code marked with backticks as code, and leaves an unpaired backtick as it is', () => {
    const html = (text: string) => {
      const node = document.createElement('div');
      node.append(...withCode(text));
      return node.innerHTML;
    };
    expect(html('read at `import jax` (`jax 0.10`)')).toBe(
      'read at <code class="mgenv-sb-code">import jax</code> (<code class="mgenv-sb-code">jax 0.10</code>)'
    );
    expect(html('a ` alone')).toBe('a ` alone');
    expect(html('`x`')).toBe('<code class="mgenv-sb-code">x</code>');
  });

  it('keeps a refused edit with the kernel’s reason until Escape puts the kernel’s value back', async () => {
    const { model, widget } = view();
    model.receive(changed({ E_NUMBER: variable('4', 'effective') }));
    const number = editor('E_NUMBER');
    type(number, '999');
    widget.row('E_NUMBER')!.markInvalid('999 is more than 64');
    model.receive(changed({ E_NUMBER: variable('4', 'effective') })); // a refresh meanwhile leaves the edit alone
    const error = row('E_NUMBER').querySelector('.mgenv-sb-row-error') as HTMLElement;
    expect([number.value, error.hidden, error.textContent, number.getAttribute('aria-invalid')]).toEqual([
      '999', false, '999 is more than 64', 'true'
    ]);
    number.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect([number.value, error.hidden, number.hasAttribute('aria-invalid')]).toEqual(['4', true, false]);
    // A refused select goes back to the kernel's value at once, with the reason shown.
    const select = editor('E_CHOICE');
    select.value = 'c';
    widget.row('E_CHOICE')!.markInvalid('no');
    expect(select.value).toBe('');
  });

  it('shows the kernel’s error about a variable under that variable’s field, not above the catalog', async () => {
    const { model, actions } = view();
    const answers: any[] = [
      { v: 1, type: 'error', reply_to: 's1', message: "E_TEXT: 'tpu0' is not allowed: expected a device", field: 'E_TEXT', code: 'bad_value' },
      { v: 1, type: 'result', reply_to: 's2', changes: [] }
    ];
    actions.edit = async () => {
      const answer = answers.shift();
      model.receive(answer);
      return answer;
    };
    const text = editor('E_TEXT');
    type(text, 'tpu0');
    await flush();
    const error = row('E_TEXT').querySelector('.mgenv-sb-row-error') as HTMLElement;
    const top = document.querySelector('.mgenv-sb-error') as HTMLElement;
    expect([error.hidden, error.textContent, text.getAttribute('aria-invalid'), top.hidden]).toEqual([
      false, "E_TEXT: 'tpu0' is not allowed: expected a device", 'true', true
    ]);
    // The fixed value is taken: the reason for the refused one goes, and the kernel's value shows.
    model.receive(changed({ E_TEXT: variable('cpu0', 'pending_import') }));
    type(text, 'cpu0');
    await flush();
    expect([error.hidden, text.hasAttribute('aria-invalid'), text.value]).toEqual([true, false, 'cpu0']);
    // An error that names no variable of the catalog is shown above it.
    model.receive({ v: 1, type: 'error', reply_to: 's3', message: 'not connected to a kernel', field: null, code: 'not_connected' });
    expect([top.hidden, top.textContent]).toEqual([false, 'Error: not connected to a kernel']);
  });

  it('says what the kernel holds when the editor cannot show it', () => {
    const { model } = view();
    model.receive(changed({ E_SIZE: variable('5GB', 'effective') })); // written into os.environ by hand
    expect(editor('E_SIZE').value).toBe('');
    expect(row('E_SIZE').querySelector('.mgenv-sb-row-odd')!.textContent).toBe('the kernel holds 5GB');
  });

  it('labels each change in the history with its outcome, asks the kernel for older ones, and shows them page by page', async () => {
    const { model, widget, actions } = view();
    const changes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i): ChangeInfo => ({
      seq: from + i, time: 1, name: 'E_NUMBER', old: null, new: String(from + i), source: 'magic',
      outcome: 'pending_import', message: '', effective: null, secret: false, shown_old: null, shown_new: null
    }));
    const kernel = { python: 'python', version: '3.11', imported: [] };
    model.receive({ v: 1, type: 'state', reply_to: null, variables: {}, history: changes(10, 12), history_total: 12, last_report: null, kernel });
    await flush();
    const items = () => [...document.querySelectorAll<HTMLElement>('.mgenv-sb-history-item')];
    expect(items()[0].textContent).toMatch(/E_NUMBER: \(unset\) → 12 \[magic\] takes effect at import$/);
    expect(items()[0].querySelector('.mgenv-sb-badge-pending_import')).not.toBeNull();
    // 100 are to be shown and the kernel has 12: it is asked for the 9 before number 10 (at most 97).
    expect(actions.loadHistory).toHaveBeenCalledWith(10, 97);
    model.receive({ v: 1, type: 'history', reply_to: 'h', changes: changes(1, 9), total: 12 });
    expect(items()).toHaveLength(12);

    widget.setHistoryShown(5);
    expect(items().map(i => i.textContent!.split(' → ')[1].split(' ')[0])).toEqual(['12', '11', '10', '9', '8']);
    expect(document.querySelector('.mgenv-sb-history-count')!.textContent).toBe('showing the latest 5 of 12 changes');
    const older = document.querySelector('.mgenv-sb-history-older') as HTMLButtonElement;
    expect([older.hidden, older.disabled]).toEqual([false, false]);
    older.click();
    await flush();
    expect(items()).toHaveLength(10);
    older.click();
    await flush();
    expect(items()).toHaveLength(12);
    expect(older.hidden).toBe(true); // all of them, back to change 1
    expect(actions.loadHistory).toHaveBeenCalledTimes(1);
  });

  it('writes a size in the history as the kernel wrote it, never as the plain number', async () => {
    const { model } = view();
    const sized: ChangeInfo = {
      seq: 1, time: 1, name: 'E_SIZE', old: '1073741824', new: '3221225472', source: 'profile', outcome: 'pending_import',
      message: '', effective: null, secret: false, shown_old: '1 GiB', shown_new: '3 GiB'
    };
    model.receive({ v: 1, type: 'state', reply_to: null, variables: {}, history: [sized], history_total: 1, last_report: null,
      kernel: { python: 'python', version: '3.11', imported: [] } });
    await flush();
    expect(document.querySelector('.mgenv-sb-history-item')!.textContent).toMatch(/E_SIZE: 1 GiB → 3 GiB \[profile\]/);
  });

  it('explains a kernel without the package', () => {
    const { model } = view();
    model.setConnection({ state: 'not-installed', detail: "No module named 'mgenv_jupyter'" });
    const notice = document.querySelector('.mgenv-sb-notice') as HTMLElement;
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toContain('mgenv_jupyter is not installed in this kernel’s environment');
    expect(notice.textContent).toContain('%pip install mgenv_jupyter');
    expect(editor('E_SIZE').disabled).toBe(true);
    expect(editor('E_SIZE unit').disabled).toBe(true);
  });
});

const ITEMS: ProfileItemInfo[] = [
  { name: 'MGE_DEFAULT_DEVICE', value: 'cpu0', size: null, current: null, current_size: null, action: 'set', reason: null },
  { name: 'MGB_ENABLE_DTR', value: '1', size: null, current: '1', current_size: null, action: 'unchanged', reason: null },
  {
    name: 'LD_PRELOAD', value: '/tmp/evil.so', size: null, current: null, current_size: null, action: 'refused',
    reason: 'LD_PRELOAD makes the dynamic loader load other libraries: it is never taken from a notebook profile'
  }
];

describe('the notebook profile in the panel', () => {
  function panel(status: 'declined' | 'applied' | 'asking') {
    const model = new EnvModel('en');
    const actions = {
      edit: jest.fn(async () => null),
      forget: jest.fn(),
      reviewProfile: jest.fn(async () => undefined),
      restartAndApply: jest.fn(async () => undefined),
      refresh: jest.fn(),
      loadHistory: jest.fn(async () => undefined)
    };
    const widget = new ConfigView(model, actions, trans);
    document.body.append(widget.node);
    model.setConnection({ state: 'ready', kernel: 'Python 3' });
    model.setProfile({ LD_PRELOAD: '/tmp/evil.so', MGE_DEFAULT_DEVICE: 'cpu0' });
    model.setProfileReview({ status, items: ITEMS });
    return { model, actions, section: document.querySelector('.mgenv-sb-profile') as HTMLElement };
  }

  afterEach(() => document.body.replaceChildren());

  it('says a declined profile was not applied, and offers to review it again', () => {
    const { actions, section } = panel('declined');
    expect(section.dataset.status).toBe('declined');
    expect(section.textContent).toContain('not applied: you have not approved this profile');
    const again = [...section.querySelectorAll('button')].find(b => b.textContent === 'Review and apply…')!;
    expect(again.disabled).toBe(false);
    again.click();
    expect(actions.reviewProfile).toHaveBeenCalledTimes(1);
  });

  it('marks what the kernel refuses, with its reason, and offers no review once applied', () => {
    const { section } = panel('applied');
    expect(section.textContent).toContain('applied to this kernel');
    expect(section.textContent).not.toContain('Review and apply');
    const refused = section.querySelector('.mgenv-sb-profile-refused') as HTMLElement;
    expect(refused.textContent).toContain('LD_PRELOAD=/tmp/evil.so');
    const mark = refused.querySelector('.mgenv-sb-profile-refused-mark') as HTMLElement;
    expect(mark.textContent).toBe('will not be applied');
    expect(mark.title).toContain('never taken from a notebook profile');
    expect(section.querySelectorAll('.mgenv-sb-profile-refused')).toHaveLength(1);
  });

  it('shows a size in the one notation of sizes, the plain number the notebook keeps in its tooltip', () => {
    const { model, section } = panel('applied');
    model.receive({ v: 1, type: 'catalog', reply_to: null, language: 'en', entries: ENTRIES, frameworks: FRAMEWORKS });
    // The kernel's review of this profile splits its sizes (ProfileItemInfo.size), as it splits the values it holds.
    const item = (name: string, value: string, size: ProfileItemInfo['size']): ProfileItemInfo => (
      { name, value, size, current: null, current_size: null, action: 'set', reason: null });
    model.setProfileReview({ status: 'applied', items: [
      item('E_SIZE', '3221225472', { number: '3', unit: 'GiB' }), item('E_SIZE_MB', '2048', { number: '2', unit: 'GiB' }),
      item('E_TEXT', 'cpu0', null)
    ] });
    model.setProfile({ E_SIZE: '3221225472', E_SIZE_MB: '2048', E_TEXT: 'cpu0' });
    const shown = [...section.querySelectorAll('.mgenv-sb-profile-entry code')].map(c => [c.textContent, c.getAttribute('title')]);
    expect(shown).toEqual([
      ['E_SIZE=3 GiB', 'E_SIZE=3221225472'], ['E_SIZE_MB=2 GiB', 'E_SIZE_MB=2048'], ['E_TEXT=cpu0', null]
    ]);
  });
});

describe('the question before a profile is applied', () => {
  const cells = (row: Element) => [...row.children].map(c => c.textContent);

  it('lists what would be set and what the kernel refuses, with the value, what it is now and why', () => {
    const body = reviewBody({ notebook: 'downloaded.ipynb', items: ITEMS }, trans);
    expect(body.querySelector('p')!.textContent).toContain('The notebook downloaded.ipynb carries a profile');
    const [willSet, refused] = [...body.querySelectorAll('table')];
    expect(willSet.querySelector('caption')!.textContent).toBe('Will be set');
    expect(cells(willSet.querySelector('thead tr')!)).toEqual(['Variable', 'Value', 'Now']);
    expect([...willSet.querySelectorAll('tbody tr')].map(cells)).toEqual([
      ['MGE_DEFAULT_DEVICE', 'cpu0', '(not set)'],
      ['MGB_ENABLE_DTR', '1', 'already this value']
    ]);
    expect(refused.querySelector('caption')!.textContent).toBe('Will not be applied');
    expect(cells(refused.querySelector('thead tr')!)).toEqual(['Variable', 'Value', 'Now', 'Why']);
    expect([...refused.querySelectorAll('tbody tr')].map(cells)).toEqual([
      ['LD_PRELOAD', '/tmp/evil.so', '(not set)', ITEMS[2].reason]
    ]);
    expect(refused.closest('section')!.querySelector('h3')!.textContent).toBe('Will not be applied');
    // Row headers name each row for a screen reader.
    expect([...body.querySelectorAll('tbody th')].every(th => th.getAttribute('scope') === 'row')).toBe(true);
  });

  it('says so when nothing would be set, and speaks Chinese for a Chinese JupyterLab', async () => {
    const body = reviewBody({ notebook: 'x.ipynb', items: [ITEMS[2]] }, await chineseTranslation());
    expect(body.querySelectorAll('table')).toHaveLength(1);
    expect(body.textContent).toContain('这份配置中没有会被设置的变量。');
    expect(body.textContent).toContain('不会应用');
    expect(body.querySelector('thead')!.textContent).toBe('变量值当前值原因');
  });
});
