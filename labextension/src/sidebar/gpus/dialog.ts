/**
 * The question before a kernel of the "GPUs on this server" section is shut down or interrupted, with JupyterLab's own
 * dialog: it names the notebook and the memory its kernel holds. Its own module because @jupyterlab/apputils is not
 * loadable under jest (the section is tested there with its own `confirm`, the dialog in a real browser).
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { el } from '../../shared/dom';
import { GpuActions } from './view';
import { Translation } from '../text';

export const askBeforeKernelAction =
  (trans: Translation): GpuActions['confirm'] =>
  async (action, notebook, memory, devices) => {
    const shutdown = action === 'shutdown';
    const body = el('p', 'mgenv-gpu-question');
    body.textContent = shutdown
      ? trans.__(
          'The kernel of %1 holds %2 on %3. Shutting it down frees that memory, and everything its cells defined is lost.',
          notebook,
          memory,
          devices
        )
      : trans.__(
          'The kernel of %1 holds %2 on %3. Interrupting stops the cell it is running; its variables and its memory stay.',
          notebook,
          memory,
          devices
        );
    const result = await showDialog({
      title: shutdown
        ? trans.__('Shut down the kernel of %1?', notebook)
        : trans.__('Interrupt the kernel of %1?', notebook),
      body: new Widget({ node: body }),
      buttons: [
        Dialog.cancelButton({ label: trans.__('Cancel') }),
        Dialog.warnButton({ label: shutdown ? trans.__('Shut down') : trans.__('Interrupt') })
      ],
      defaultButton: 0 // Enter cancels: the user clicked once, the second click is the decision
    });
    return result.button.accept;
  };
