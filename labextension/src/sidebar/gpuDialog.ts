/**
 * The question before a kernel of the "GPUs on this server" section is shut down or interrupted, with JupyterLab's own
 * dialog: it names the notebook and the memory its kernel holds. Its own module because @jupyterlab/apputils is not
 * loadable under jest (the section is tested there with its own `confirm`, the dialog in a real browser).
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { el } from './dom';
import { GpuActions } from './gpuView';
import { Translate } from './text';

export const askBeforeKernelAction =
  (t: Translate): GpuActions['confirm'] =>
  async (action, notebook, memory, devices) => {
    const shutdown = action === 'shutdown';
    const body = el('p', 'mgenv-gpu-question');
    body.textContent = t(shutdown ? 'gpusShutDownBody' : 'gpusInterruptBody', notebook, memory, devices);
    const result = await showDialog({
      title: t(shutdown ? 'gpusShutDownTitle' : 'gpusInterruptTitle', notebook),
      body: new Widget({ node: body }),
      buttons: [
        Dialog.cancelButton({ label: t('cancel') }),
        Dialog.warnButton({ label: t(shutdown ? 'gpusShutDown' : 'gpusInterrupt') })
      ],
      defaultButton: 0 // Enter cancels: the user clicked once, the second click is the decision
    });
    return result.button.accept;
  };
