/**
 * The JupyterLab / Notebook 7 plugin: adds the "Framework Env" sidebar to the left area. Wiring only; see
 * sidebar/panel.ts. Only INotebookTracker is required, so the plugin runs wherever notebooks do (JupyterLab 4,
 * Notebook 7); the translator and the layout restorer are used when present.
 */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ITranslator } from '@jupyterlab/translation';

import { sidebarIcon } from './sidebar/icon';
import { SidebarPanel } from './sidebar/panel';
import { catalogLanguage } from './sidebar/text';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'mgenv-jupyter:sidebar',
  description: 'The Framework Env sidebar: framework variables of the active notebook’s kernel and its live GPU memory.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ITranslator, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker,
    translator: ITranslator | null,
    restorer: ILayoutRestorer | null
  ) => {
    const panel = new SidebarPanel(notebooks, catalogLanguage(translator?.languageCode));
    panel.title.icon = sidebarIcon;
    app.shell.add(panel, 'left', { rank: 650 });
    restorer?.add(panel, panel.id);
  }
};

export default plugin;
