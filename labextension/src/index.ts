/**
 * The JupyterLab / Notebook 7 plugin: adds the "Framework Env" sidebar to the left area and its commands (View menu,
 * command palette, the panel's toolbar), and each notebook's renderers of our outputs (out-of-memory reports, frees,
 * and the output host that shows a chart or widget live or, saved, as its static view). Wiring only; see sidebar/panel.ts and sidebar/commands.ts. Only
 * INotebookTracker is required, so the plugin runs wherever notebooks do (JupyterLab 4, Notebook 7, whose
 * INotebookShell has a left area too); the translator, the setting registry, the layout restorer and the command
 * palette are used when present (English words and the defaults of schema/sidebar.json otherwise).
 */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { addSidebarCommands, COMMAND_IDS } from './sidebar/commands';
import { addGpuSection, shutdownKernelHolder } from './sidebar/gpus/section';
import { sidebarIcon } from './sidebar/icon';
import { SidebarPanel } from './sidebar/panel';
import { freeRendererFactory } from './oom/freeOffer';
import { insertCell } from './sidebar/follower';
import { oomRendererFactory } from './oom/report';
import { reportWatch } from './sidebar/reportWatch';
import { KernelChannel } from './shared/kernelChannel';
import { askToApplyProfile } from './sidebar/profile/dialog';
import { askToRestart } from './sidebar/profile/restartDialog';
import { SidebarSettings } from './sidebar/settings';
import { catalogLanguage, DOMAIN } from './sidebar/text';
import { FREE_MIME, OOM_MIME, OUTPUT_MIME } from './protocol';
import { CellMemory } from './cellmemory/cellMemory';
import { CellMemorySettings } from './cellmemory/settings';
import { OUTPUT_HOST_RANK, outputHostFactory } from './output/host';
import { CullingNotices } from './culling/notices';

const PLUGIN_ID = 'mgenv-jupyter:sidebar';
const CELL_MEMORY_ID = 'mgenv-jupyter:cell-memory';
const CULLING_ID = 'mgenv-jupyter:gpu-culling';

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'The Framework Env sidebar: framework variables of the active notebook’s kernel and its live GPU memory.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ITranslator, ISettingRegistry, ILayoutRestorer, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker,
    translator: ITranslator | null,
    registry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null
  ) => {
    const translation = translator ?? nullTranslator;
    const trans = translation.load(DOMAIN);
    // The kernel's catalog and the status labels follow JupyterLab's language even without a language pack.
    const language = catalogLanguage(translation.languageCode);
    const settings = new SidebarSettings();
    registry
      ?.load(PLUGIN_ID)
      .then(loaded => settings.follow(loaded))
      .catch(reason => console.warn('mgenv_jupyter: the sidebar’s settings could not be loaded; defaults hold', reason));
    const panel = new SidebarPanel(notebooks, {
      trans,
      language,
      settings,
      ask: askToApplyProfile(trans),
      translator: translation
    });
    panel.title.icon = sidebarIcon;
    app.shell.add(panel, 'left', { rank: 650 });
    restorer?.add(panel, panel.id);
    // Every notebook's GPU memory on this server (the server extension's view), as the panel's third section.
    addGpuSection(app, panel, trans);
    addSidebarCommands({ commands: app.commands, shell: app.shell, panel, trans, askToRestart: askToRestart(trans, language), palette });
    const shutdownHolder = shutdownKernelHolder(app, trans);
    const watch = reportWatch(panel.model, notebook => panel.follower.panel === notebook);
    const addRenderer = (notebook: NotebookPanel): void => {
      const registry = notebook.content.rendermime;
      // Out-of-memory reports under failing cells: their buttons ask the kernel of the notebook whose registry renders
      // them, over a channel of its own (in the notebook or in a view of its output), whichever notebook the sidebar
      // follows; a remedy set there joins that notebook's profile.
      if (!registry.getFactory(OOM_MIME)) {
        const kernel = new KernelChannel(() => notebook.sessionContext.session?.kernel ?? null);
        notebook.disposed.connect(() => kernel.dispose());
        const oom = oomRendererFactory({
          trans,
          notebook,
          apply: async (_, choice) => {
            const answer = await kernel.applyRemedy(choice.reportId, choice.remedyId);
            panel.follower.keepRemedy(notebook, choice, answer, kernel);
            return answer;
          },
          restart: () => app.commands.execute(COMMAND_IDS.restart),
          free: (_, reportId) => kernel.free(reportId),
          startMemtrace: () => kernel.memtrace(true),
          insertCell,
          shutdownHolder,
          kernelRunning: async id => (await app.serviceManager.kernels.findById(id)) !== undefined,
          watch
        });
        registry.addFactory(oom, oom.defaultRank);
      }
      if (!registry.getFactory(FREE_MIME)) {
        registry.addFactory(freeRendererFactory, freeRendererFactory.defaultRank);
      }
      // Charts and widgets: live while their kernel has them, their static view otherwise (a saved notebook).
      if (!registry.getFactory(OUTPUT_MIME)) {
        registry.addFactory(outputHostFactory(registry), OUTPUT_HOST_RANK);
      }
    };
    notebooks.forEach(addRenderer);
    notebooks.widgetAdded.connect((_, notebook) => addRenderer(notebook));
  }
};

/** Each cell's memory, kept in the notebook and shown as a badge by its prompt (cellmemory/cellMemory.ts). */
const cellMemory: JupyterFrontEndPlugin<void> = {
  id: CELL_MEMORY_ID,
  description: 'Each cell’s peak and kept memory, written into its metadata and shown by its prompt.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ITranslator, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker,
    translator: ITranslator | null,
    registry: ISettingRegistry | null
  ) => {
    const settings = new CellMemorySettings();
    registry
      ?.load(CELL_MEMORY_ID)
      .then(loaded => settings.follow(loaded))
      .catch(reason => console.warn('mgenv_jupyter: the cells’ memory setting could not be loaded; on', reason));
    const translation = translator ?? nullTranslator;
    new CellMemory(notebooks, {
      trans: translation.load(DOMAIN),
      language: catalogLanguage(translation.languageCode),
      keep: () => settings.keep
    });
  }
};

/** GPU-aware culling's notices under the notebooks this front end has open (culling/notices.ts). */
const culling: JupyterFrontEndPlugin<void> = {
  id: CULLING_ID,
  description: 'Tells a notebook before and after the server shuts down its idle kernel that holds GPU memory.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ITranslator],
  activate: (app: JupyterFrontEnd, notebooks: INotebookTracker, translator: ITranslator | null) => {
    new CullingNotices(app.serviceManager.events, notebooks, (translator ?? nullTranslator).load(DOMAIN));
  }
};

export default [plugin, cellMemory, culling];
