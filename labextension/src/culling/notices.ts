/**
 * GPU-aware culling's notices: the server's culler (mgenv_jupyter/server/_culler.py) tells every front end, on the
 * server's event bus, before and after it shuts down an idle kernel that holds GPU memory. A front end that has one of
 * that kernel's notebooks open shows it: a warning with the time of the shutdown and a button that keeps the kernel
 * (it runs an empty cell, which is all "keeping" takes: idleness counts from a user's last cell), and, once it is shut
 * down, why, how long it had been idle and what it held. The event is data from the server: every field is checked
 * before it is shown, and nothing in it is run.
 */
import { Notification } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Event } from '@jupyterlab/services';
import { TranslationBundle } from '@jupyterlab/translation';

import { formatBytes } from '../chart/format';
import { CULLING_EVENTS, CullAction, CullEvent } from '../protocol';
import { formatDuration } from '../shared/kernelUse';

const ACTIONS: readonly CullAction[] = ['notice', 'kept', 'culled', 'failed'];
const MAX_NOTEBOOKS = 64;
const MAX_TEXT = 4096;

/** A culling event from the bus, or null where it is not one as the schema defines it. */
export function readCullEvent(emission: Event.Emission): CullEvent | null {
  if (emission.schema_id !== CULLING_EVENTS) {
    return null;
  }
  const { action, kernel_id, notebooks, held_bytes, idle_seconds, cull_at, idle_after } = emission;
  const text = (value: unknown): value is string => typeof value === 'string' && value.length <= MAX_TEXT;
  const number = (value: unknown): value is number => typeof value === 'number' && isFinite(value) && value >= 0;
  if (
    !ACTIONS.includes(action as CullAction) ||
    !text(kernel_id) ||
    !Array.isArray(notebooks) ||
    notebooks.length > MAX_NOTEBOOKS ||
    !notebooks.every(text) ||
    !number(held_bytes) ||
    !number(idle_seconds) ||
    !text(cull_at) ||
    isNaN(Date.parse(cull_at)) ||
    !number(idle_after)
  ) {
    return null;
  }
  return {
    action: action as CullAction,
    kernel_id,
    notebooks: notebooks as string[],
    held_bytes,
    idle_seconds,
    cull_at,
    idle_after
  };
}

/**
 * The words of one event, for the notebook at `path`: within the 140 characters a JupyterLab toast shows (it cuts the
 * rest), so the notebook goes by its file name and the policy by its idle limit alone.
 */
export function cullMessage(event: CullEvent, path: string, trans: TranslationBundle): string {
  const name = path.split('/').pop() ?? path;
  const held = formatBytes(event.held_bytes);
  const idle = formatDuration(event.idle_seconds, trans);
  const at = new Date(Date.parse(event.cull_at)).toLocaleTimeString();
  switch (event.action) {
    case 'notice':
      return trans.__(
        '%1: its kernel holds %2 of GPU memory, idle %3. The server shuts it down at %4 unless a cell runs.',
        name,
        held,
        idle,
        at
      );
    case 'kept':
      return trans.__('%1: its kernel is kept (a cell ran).', name);
    case 'culled':
      return trans.__(
        '%1: the server shut its idle kernel down at %2 (idle %3, held %4 of GPU memory; limit %5).',
        name,
        at,
        idle,
        held,
        formatDuration(event.idle_after, trans)
      );
    case 'failed':
      return trans.__('%1: the server could not shut its idle kernel down; it still runs.', name);
  }
}

/** Shows the events of the kernels whose notebooks this front end has open. */
export class CullingNotices {
  constructor(
    events: Event.IManager,
    private readonly _notebooks: INotebookTracker,
    private readonly _trans: TranslationBundle
  ) {
    events.stream.connect((_, emission) => this._heard(emission));
  }

  private _heard(emission: Event.Emission): void {
    const event = readCullEvent(emission);
    if (!event) {
      return;
    }
    const open = this._notebooks.filter(panel => event.notebooks.includes(panel.context.path));
    if (open.length === 0) {
      return;
    }
    const panel = open[0];
    const message = cullMessage(event, panel.context.path, this._trans);
    const earlier = this._shown.get(event.kernel_id);
    if (earlier !== undefined) {
      Notification.dismiss(earlier);
      this._shown.delete(event.kernel_id);
    }
    switch (event.action) {
      case 'notice':
        this._shown.set(
          event.kernel_id,
          Notification.warning(message, {
            autoClose: false,
            actions: [
              {
                label: this._trans.__('Keep the kernel'),
                caption: this._trans.__('Runs an empty cell in the kernel: its idle time starts again'),
                callback: () => keep(panel)
              }
            ]
          })
        );
        break;
      case 'kept':
        Notification.info(message, { autoClose: 5000 });
        break;
      case 'culled':
      case 'failed':
        Notification.warning(message, { autoClose: false });
        break;
    }
  }

  private _shown = new Map<string, string>();
}

/** A user's cell with nothing in it: the server counts the kernel's idleness from its end. */
function keep(panel: NotebookPanel): void {
  void panel.sessionContext.session?.kernel?.requestExecute({ code: '', silent: false, store_history: false }).done;
}
