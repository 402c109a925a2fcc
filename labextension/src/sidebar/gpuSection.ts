/**
 * Wires the "GPUs on this server" section into the Framework Env panel: the server's view through ServerConnection
 * (the page's token and XSRF cookie, as every JupyterLab request), notebooks opened by the document manager, and
 * kernels shut down or interrupted through the server's own kernel API (the kernel manager, so JupyterLab's own views
 * hear of it), after the question of gpuDialog.ts.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { KernelAPI, ServerConnection } from '@jupyterlab/services';
import { SidePanel } from '@jupyterlab/ui-components';

import { GPUS_PATH } from '../protocol';
import { askBeforeKernelAction } from './gpuDialog';
import { GpuView } from './gpuView';
import { ServerGpus } from './serverGpus';
import { Translate } from './text';

export function addGpuSection(app: JupyterFrontEnd, panel: SidePanel, t: Translate): GpuView {
  const settings = app.serviceManager.serverSettings;
  const model = new ServerGpus(() => ServerConnection.makeRequest(settings.baseUrl + GPUS_PATH, {}, settings));
  const view = new GpuView(model, t, {
    open: path => void app.commands.execute('docmanager:open', { path }),
    confirm: askBeforeKernelAction(t),
    shutdown: id => app.serviceManager.kernels.shutdown(id),
    interrupt: id => KernelAPI.interruptKernel(id, settings)
  });
  view.title.label = t('gpusTitle');
  panel.addWidget(view);
  return view;
}
