/**
 * The sidebar's commands, where JupyterLab and Notebook 7 users look for them: "Framework Env" (View menu, through
 * schema/sidebar.json's menu entry, and the command palette) opens the panel; "Restart and apply" and "Refresh" are
 * the panel's toolbar buttons and palette entries. The button's count is how many variables (of the notebook profile,
 * and of what this session set that a restart carries over) only a restart brings into effect, and it follows the
 * kernel's state (profile/restartReview.ts); before restarting, the user is asked (profile/restartDialog.ts) and, if they agree, the
 * values they keep join the profile, the notebook holding it is saved, and the new kernel gets every carried value.
 */
import type { ICommandPalette } from '@jupyterlab/apputils';
import { CommandToolbarButton, fastForwardIcon, refreshIcon } from '@jupyterlab/ui-components';
import type { CommandRegistry } from '@lumino/commands';

import { sidebarIcon } from './icon';
import { ModelChange, EnvModel } from './model';
import { SidebarPanel } from './panel';
import { carriedValues, RestartQuestion, restartCount, restartItems } from './profile/restartReview';
import { Translation } from './text';

export const COMMAND_IDS = {
  open: 'mgenv-jupyter:open-sidebar',
  restart: 'mgenv-jupyter:restart-and-apply',
  refresh: 'mgenv-jupyter:refresh'
} as const;

/** Where the panel lives: JupyterLab's shell and Notebook 7's INotebookShell both activate by id. */
export interface Shell {
  activateById(id: string): void;
}

export interface SidebarCommandOptions {
  commands: CommandRegistry;
  shell: Shell;
  panel: SidebarPanel;
  trans: Translation;
  askToRestart: RestartQuestion;
  palette?: ICommandPalette | null;
}

export function addSidebarCommands({ commands, shell, panel, trans, askToRestart, palette }: SidebarCommandOptions): void {
  const { model, follower } = panel;
  commands.addCommand(COMMAND_IDS.open, {
    label: args => (args['isPalette'] ? trans.__('Show Framework Env') : trans.__('Framework Env')),
    caption: trans.__('Show the Framework Env sidebar: the framework variables of the notebook’s kernel and its live GPU memory'),
    icon: args => (args['isPalette'] ? undefined : sidebarIcon),
    execute: () => shell.activateById(panel.id)
  });
  commands.addCommand(COMMAND_IDS.restart, {
    label: () => {
      const count = restartCount(restartItems(model));
      return count ? trans.__('Restart and apply (%1)', count) : trans.__('Restart and apply');
    },
    caption: trans.__('Restart the kernel with this notebook’s profile and the values this session set that frameworks read at start, applied before any cell runs'),
    icon: args => (args['toolbar'] ? fastForwardIcon : undefined),
    isEnabled: () => follower.panel !== null && restartable(model),
    execute: async () => {
      const notebook = follower.panel;
      if (!notebook || notebook.isDisposed) {
        return;
      }
      const items = restartItems(model);
      const answer = await askToRestart({
        notebook: notebook.context.localPath,
        items,
        saved: !notebook.context.model.dirty
      });
      if (!answer.restart || notebook !== follower.panel) {
        return;
      }
      const carried = carriedValues(items);
      // Kept values join the profile before the notebook is saved, so the saved file has them.
      await follower.keep(Object.fromEntries(answer.keep.filter(name => name in carried).map(name => [name, carried[name]])));
      if (answer.save) {
        await notebook.context.save();
      }
      await follower.restartAndApply(carried);
    }
  });
  commands.addCommand(COMMAND_IDS.refresh, {
    label: trans.__('Refresh'),
    caption: trans.__('Ask the kernel again for every variable’s value and status'),
    icon: args => (args['toolbar'] ? refreshIcon : undefined),
    isEnabled: () => model.connection.state === 'ready',
    execute: () => follower.refresh()
  });
  model.changed.connect((_: EnvModel, change: ModelChange) => {
    if (change.kind !== 'filter' && change.kind !== 'history' && change.kind !== 'error') {
      commands.notifyCommandChanged(COMMAND_IDS.restart);
      commands.notifyCommandChanged(COMMAND_IDS.refresh);
    }
  }, panel);

  for (const [name, id] of [
    ['restart-and-apply', COMMAND_IDS.restart],
    ['refresh', COMMAND_IDS.refresh]
  ] as const) {
    panel.toolbar.addItem(name, new CommandToolbarButton({ commands, id, args: { toolbar: true } }));
  }
  const category = trans.__('Framework Env');
  palette?.addItem({ command: COMMAND_IDS.open, category, args: { isPalette: true } });
  palette?.addItem({ command: COMMAND_IDS.restart, category });
  palette?.addItem({ command: COMMAND_IDS.refresh, category });
}

/** A kernel to restart: a notebook with a kernel that is not restarting already. */
function restartable(model: EnvModel): boolean {
  const state = model.connection.state;
  return state !== 'no-notebook' && state !== 'no-kernel' && state !== 'restarting';
}
