import { ConfigView } from '../src/sidebar/configView';
import { EnvModel } from '../src/sidebar/model';
import { entry, flush } from './fakes';

describe('ConfigView', () => {
  function view() {
    const model = new EnvModel('en');
    const edits: [string, string | null][] = [];
    const actions = {
      edit: async (name: string, value: string | null) => {
        edits.push([name, value]);
        return null;
      },
      forget: jest.fn(),
      restartAndApply: jest.fn(async () => undefined),
      refresh: jest.fn()
    };
    const widget = new ConfigView(model, actions);
    document.body.append(widget.node);
    model.setConnection({ state: 'connecting', kernel: 'Python 3' });
    model.receive({
      v: 1, type: 'catalog', reply_to: null, language: 'en',
      entries: [
        entry('E_ENUM', 'enum'), entry('E_SWITCH', 'switch', { default: '0' }), entry('E_PRESENCE', 'presence'),
        entry('E_SIZE', 'size', { framework: 'paddle', category: 'Memory' })
      ]
    });
    return { model, widget, edits, actions };
  }

  const editor = (name: string) => document.querySelector(`[aria-label="${name}"]`) as HTMLInputElement & HTMLSelectElement;

  afterEach(() => document.body.replaceChildren());

  it('draws one editor per variable, by kind, named exactly after the variable', () => {
    view();
    expect(editor('E_ENUM').tagName).toBe('SELECT');
    expect([...editor('E_ENUM').options].map(o => o.value)).toEqual(['', 'a', 'b', 'c']);
    expect(editor('E_SWITCH').type).toBe('checkbox');
    expect(editor('E_PRESENCE').type).toBe('checkbox');
    expect(editor('E_SIZE').type).toBe('text');
    expect(document.querySelectorAll('.mgenv-sb-framework')).toHaveLength(2);
    expect(editor('E_SIZE').disabled).toBe(false);
  });

  it('turns edits into set and unset actions', async () => {
    const { edits } = view();
    const select = editor('E_ENUM');
    select.value = 'b';
    select.dispatchEvent(new Event('change'));
    const presence = editor('E_PRESENCE');
    presence.checked = true;
    presence.dispatchEvent(new Event('change'));
    presence.checked = false;
    presence.dispatchEvent(new Event('change'));
    const toggle = editor('E_SWITCH');
    toggle.checked = true;
    toggle.dispatchEvent(new Event('change'));
    const size = editor('E_SIZE');
    size.value = '5GB';
    size.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    size.dispatchEvent(new Event('change')); // the browser's change after Enter sends nothing more
    await flush();
    expect(edits).toEqual([
      ['E_ENUM', 'b'], ['E_PRESENCE', '1'], ['E_PRESENCE', null], ['E_SWITCH', '1'], ['E_SIZE', '5GB']
    ]);
  });

  it('shows values and badges from the kernel, and filters rows with the search box', () => {
    const { model } = view();
    model.receive({
      v: 1, type: 'changed', changes: [],
      variables: { E_SIZE: { value: '5368709120', status: 'already read, restart needed', message: 'paddle read unset' } }
    });
    expect(editor('E_SIZE').value).toBe('5368709120');
    const badge = document.querySelector('[data-name="E_SIZE"] .mgenv-sb-badge') as HTMLElement;
    expect(badge.textContent).toBe('already read, restart needed');
    expect(badge.title).toBe('paddle read unset');
    model.setFilter('e_size');
    const hidden = [...document.querySelectorAll<HTMLElement>('.mgenv-sb-row')].filter(r => r.hidden).map(r => r.dataset.name);
    expect(hidden).toEqual(['E_ENUM', 'E_SWITCH', 'E_PRESENCE']);
    expect((document.querySelector('[data-framework="megengine"]') as HTMLElement).hidden).toBe(true);
  });

  it('explains a kernel without the package', () => {
    const { model } = view();
    model.setConnection({ state: 'not-installed', detail: "No module named 'mgenv_jupyter'" });
    const notice = document.querySelector('.mgenv-sb-notice') as HTMLElement;
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toContain('mgenv_jupyter is not installed in this kernel’s environment');
    expect(notice.textContent).toContain('%pip install mgenv_jupyter');
    expect(editor('E_SIZE').disabled).toBe(true);
  });
});
