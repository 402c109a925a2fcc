/**
 * The line under a cell's code: the cell's peak and what it kept on its headline device, the change of the peak
 * against the run before, and a leak when the kernel found one; every device's figures in its tooltip. Drawn from the
 * cell's metadata alone (record.ts), so it shows in a notebook reopened without a kernel. textContent only.
 */
import { formatBytes } from '../chart/format';
import type { CellMemoryRecord } from '../protocol';
import type { Translation } from '../shared/translation';
import { headline } from './record';

function signed(bytes: number): string {
  return (bytes > 0 ? '+' : bytes < 0 ? '−' : '±') + formatBytes(Math.abs(bytes));
}

/**
 * What the badge says, part by part, its tooltip (one line a device, the change, the leak) and which part is the
 * change against the last run (-1: none).
 */
export function badgeText(
  record: CellMemoryRecord,
  trans: Translation
): { lines: string[]; title: string; change: number } {
  const main = headline(record);
  const lines: string[] = [];
  const title: string[] = [];
  if (!main) {
    return { lines, title: '', change: -1 };
  }
  if (main.peak !== null) {
    lines.push(trans.__('peak %1', formatBytes(main.peak)));
  }
  if (main.kept !== null) {
    lines.push(trans.__('kept %1', signed(main.kept)));
  }
  const before = record.previous?.devices.find(d => d.device === main.device);
  const change = before && before.peak !== null && main.peak !== null ? main.peak - before.peak : null;
  const changeLine = change !== null ? lines.push(trans.__('%1 vs last', signed(change))) - 1 : -1;
  for (const device of record.devices) {
    title.push(
      trans.__(
        '%1: peak %2, kept %3 (before %4, after %5)',
        device.device,
        device.peak === null ? '?' : formatBytes(device.peak),
        device.kept === null ? '?' : signed(device.kept),
        device.before === null ? '?' : formatBytes(device.before),
        device.after === null ? '?' : formatBytes(device.after)
      )
    );
  }
  if (change !== null) {
    title.push(trans.__('peak %1 since the last run', signed(change)));
  }
  if (record.leak) {
    const grew = record.leak.grew.map(g => `${g.name} ${signed(g.bytes)}`).join(', ');
    lines.push(record.leak.grew.length ? trans.__('leak: %1', record.leak.grew[0].name) : trans.__('leak'));
    title.push(
      grew
        ? trans.__('Leak: each of the last %1 runs kept more on %2; grew: %3', record.leak.runs, record.leak.device, grew)
        : trans.__('Leak: each of the last %1 runs kept more on %2', record.leak.runs, record.leak.device)
    );
  }
  if (record.simulated) {
    title.push(trans.__('GPU figures from the simulated device'));
  }
  return { lines, title: title.join('\n'), change: changeLine };
}

/** The badge's element for `record` (null: nothing to show). */
export function badgeNode(record: CellMemoryRecord | null, trans: Translation): HTMLElement | null {
  if (!record) {
    return null;
  }
  const { lines, title, change } = badgeText(record, trans);
  if (lines.length === 0) {
    return null;
  }
  const node = document.createElement('div');
  node.className = 'mgenv-cell-memory' + (record.leak ? ' mgenv-cell-memory-leak' : '');
  node.title = title;
  node.setAttribute('aria-label', title);
  node.setAttribute('role', 'note');
  lines.forEach((line, index) => {
    const row = document.createElement('div');
    row.textContent = line;
    if (index === change) {
      row.className = 'mgenv-cell-memory-change';
    }
    node.append(row);
  });
  return node;
}
