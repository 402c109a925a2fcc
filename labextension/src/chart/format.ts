/**
 * Sizes as the chart writes them: binary units written as such (KiB, MiB, GiB, TiB — 1024-based, as the frameworks
 * count), with two decimals below 10, one below 100 and none above (3.13, 37.3, 512), trailing zeros dropped. The
 * units and the decimals are the kernel's own tables (SIZE_UNITS, SIZE_DECIMALS in mgenv_jupyter/catalog/_values.py,
 * generated into the schema), which its format_size writes labels with, so "DTR eviction threshold (8 GiB)" and the
 * axis agree.
 */
import { SIZE_DECIMALS, SIZE_UNITS } from '../schema';

const KiB = 1024;
/** Largest first, bytes left out: the units a value larger than one of them is written in. */
const UNITS: [number, string][] = SIZE_UNITS.filter(([, bytes]) => bytes > 1)
  .map(([name, bytes]): [number, string] => [bytes, name])
  .reverse();

/** 3361447936 → "3.13 GiB", 8 GiB → "8 GiB", 1536 KiB → "1.5 MiB"; "–" for a missing value. */
export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !isFinite(value)) {
    return '–';
  }
  const [unit, name] = unitFor(Math.abs(value));
  if (unit === 1) {
    return `${Math.round(value)} B`;
  }
  const v = Math.abs(value) / unit;
  const shown = trimZeros(v.toFixed(SIZE_DECIMALS.find(([below]) => v < below)?.[1] ?? 0));
  return `${value < 0 ? '-' : ''}${shown} ${name}`;
}

/**
 * Tick steps for a byte axis: 1, 2, 5, 10, 20, 50, 100, 200 of each unit, then a quarter and a half of the next one
 * (256 MiB, 512 MiB), so that steps stay round in the unit the labels are written in.
 */
export const BYTE_INCRS: number[] = [1, KiB, KiB ** 2, KiB ** 3, KiB ** 4].flatMap(unit =>
  [1, 2, 5, 10, 20, 50, 100, 200, 256, 512].map(m => m * unit)
);

/**
 * The labels of a byte axis: one unit for the whole axis (the largest that the largest tick reaches), with as many
 * decimals as the step needs, so 0 / 0.25 / 0.5 GiB line up and never mix MiB with GiB.
 */
export function formatByteTicks(ticks: number[], step: number): string[] {
  const largest = Math.max(0, ...ticks.map(Math.abs));
  const [unit, name] = unitFor(largest);
  const decimals = decimalsFor(step / unit);
  return ticks.map(v => (v === 0 ? '0' : `${(v / unit).toFixed(decimals)} ${unit === 1 ? 'B' : name}`));
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

function unitFor(magnitude: number): [number, string] {
  // 1023.999 MiB rounds to "1024 MiB" rather than "1 GiB": the unit follows the value, not its rounding.
  return UNITS.find(([unit]) => magnitude >= unit) ?? [1, 'B'];
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** The fewest decimals (at most 3) that write `x` exactly. */
export function decimalsFor(x: number): number {
  for (let d = 0; d < 3; d++) {
    const scaled = x * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) {
      return d;
    }
  }
  return 3;
}
