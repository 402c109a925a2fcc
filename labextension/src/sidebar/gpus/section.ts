/**
 * Wires the "GPUs on this server" section into the Framework Env panel: the server's view through ServerConnection
 * (the page's token and XSRF cookie, as every JupyterLab request), notebooks opened by the document manager, and
 * kernels shut down or interrupted through the server's own kernel API (the kernel manager, so JupyterLab's own views
 * hear of it), after the question of gpus/dialog.ts.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { KernelAPI, ServerConnection } from '@jupyterlab/services';
import { SidePanel } from '@jupyterlab/ui-components';
import { AccordionPanel } from '@lumino/widgets';

import { GPUS_PATH, GpuServerView } from '../../protocol';
import { askBeforeKernelAction } from './dialog';
import { heldBy, kernelTitle } from './layout';
import { GpuView } from './view';
import { ShutdownHolder } from '../../oom/holder';
import { ServerGpus } from './server';
import { Translation } from '../text';

export function addGpuSection(app: JupyterFrontEnd, panel: SidePanel, trans: Translation): GpuView {
  const settings = app.serviceManager.serverSettings;
  const model = new ServerGpus(() => ServerConnection.makeRequest(settings.baseUrl + GPUS_PATH, {}, settings));
  const view = new GpuView(model, trans, {
    open: path => void app.commands.execute('docmanager:open', { path }),
    confirm: askBeforeKernelAction(trans),
    shutdown: id => app.serviceManager.kernels.shutdown(id),
    interrupt: id => KernelAPI.interruptKernel(id, settings)
  });
  view.title.label = trans.__('GPUs on this server');
  panel.addWidget(view);
  // Folded at first: the variables and the chart keep their heights, and nothing is asked of the server until the
  // user opens the section (its title stays in view under the other two).
  (panel.content as AccordionPanel).collapse(panel.widgets.length - 1);
  return view;
}

/**
 * The out-of-memory report's Shut down: the kernel the report names is looked up in the server's view again, the
 * question names the notebook and the memory the server reports now, and only a yes shuts it down.
 */
export function shutdownKernelHolder(app: JupyterFrontEnd, trans: Translation): ShutdownHolder {
  const settings = app.serviceManager.serverSettings;
  const confirm = askBeforeKernelAction(trans);
  return async holder => {
    const response = await ServerConnection.makeRequest(settings.baseUrl + GPUS_PATH, {}, settings);
    if (!response.ok) {
      return { state: 'error', message: trans.__('The server could not be asked: %1', `HTTP ${response.status}`) };
    }
    const view = (await response.json()) as GpuServerView;
    const kernel = view.kernels.find(k => k.id === holder.kernel_id);
    if (!kernel) {
      return { state: 'gone', message: trans.__('That kernel is no longer running on this server.') };
    }
    const notebook = kernelTitle(kernel, trans);
    const { memory, devices } = heldBy(view, kernel.id, trans);
    if (!(await confirm('shutdown', notebook, memory, devices))) {
      return { state: 'declined', message: '' };
    }
    await app.serviceManager.kernels.shutdown(kernel.id);
    return { state: 'done', message: trans.__('The kernel of %1 is shut down: its memory is free. Run the cell again.', notebook) };
  };
}
