/**
 * What the "GPUs on this server" section shows, computed from the server's view without the DOM: per device the rows
 * (each kernel's notebook, each other process, the memory no process accounts for) largest first, and the stacked
 * bar's segments in the same order with the free memory last; the kernels holding nothing; and the words the
 * confirmation names (the notebook, the memory it holds, on which GPU). The server decides every figure; this only
 * orders and labels them.
 */
import { formatBytes } from '../../chart/format';
import { GpuDeviceView, GpuKernelInfo, GpuKernelShare, GpuServerView } from '../../protocol';
import { Translation } from '../text';

/** Kernel colours cycle through this many CSS classes (mgenv-gpu-c0 …). */
export const COLOURS = 6;

export interface KernelRow {
  kind: 'kernel';
  key: string;
  kernel: GpuKernelInfo;
  title: string;
  used: number | null;
  /** Where the figure comes from: NVML (exact), the kernel's own report, or unknown. */
  figure: GpuKernelShare['figure'];
  colour: number;
}

export interface OtherRow {
  kind: 'other';
  key: string;
  pid: number;
  user: string | null;
  name: string | null;
  used: number | null;
}

export interface UnlistedRow {
  kind: 'unlisted';
  key: string;
  used: number;
}

export type GpuRow = KernelRow | OtherRow | UnlistedRow;

export interface Segment {
  key: string;
  kind: 'kernel' | 'other' | 'unlisted' | 'free';
  /** Share of the device's total, 0 to 1. */
  fraction: number;
  colour: number;
  title: string;
}

export interface DeviceLayout {
  index: number;
  label: string;
  name: string;
  total: number;
  used: number;
  free: number;
  rows: GpuRow[];
  segments: Segment[];
  problem: string | null;
}

/** How a kernel is named: its notebooks, or its kernel name and short id when it has none. */
export function kernelTitle(kernel: GpuKernelInfo, trans: Translation): string {
  return kernel.notebooks.length
    ? kernel.notebooks.join(', ')
    : trans.__('kernel %1 (no notebook)', `${kernel.name} ${kernel.id.slice(0, 8)}`);
}

/** When GPU-aware culling will shut the kernel down unless a cell runs (server/_culler.py), or nothing. */
export function cullNote(kernel: GpuKernelInfo, trans: Translation): string {
  if (!kernel.cull_at) {
    return '';
  }
  const at = Date.parse(kernel.cull_at);
  return isNaN(at) ? '' : ' · ' + trans.__('shut down at %1 unless a cell runs', new Date(at).toLocaleTimeString());
}

export function size(bytes: number | null, trans: Translation): string {
  return bytes === null ? trans.__('unknown') : formatBytes(bytes);
}

export function deviceLayout(view: GpuServerView, device: GpuDeviceView, trans: Translation): DeviceLayout {
  const kernels = new Map(view.kernels.map((kernel, order) => [kernel.id, { kernel, colour: order % COLOURS }]));
  const rows: GpuRow[] = [];
  for (const share of device.shares) {
    const known = kernels.get(share.kernel_id);
    if (known) {
      rows.push({
        kind: 'kernel',
        key: `k:${share.kernel_id}`,
        kernel: known.kernel,
        title: kernelTitle(known.kernel, trans),
        used: share.used,
        figure: share.figure,
        colour: known.colour
      });
    }
  }
  for (const other of device.others) {
    rows.push({ kind: 'other', key: `o:${other.pid}`, pid: other.pid, user: other.user, name: other.name, used: other.used });
  }
  // Largest first, kernels and other processes together; unknown figures after every known one.
  rows.sort((a, b) => (b.used ?? -1) - (a.used ?? -1));
  if (device.unlisted > 0) {
    rows.push({ kind: 'unlisted', key: 'unlisted', used: device.unlisted });
  }
  const total = Math.max(device.total, 1);
  const segments: Segment[] = [];
  // The bar is the device: figures that add up to more than its total (NVML counting memory twice, a simulation whose
  // kernels all climb) fill it and stop there, each row keeping its own figure; nothing is drawn past its end.
  let left = device.total;
  for (const row of rows) {
    // In a foreign pid namespace the other processes listed are the kernels' own, unattributed: a kernel's own report
    // drawn beside them would count its memory twice. Its row says it; the bar keeps to NVML's figures.
    if (row.used === null || row.used <= 0 || (row.kind === 'kernel' && row.figure === 'kernel_report')) {
      continue;
    }
    const title =
      row.kind === 'kernel'
        ? row.title
        : row.kind === 'other'
          ? `${trans.__('other process')} ${row.pid}`
          : trans.__('not listed (driver, other containers)');
    const drawn = Math.min(row.used, Math.max(left, 0));
    left -= drawn;
    segments.push({
      key: row.key,
      kind: row.kind,
      fraction: drawn / total,
      colour: row.kind === 'kernel' ? row.colour : 0,
      title: `${title}: ${formatBytes(row.used)}`
    });
  }
  const free = Math.max(0, device.total - device.used);
  segments.push({ key: 'free', kind: 'free', fraction: free / total, colour: 0, title: trans.__('%1 free', formatBytes(free)) });
  return {
    index: device.index,
    label: device.label,
    name: device.name,
    total: device.total,
    used: device.used,
    free,
    rows,
    segments,
    problem: device.problem
  };
}

/** The kernels that hold nothing on any device (they are listed apart, so that every kernel is seen). */
export function idleKernels(view: GpuServerView): GpuKernelInfo[] {
  const holding = new Set(view.devices.flatMap(device => device.shares.map(share => share.kernel_id)));
  return view.kernels.filter(kernel => !holding.has(kernel.id));
}

/** What a kernel holds, as the confirmation says it: its size in all, and on which GPUs. */
export function heldBy(view: GpuServerView, kernelId: string, trans: Translation): { memory: string; devices: string } {
  let bytes = 0;
  let unknown = false;
  const devices: string[] = [];
  for (const device of view.devices) {
    for (const share of device.shares) {
      if (share.kernel_id === kernelId) {
        devices.push(device.label);
        if (share.used === null) {
          unknown = true;
        } else {
          bytes += share.used;
        }
      }
    }
  }
  return { memory: unknown ? trans.__('unknown') : formatBytes(bytes), devices: devices.join(', ') || '—' };
}
