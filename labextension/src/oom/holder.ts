/**
 * The out-of-memory report's offer to shut down the other kernel of this server that holds most of the GPU
 * (OomReportData.kernel_holder, decided by the kernel from the server extension's answer). The kernel's data only
 * names which kernel to ask about: a click asks the server again for that kernel, confirms with the notebook and the
 * memory the server reports now (gpus/dialog.ts), and shuts it down through the server's kernel API
 * (gpus/section.ts shutdownKernelHolder). Nothing happens without the user's yes. A report drawn again after the kernel
 * it names is gone (shut down from here or elsewhere, the notebook reopened) says so and offers nothing.
 */
import { formatBytes } from '../chart/format';
import { OomKernelHolder } from '../protocol';
import { el } from '../shared/dom';
import { idleMeaning, kernelState } from '../shared/kernelUse';
import { Translation } from '../shared/translation';

/** What a click came to: shut down, declined at the question, the kernel already gone, or the server failed. */
export interface HolderOutcome {
  state: 'done' | 'declined' | 'gone' | 'error';
  message: string;
}

export type ShutdownHolder = (holder: OomKernelHolder) => Promise<HolderOutcome>;

/** Whether the server still runs the kernel of this id. */
export type KernelRunning = (kernelId: string) => Promise<boolean>;

export function kernelHolderItem(
  holder: OomKernelHolder,
  trans: Translation,
  shutdown: ShutdownHolder,
  running?: KernelRunning
): HTMLElement {
  const item = el('li', 'mgenv-oom-remedy mgenv-oom-holder');
  const head = el('div', 'mgenv-oom-remedy-head');
  const button = el('button', 'jp-Button mgenv-oom-apply mgenv-oom-holder-shutdown') as HTMLButtonElement;
  button.type = 'button';
  button.textContent = trans.__('Shut down…');
  button.title = trans.__('Asks first, then shuts the kernel down through the server’s kernel API');
  const text = el('span', 'mgenv-oom-holder-text');
  const notebook = holder.notebooks.join(', ') || holder.kernel_id.slice(0, 8);
  text.textContent =
    trans.__('Shut down the kernel of %1 on this server: it holds %2 of this GPU', notebook, formatBytes(holder.bytes)) +
    (holder.idle_seconds === null && !holder.running_cell ? '' : ` (${kernelState(holder, trans)})`);
  text.title = idleMeaning(trans);
  head.append(button, text);
  const outcome = el('div', 'mgenv-oom-outcome');
  outcome.setAttribute('role', 'status');
  item.append(head, outcome);
  button.addEventListener('click', async () => {
    button.disabled = true;
    outcome.dataset.state = 'busy';
    let result: HolderOutcome;
    try {
      result = await shutdown(holder);
    } catch (reason) {
      const why = reason instanceof Error ? reason.message : String(reason);
      result = { state: 'error', message: trans.__('The server could not be asked: %1', why) };
    }
    outcome.dataset.state = result.state;
    outcome.textContent = result.message;
    button.disabled = result.state === 'done' || result.state === 'gone';
  });
  running?.(holder.kernel_id).then(
    alive => {
      if (!alive && !outcome.dataset.state) {
        button.hidden = true; // what was done is not offered again
        outcome.dataset.state = 'gone';
        outcome.textContent = trans.__('That kernel is no longer running on this server.');
      }
    },
    () => undefined // the server could not be asked: the offer stays, and a click asks again
  );
  return item;
}
