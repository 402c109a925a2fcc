import { legendNaming } from '../src/chart/memoryChart';
import { cellRange, groupMarkers } from '../src/chart/placement';
import { messagesTranslation } from '../src/chart/text';
import { DEFAULT_WINDOW, fitY, OVERLAY_REACH, windowRange, WINDOWS } from '../src/chart/view';
import catalog from '../src/locale/zh_CN.json';
import { SeriesInfo } from '../src/protocol';

const GiB = 1024 ** 3;

describe('the rolling window', () => {
  it('shows the last five minutes of a long run by default, everything while there is less', () => {
    expect(DEFAULT_WINDOW).toBe(300);
    expect(windowRange(1000, 1900, DEFAULT_WINDOW)).toEqual([1600, 1900]); // fifteen minutes of data: the last five
    expect(windowRange(1000, 1120, DEFAULT_WINDOW)).toEqual([1000, 1120]); // two minutes: all of it
  });

  it('shows everything when the user asks for all of it', () => {
    expect(WINDOWS).toContain(null);
    expect(windowRange(1000, 1900, null)).toEqual([1000, 1900]);
  });

  it('offers windows from a minute to an hour, in order, then everything', () => {
    const spans = WINDOWS.filter((w): w is number => w !== null);
    expect(spans).toEqual([...spans].sort((a, b) => a - b));
    expect(spans[0]).toBe(60);
    expect(WINDOWS[WINDOWS.length - 1]).toBeNull();
  });
});

describe('the y-axis fitted to the data', () => {
  it('fits a 2 GiB curve, and keeps the 40 GiB total as a label above it rather than a line at the top', () => {
    const fit = fitY(2 * GiB, [40 * GiB]);
    expect(fit.above).toEqual([0]);
    expect(fit.range[0]).toBe(0);
    expect(fit.range[1]).toBeGreaterThan(2 * GiB);
    expect(fit.range[1]).toBeLessThan(2.5 * GiB); // the curve takes most of the height
  });

  it('draws a line near the data (a DTR threshold just above it) in range, with room above it', () => {
    const fit = fitY(2 * GiB, [3 * GiB, 40 * GiB]);
    expect(fit.above).toEqual([1]);
    expect(fit.range[1]).toBeGreaterThan(3 * GiB);
    expect(fit.range[1]).toBeLessThanOrEqual(3 * GiB * OVERLAY_REACH);
  });

  it('draws the total as a line when the data comes near it (38 of 40 GiB)', () => {
    const fit = fitY(38 * GiB, [40 * GiB]);
    expect(fit.above).toEqual([]);
    expect(fit.range[1]).toBeGreaterThan(40 * GiB);
  });

  it('keeps every line in range where the lines are the point (a report’s timeline)', () => {
    expect(fitY(2 * GiB, [40 * GiB], false).above).toEqual([]);
    expect(fitY(2 * GiB, [40 * GiB], false).range[1]).toBeGreaterThan(40 * GiB);
  });

  it('shows a first gigabyte before there is data, the lines above it as labels', () => {
    expect(fitY(null, [40 * GiB])).toEqual({ range: [0, GiB * 1.08], above: [0] });
    expect(fitY(0, [])).toEqual({ range: [0, GiB * 1.08], above: [] });
  });
});

describe('cell markers that stay apart', () => {
  it('shares one marker among the cells of a busy stretch: never more lines than labels, none closer than a label', () => {
    // Ten minutes of a cell every three seconds, on a plot 200 px wide: 200 markers a pixel apart.
    const markers = Array.from({ length: 200 }, (_, i) => ({ cell: i + 1, x: i }));
    const measure = (text: string) => text.length * 6.5 + 4;
    const groups = groupMarkers(markers, measure, 0, 200);
    expect(groups.length).toBeLessThan(8);
    groups.slice(1).forEach((group, i) => expect(group.x - groups[i].x).toBeGreaterThanOrEqual(measure('[1]')));
    expect(groups.flatMap(g => g.cells)).toHaveLength(200); // every cell is in one label (its tooltip lists them)
    expect(cellRange(groups[0].cells)).toMatch(/^\[1[–…]/);
  });
});

describe('the legend’s names at 250 px', () => {
  const series = (device: string, quantity: string, more: Partial<SeriesInfo> = {}): SeriesInfo => ({
    key: `${device} ${quantity}`,
    device,
    framework: null,
    quantity,
    source: 'nvml',
    simulated: true,
    node: null,
    ...more
  });

  it('names the one device once, over the rows, with its simulation', () => {
    const one = [series('gpu0', 'process'), series('gpu0', 'used'), series('gpu0', 'allocated', { framework: 'torch' })];
    expect(legendNaming(one)).toEqual({ once: true, caption: 'gpu0 (simulated)' });
    expect(legendNaming(one, messagesTranslation(catalog))).toEqual({ once: true, caption: 'gpu0 (模拟)' });
  });

  it('names each device in its rows when there are several, and says once that they are simulated', () => {
    const two = [series('gpu0', 'process'), series('gpu1', 'process')];
    expect(legendNaming(two)).toEqual({ once: false, caption: '(simulated)' });
    expect(legendNaming(two.map(s => ({ ...s, simulated: false })))).toEqual({ once: false, caption: '' });
  });
});
