/**
 * A kernel's use in words, wherever a kernel of this server is named: a row of the server's GPU view
 * (sidebar/gpus/) and the kernel an out-of-memory report offers to shut down (oom/holder.ts). The server decides the
 * figures (schema's GpuKernelInfo); this only words them.
 */
import { GpuKernelInfo } from '../protocol';
import { Translation } from './translation';

/** "12 s", "5 min", "3 h", "2 d" (whole units, rounded down). */
export function formatDuration(seconds: number, trans: Translation): string {
  if (seconds < 60) {
    return trans.__('%1 s', Math.floor(seconds));
  }
  if (seconds < 3600) {
    return trans.__('%1 min', Math.floor(seconds / 60));
  }
  if (seconds < 86400) {
    return trans.__('%1 h', Math.floor(seconds / 3600));
  }
  return trans.__('%1 d', Math.floor(seconds / 86400));
}

/**
 * The kernel's use in words: running a cell (for how long), idle since its last cell (or with none run since it
 * started, or since the server watches it), starting, or the server's own word. Idle counts from a user's last cell,
 * never from the last message: a chart's or this panel's messages keep a kernel "busy" for the server, not here.
 */
export function kernelState(kernel: UseOfKernel, trans: Translation): string {
  if (kernel.execution_state === 'starting') {
    return trans.__('starting');
  }
  if (kernel.running_cell) {
    return kernel.running_seconds === null || kernel.running_seconds === undefined
      ? trans.__('running a cell')
      : trans.__('running a cell (%1)', formatDuration(kernel.running_seconds, trans));
  }
  if (kernel.idle_seconds !== null) {
    const idle = formatDuration(kernel.idle_seconds, trans);
    switch (kernel.idle_since) {
      case 'cell':
        return trans.__('idle %1 since its last cell', idle);
      case 'start':
        return trans.__('idle %1, no cell run yet', idle);
      default:
        return trans.__('idle %1, no cell seen', idle);
    }
  }
  if (kernel.execution_state === 'busy') {
    return trans.__('busy');
  }
  return kernel.execution_state ?? '';
}

/** What idle means here, for a tooltip beside the words of `kernelState`. */
export function idleMeaning(trans: Translation): string {
  return trans.__(
    'Idle time counts from the end of the last cell a user ran in the kernel (an execute request); messages of ' +
      'charts, widgets and this panel do not count.'
  );
}

/** The fields `kernelState` reads: a kernel of the GPU view, or the kernel an out-of-memory report names. */
export interface UseOfKernel {
  execution_state?: string;
  running_cell: boolean;
  running_seconds?: number | null;
  idle_seconds: number | null;
  idle_since: GpuKernelInfo['idle_since'];
}

