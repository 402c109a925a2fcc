import { ConfigView } from '../src/sidebar/configView';
import { EnvModel } from '../src/sidebar/model';
import { reviewBody } from '../src/sidebar/profileReview';
import { ProfileItemInfo } from '../src/protocol';
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
      reviewProfile: jest.fn(async () => undefined),
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

const ITEMS: ProfileItemInfo[] = [
  { name: 'MGE_DEFAULT_DEVICE', value: 'cpu0', current: null, action: 'set', reason: null },
  { name: 'MGB_ENABLE_DTR', value: '1', current: '1', action: 'unchanged', reason: null },
  {
    name: 'LD_PRELOAD', value: '/tmp/evil.so', current: null, action: 'refused',
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
      refresh: jest.fn()
    };
    const widget = new ConfigView(model, actions);
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
});

describe('the question before a profile is applied', () => {
  const cells = (row: Element) => [...row.children].map(c => c.textContent);

  it('lists what would be set and what the kernel refuses, with the value, what it is now and why', () => {
    const body = reviewBody({ notebook: 'downloaded.ipynb', items: ITEMS, language: 'en' });
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

  it('says so when nothing would be set, and speaks Chinese for a Chinese JupyterLab', () => {
    const body = reviewBody({ notebook: 'x.ipynb', items: [ITEMS[2]], language: 'zh' });
    expect(body.querySelectorAll('table')).toHaveLength(1);
    expect(body.textContent).toContain('这份配置中没有会被设置的变量。');
    expect(body.textContent).toContain('不会应用');
    expect(body.querySelector('thead')!.textContent).toBe('变量值当前值原因');
  });
});
