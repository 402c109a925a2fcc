import { BYTE_INCRS, decimalsFor, formatBytes, formatByteTicks, toCSV } from '../src/chart/format';
import { elapsedSplits, formatClock, formatElapsed, TIME_INCRS, timeTicks } from '../src/chart/timeAxis';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

describe('sizes', () => {
  it('writes binary units as such, with at most two decimals, as the kernel labels its lines', () => {
    // The same values as mgenv_jupyter/catalog/values.format_size (tests/catalog/test_values.py).
    expect(formatBytes(5 * GiB)).toBe('5 GiB');
    expect(formatBytes(3361447936)).toBe('3.13 GiB');
    expect(formatBytes(40 * GiB)).toBe('40 GiB');
    expect(formatBytes(37.25 * GiB)).toBe('37.3 GiB');
    expect(formatBytes(1000 * MiB)).toBe('1000 MiB');
    expect(formatBytes(1536 * 1024)).toBe('1.5 MiB');
    expect(formatBytes(3.5 * 1024 ** 4)).toBe('3.5 TiB');
    expect(formatBytes(-2 * GiB)).toBe('-2 GiB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(null)).toBe('–');
    expect(formatBytes(NaN)).toBe('–');
  });

  it('labels a byte axis in one unit with the decimals its step needs', () => {
    expect(formatByteTicks([0, 10 * GiB, 20 * GiB, 30 * GiB, 40 * GiB], 10 * GiB)).toEqual([
      '0', '10 GiB', '20 GiB', '30 GiB', '40 GiB'
    ]);
    expect(formatByteTicks([0, 256 * MiB, 512 * MiB, 768 * MiB, GiB], 256 * MiB)).toEqual([
      '0', '0.25 GiB', '0.50 GiB', '0.75 GiB', '1.00 GiB'
    ]);
    expect(formatByteTicks([0, 200 * MiB, 400 * MiB], 200 * MiB)).toEqual(['0', '200 MiB', '400 MiB']);
    expect(formatByteTicks([0, 512, 1024], 512)).toEqual(['0', '0.5 KiB', '1.0 KiB']);
  });

  it('steps a byte axis by round amounts of binary units, never 9.31 GiB', () => {
    expect(BYTE_INCRS).toContain(10 * GiB);
    expect(BYTE_INCRS).toContain(512 * MiB);
    expect(BYTE_INCRS).not.toContain(10 ** 10);
    expect([...BYTE_INCRS].sort((a, b) => a - b)).toEqual(BYTE_INCRS);
    expect(decimalsFor(0.25)).toBe(2);
    expect(decimalsFor(10)).toBe(0);
  });

  it('exports CSV with ISO times and empty cells for gaps', () => {
    const csv = toCSV(['a,b', 'c'], [0, 1], [[1, null], [2, 3]]);
    expect(csv).toBe('time,"a,b",c\n1970-01-01T00:00:00.000Z,1,2\n1970-01-01T00:00:01.000Z,,3\n');
  });
});

describe('time since the kernel started', () => {
  it('reads in seconds, minutes and hours, as short as the step allows', () => {
    expect(formatElapsed(0)).toBe('0s');
    expect(formatElapsed(45)).toBe('45s');
    expect(formatElapsed(60)).toBe('1m');
    expect(formatElapsed(90)).toBe('1m30s');
    expect(formatElapsed(750)).toBe('12m30s');
    expect(formatElapsed(3600)).toBe('1h');
    expect(formatElapsed(3900)).toBe('1h05m');
    expect(formatElapsed(3930)).toBe('1h05m30s');
    expect(formatElapsed(59.96)).toBe('1m');
    expect(formatElapsed(12.5, 0.5)).toBe('12.5s');
    expect(formatElapsed(62.5, 0.5)).toBe('1m2.5s');
    expect(formatElapsed(7.04, 0.1)).toBe('7s');
    expect(formatElapsed(-2)).toBe('-2s');
  });

  it('places ticks on round times counted from the kernel start, not from the epoch', () => {
    const origin = 1_732_240_000.37; // a start time that is no round number of the epoch
    expect(elapsedSplits(origin + 5, origin + 70, 30, origin)).toEqual([origin + 30, origin + 60]);
    expect(elapsedSplits(origin, origin + 1, 0.5, origin).map(t => formatElapsed(t - origin, 0.5))).toEqual([
      '0s', '0.5s', '1s'
    ]);
    expect(elapsedSplits(origin + 10, origin + 5, 1, origin)).toEqual([]);
    expect(TIME_INCRS).toContain(60);
    expect(TIME_INCRS).toContain(3600);
  });

  it('never leaves a narrow axis with a single tick when a smaller step still has room', () => {
    // 7 s of data on a 150 px plot: uPlot's 5 s step (107 px apart) gives one tick; 2 s steps are 43 px apart.
    expect(timeTicks(1.2, 8.2, 5, 107, 0).map(t => formatElapsed(t, 2))).toEqual(['2s', '4s', '6s', '8s']);
    // too little room even for that: the single tick stays
    expect(timeTicks(1.2, 8.2, 5, 60, 0)).toEqual([5]);
    expect(timeTicks(0, 100, 30, 80, 0)).toEqual([0, 30, 60, 90]);
  });

  it('gives the wall-clock time for hover', () => {
    const t = new Date(2026, 10, 23, 14, 2, 31, 250).getTime() / 1000;
    expect(formatClock(t)).toBe('14:02:31');
    expect(formatClock(t, true)).toBe('14:02:31.2');
  });
});
