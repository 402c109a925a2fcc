import { MemoryChartOptions } from '../src/chart/memoryChart';
import { OomTimeline, Snapshot } from '../src/protocol';
import { ChartLike, TIMELINE_HEIGHT, timelineView } from '../src/oom/timeline';

const SERIES = 'gpu0 (simulated) process';
const GiB = 1024 ** 3;

// What presentation/oom.py sends: the chart's own snapshot of the failing cell, its marker and the overlay lines.
const CHART: Snapshot = {
  type: 'memory.snapshot', seq: 0, interval: 1, t: [10, 11, 12, 12.4], columns: { [SERIES]: [2 * GiB, 2 * GiB, 20 * GiB, 38 * GiB] },
  cells: [{ cell: 3, start: 11.5, end: 12.4, duration: 0.9, ok: false, peak: { [SERIES]: 38 * GiB } }],
  series: [{ key: SERIES, device: 'gpu0', framework: null, quantity: 'process', source: 'nvml (simulated)', simulated: true, node: null }],
  sources: [],
  overlays: [
    { key: 'total:gpu0 (simulated)', kind: 'total', device: 'gpu0 (simulated)', bytes: 40 * GiB, label: 'gpu0 (simulated) total (40 GiB)', short: 'total', note: '', series: null, node: null },
    { key: 'cell_peak:2', kind: 'cell_peak', device: 'gpu0 (simulated)', bytes: 2 * GiB, label: 'cell [2] peak (2 GiB)', short: '[2] peak', note: '', series: null, node: null }
  ],
  started: 1
};

function recording(): { factory: (root: HTMLElement, options: MemoryChartOptions) => ChartLike; made: any[] } {
  const made: any[] = [];
  const factory = (root: HTMLElement, options: MemoryChartOptions): ChartLike => {
    const chart = { root, options, received: [] as unknown[], destroyed: false,
      receive(message: unknown) { this.received.push(message); }, destroy() { this.destroyed = true; } };
    made.push(chart);
    return chart as unknown as ChartLike;
  };
  return { factory, made };
}

describe('timelineView', () => {
  it('gives the chart component the kernel’s snapshot, with dots for the samples, between the title and the lines', () => {
    const timeline: OomTimeline = { title: 'Timeline of gpu0', chart: CHART, lines: ['cell [3] went from 2 GiB to 38 GiB'] };
    const { factory, made } = recording();
    const view = timelineView(timeline, factory);
    expect(made).toHaveLength(1);
    const [chart] = made;
    expect(chart.received).toEqual([CHART]); // unchanged: the chart reads its own wire format
    // a record of the failure: all of it, every line in range (the total and what was asked are the point)
    expect(chart.options).toEqual({ title: '', height: TIMELINE_HEIGHT, points: true, window: null, windows: false, fitToData: false });
    expect(view.chart).toBe(chart);
    const children = [...view.node.children];
    expect(children.map(c => c.className)).toEqual([
      'mgenv-oom-line mgenv-oom-timeline-title', 'mgenv-oom-chart', 'mgenv-oom-line'
    ]);
    expect(children[1]).toBe(chart.root);
    expect((chart.root as any).mgenvChart).toBe(chart);
    expect(children[0].textContent).toBe('Timeline of gpu0');
    expect(children[2].textContent).toBe('cell [3] went from 2 GiB to 38 GiB');
  });

  it('draws no chart when nothing was recorded, only the words', () => {
    const { factory, made } = recording();
    const view = timelineView({ title: 'no samples recorded before the failure', chart: null, lines: [] }, factory);
    expect(made).toHaveLength(0);
    expect(view.chart).toBeNull();
    expect(view.node.textContent).toBe('no samples recorded before the failure');
  });
});
