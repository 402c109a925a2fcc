/**
 * The JupyterLab / Notebook 7 plugin: adds the "Framework Env" sidebar to the left area. Wiring only; see
 * sidebar/panel.ts. Only INotebookTracker is required, so the plugin runs wherever notebooks do (JupyterLab 4,
 * Notebook 7); the translator, the setting registry and the layout restorer are used when present (English words
 * and the defaults of schema/sidebar.json otherwise).
 */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { sidebarIcon } from './sidebar/icon';
import { SidebarPanel } from './sidebar/panel';
import { askToApplyProfile } from './sidebar/profileDialog';
import { SidebarSettings } from './sidebar/settings';
import { catalogLanguage, DOMAIN, translate } from './sidebar/text';

const PLUGIN_ID = 'mgenv-jupyter:sidebar';

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'The Framework Env sidebar: framework variables of the active notebook’s kernel and its live GPU memory.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ITranslator, ISettingRegistry, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker,
    translator: ITranslator | null,
    registry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null
  ) => {
    const translation = translator ?? nullTranslator;
    const t = translate(translation.load(DOMAIN));
    const settings = new SidebarSettings();
    registry
      ?.load(PLUGIN_ID)
      .then(loaded => settings.follow(loaded))
      .catch(reason => console.warn('mgenv_jupyter: the sidebar’s settings could not be loaded; defaults hold', reason));
    const panel = new SidebarPanel(notebooks, {
      t,
      // The kernel's catalog and the status labels follow JupyterLab's language even without a language pack.
      language: catalogLanguage(translation.languageCode),
      settings,
      ask: askToApplyProfile(t)
    });
    panel.title.icon = sidebarIcon;
    app.shell.add(panel, 'left', { rank: 650 });
    restorer?.add(panel, panel.id);
  }
};

export default plugin;
