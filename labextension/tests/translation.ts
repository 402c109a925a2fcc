/** The sidebar's Chinese catalog as JupyterLab loads it: a real TranslationManager, served what jupyterlab_server
 * serves for package locale data ({data: {domain: Jed JSON}}) — the catalog scripts/locale.mjs writes from
 * src/locale/zh_CN.json. */
import { TranslationBundle, TranslationManager } from '@jupyterlab/translation';

import chinese from '../src/locale/zh_CN.json';
import { DOMAIN, jedCatalog } from '../src/sidebar/text';

export async function chineseTranslation(): Promise<TranslationBundle> {
  const served = { data: { [DOMAIN]: jedCatalog(chinese, '0.1.0') }, message: '' };
  const connector = {
    fetch: async () => served,
    save: async () => undefined,
    remove: async () => undefined,
    list: async () => ({ ids: [], values: [] })
  };
  const manager = new TranslationManager('', undefined, undefined, connector as any);
  await manager.fetch('zh_CN');
  return manager.load(DOMAIN);
}
