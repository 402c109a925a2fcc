// A use of an API that JupyterLab 4.0 lacks: `supportsSubshells` came with @jupyterlab/services 7.4 (JupyterLab 4.4).
// test_frontend_oldest_types.py expects the check against the oldest declared packages to refuse this file, and the
// check against the lock's packages to accept it.
import { Kernel } from '@jupyterlab/services';

export function kernelSupportsSubshells(kernel: Kernel.IKernelConnection): boolean {
  return kernel.supportsSubshells;
}
