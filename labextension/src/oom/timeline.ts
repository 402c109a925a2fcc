/**
 * The timeline of an out-of-memory report, drawn by the project's memory chart (src/chart/): the kernel sends it as
 * the chart's own snapshot (protocol/_oom.py OomTimeline) — the failing device's series up to the failure, the failing
 * cell's marker, and overlay lines for the device total, the earlier cells' peaks and what was held plus what was
 * asked — so the chart shows it as it shows live memory: the same units, legend, labels and theme. Static: nothing
 * more arrives after the snapshot.
 */
import { MemoryChart, MemoryChartOptions } from '../chart/memoryChart';
import { Translation } from '../chart/text';
import { OomTimeline } from '../protocol';
import { el } from '../shared/dom';

/** The chart's height in a report: enough for the curve and four labelled lines beside it. */
export const TIMELINE_HEIGHT = 180;

export interface ChartLike {
  receive: MemoryChart['receive'];
  destroy(): void;
}

export type ChartFactory = (root: HTMLElement, options: MemoryChartOptions) => ChartLike;

const newChart: ChartFactory = (root, options) => new MemoryChart(root, options);

/** The rendered timeline and its chart (null: nothing recorded, only the lines), to destroy with the report. */
export interface TimelineView {
  node: HTMLElement;
  chart: ChartLike | null;
}

/** The timeline's title, its chart (when there are samples) and its lines in words. */
export function timelineView(timeline: OomTimeline, makeChart: ChartFactory = newChart, trans?: Translation): TimelineView {
  const node = el('div', 'mgenv-oom-section mgenv-oom-timeline');
  const title = el('div', 'mgenv-oom-line mgenv-oom-timeline-title');
  title.textContent = timeline.title;
  node.append(title);
  let chart: ChartLike | null = null;
  if (timeline.chart) {
    const box = el('div', 'mgenv-oom-chart');
    node.append(box);
    // The title is the report's own line above; the chart's header keeps only its CSV button. A record of the
    // failure: all of it shown, every line (what was asked, the total) in range, whatever their height.
    chart = makeChart(box, {
      title: '',
      height: TIMELINE_HEIGHT,
      points: true,
      trans,
      window: null,
      windows: false,
      fitToData: false
    });
    chart.receive(timeline.chart);
    (box as any).mgenvChart = chart; // lets browser tests reach the chart, as the inline widget does
  }
  for (const line of timeline.lines) {
    const row = el('div', 'mgenv-oom-line');
    row.textContent = line;
    node.append(row);
  }
  return { node, chart };
}
