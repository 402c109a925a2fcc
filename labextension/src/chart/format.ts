/** Human sizes for axes and legends (1024-based, as the frameworks count). */
export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !isFinite(value)) {
    return '–';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(value);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const shown = v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(v >= 10 ? 1 : 2);
  return `${value < 0 ? '-' : ''}${shown} ${units[i]}`;
}

/** CSV of the chart's columns: a time column (ISO) then one column per series. */
export function toCSV(labels: string[], t: number[], columns: (number | null)[][]): string {
  const escape = (s: string): string => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [['time', ...labels].map(escape).join(',')];
  for (let i = 0; i < t.length; i++) {
    const row = [new Date(t[i] * 1000).toISOString()];
    for (const column of columns) {
      const v = column[i];
      row.push(v === null || v === undefined ? '' : String(v));
    }
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}
