import { CommandRegistry } from '@lumino/commands';
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { addSidebarCommands } from '../src/sidebar/commands';
import { ConfigView } from '../src/sidebar/configView';
import { EnvModel } from '../src/sidebar/model';
import { SidebarPanel } from '../src/sidebar/panel';
import chinese from '../src/locale/zh_CN.json';
import { DOMAIN, jedCatalog, Translation } from '../src/sidebar/text';
import { entry, FRAMEWORKS, variable } from './fakes';
import { chineseTranslation } from './translation';

/** A TranslationBundle that translates every text into a marked copy, and remembers what it was asked. */
class MarkingTranslation implements Translation {
  asked: string[] = [];
  __(msgid: string, ...args: any[]): string {
    this.asked.push(msgid);
    return `«${msgid.replace(/%(\d+)/g, (_, n) => String(args[Number(n) - 1]))}»`;
  }
  _p(context: string, msgid: string, ...args: any[]): string {
    const marked = this.__(msgid, ...args);
    this.asked[this.asked.length - 1] = `${context}\u0004${msgid}`; // as the catalog keys a text with a context
    return marked;
  }
}

const actions = {
  edit: async () => null,
  forget: () => undefined,
  reviewProfile: async () => undefined,
  loadHistory: async () => undefined
};

function configView(trans: Translation) {
  const model = new EnvModel('en');
  const view = new ConfigView(model, actions, trans);
  document.body.append(view.node);
  model.setConnection({ state: 'connecting', kernel: 'Python 3', notebook: 'a.ipynb' });
  model.receive({
    v: 1, type: 'catalog', reply_to: null, language: 'en', frameworks: FRAMEWORKS,
    entries: [
      entry('E_CHOICE', 'choice', { default: 'a', caveats: ['careful'] }),
      entry('E_FRACTION', 'fraction', { framework: 'paddle', category: 'Memory' })
    ]
  });
  model.receive({
    v: 1, type: 'state', reply_to: null, history: [], history_total: 0, last_report: null,
    variables: { E_FRACTION: variable(null, 'pending_import', { live: 'paddle.set_flags({})', live_example: true }) },
    kernel: { python: 'python', version: '3.11', imported: ['paddle'] }
  });
  return view;
}

/** Wait (a second at most) until `root` holds `count` elements matching `selector`. */
async function rendered(root: HTMLElement, selector: string, count: number): Promise<void> {
  for (let i = 0; i < 100 && root.querySelectorAll(selector).length < count; i++) {
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

const texts = (root: HTMLElement, selector: string) =>
  [...root.querySelectorAll<HTMLElement>(selector)].map(node => node.textContent ?? '');

describe('the sidebar’s words go through JupyterLab’s translator', () => {
  afterEach(() => document.body.replaceChildren());

  it('takes every text of the panel from the translation bundle', () => {
    const trans = new MarkingTranslation();
    const view = configView(trans);
    const node = view.node;
    expect(node.querySelector('.mgenv-sb-status')!.textContent).toBe('a.ipynb · Python 3 · Python 3.11 · «imported: paddle»');
    expect((node.querySelector('.mgenv-sb-search') as HTMLInputElement).placeholder).toBe('«Search name or description…»');
    expect(node.querySelector('.mgenv-sb-search')!.getAttribute('aria-label')).toBe('«Search variables»');
    expect(node.querySelector('.mgenv-sb-profile-title')!.textContent).toBe('«Notebook profile» (0)');
    expect(texts(node, '.mgenv-sb-history > summary, .mgenv-sb-history-empty')).toEqual(['«Change history»', '«No changes yet.»']);
    expect(texts(node, '.mgenv-sb-history-older')).toEqual(['«Show older changes»']);
    const choice = node.querySelector('[data-name="E_CHOICE"]') as HTMLElement;
    expect((choice.querySelector('select') as HTMLSelectElement).options[0].textContent).toBe('«(not set) — default a»');
    expect(texts(choice, '.mgenv-sb-facts')).toEqual(['«default: a» · read at import megengine']); // the second is the kernel's
    expect(texts(choice, '.mgenv-sb-details > summary, .mgenv-sb-details dt')).toEqual([
      '«details» · ⚠ «caveats (1)»', '«Allowed»', '«Read in the source at»', '«Read by»'
    ]);
    expect(choice.querySelector('.mgenv-sb-unset')!.getAttribute('title')).toBe('«Unset (back to the framework’s default)»');
    expect(texts(node, '.mgenv-sb-live-label')).toEqual(['«live (example, with the default)»: ']);
    expect(texts(node, '.mgenv-sb-empty')).toEqual(['«No variable matches.»']);
    // Everything it was asked is a msgid of the Chinese catalog (the build ships it as it is).
    const catalog = jedCatalog(chinese, '0');
    expect(trans.asked.filter(msgid => !(msgid in catalog))).toEqual([]);
  });

  it('names the panel, its sections and its commands in the user’s language', async () => {
    const trans = new MarkingTranslation();
    const source = { currentWidget: null, currentChanged: new Signal<any, any>({}) };
    const panel = new SidebarPanel(source, { trans, language: 'en' });
    const commands = new CommandRegistry();
    addSidebarCommands({
      commands, shell: { activateById: () => undefined }, panel, trans, askToRestart: async () => ({ restart: false, save: false, keep: [] })
    });
    Widget.attach(panel, document.body);
    await rendered(panel.node, 'jp-button', 2); // the toolbar's buttons render in idle callbacks
    expect(panel.title.caption).toBe('«Framework Env»');
    expect(panel.node.querySelector('.mgenv-sb-heading')!.textContent).toBe('«Framework Env»');
    expect(texts(panel.node, '.lm-AccordionPanel-titleLabel')).toEqual(['«Variables»', '«Live GPU memory»']);
    const labels = [...panel.node.querySelectorAll('jp-button')].map(button => button.getAttribute('aria-label'));
    expect(labels).toEqual(['«Restart and apply»', '«Refresh»']);
    expect(commands.label('mgenv-jupyter:open-sidebar')).toBe('«Framework Env»');
    expect(commands.label('mgenv-jupyter:open-sidebar', { isPalette: true })).toBe('«Show Framework Env»');
    expect(commands.caption('mgenv-jupyter:restart-and-apply')).toMatch(/^«Restart the kernel with this notebook’s profile/);
    const catalog = jedCatalog(chinese, '0');
    expect(trans.asked.filter(msgid => !(msgid in catalog))).toEqual([]);
    Widget.detach(panel);
    panel.dispose();
  });

  it('speaks Chinese with the catalog the build ships, loaded as JupyterLab loads a package’s locale', async () => {
    const view = configView(await chineseTranslation());
    expect(view.node.querySelector('.mgenv-sb-search')!.getAttribute('aria-label')).toBe('搜索变量');
    expect(view.node.querySelector('.mgenv-sb-history > summary')!.textContent).toBe('修改历史');
    expect(view.node.querySelector('.mgenv-sb-status')!.textContent).toContain('已导入:paddle');
    const catalog = jedCatalog(chinese, '0.1.0');
    expect(catalog['']).toEqual({ domain: DOMAIN, language: 'zh-CN', plural_forms: 'nplurals=1; plural=0;', version: '0.1.0' });
    expect(catalog['Framework Env']).toEqual(['框架环境变量']);
  });
});
