import uPlot from 'uplot';

import { CellInfo, MemoryMessage, OverlayInfo, SeriesInfo, SourceState } from '../protocol';
import { formatBytes, toCSV } from './format';
import { Rows, SeriesStore } from './store';

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'];
const OVERLAY_COLORS: Record<string, string> = { total: '#555', dtr_threshold: '#d62728', paddle_cap: '#ff7f0e' };
const MAX_MARKERS = 500;

export interface MemoryChartOptions {
  height?: number;
  maxPoints?: number;
  title?: string;
}

/**
 * The live memory chart: one uPlot plot with a legend showing each series' current value and peak, horizontal
 * overlay lines (device total, DTR threshold, allocator caps), vertical cell markers, drag-to-zoom (double-click
 * resets), CSV export, and the sources' states in words (shown instead of the plot while there is no data).
 * Redraws are coalesced to one per animation frame, whatever the number of appends.
 */
export class MemoryChart {
  readonly store: SeriesStore;
  readonly root: HTMLElement;
  private _plot: uPlot | null = null;
  private _overlays: OverlayInfo[] = [];
  private _markers: CellInfo[] = [];
  private _states: SourceState[] = [];
  private _title: string;
  private _height: number;
  private _frame: number | null = null;
  private _header: HTMLElement;
  private _status: HTMLElement;
  private _plotBox: HTMLElement;
  private _legend: HTMLElement;
  private _resizeObserver: ResizeObserver | null = null;
  private _zoomed = false;

  constructor(root: HTMLElement, options: MemoryChartOptions = {}) {
    this.root = root;
    this.store = new SeriesStore(options.maxPoints);
    this._title = options.title ?? 'Memory';
    this._height = options.height ?? 260;
    root.classList.add('mgenv-chart');
    this._header = el('div', 'mgenv-chart-header');
    this._status = el('div', 'mgenv-chart-status');
    this._plotBox = el('div', 'mgenv-chart-plot');
    this._legend = el('table', 'mgenv-chart-legend');
    root.append(this._header, this._status, this._plotBox, this._legend);
    this._renderHeader();
    if (typeof ResizeObserver !== 'undefined') {
      this._resizeObserver = new ResizeObserver(() => this._resize());
      this._resizeObserver.observe(root);
    }
  }

  setTitle(title: string): void {
    this._title = title;
    this._renderHeader();
  }

  /** Apply one kernel message: a snapshot replaces everything, a batch adds rows and any changed metadata. */
  receive(message: MemoryMessage): void {
    if (message.series) {
      this.setSeries(message.series);
    }
    if (message.sources) {
      this.setStates(message.sources);
    }
    if (message.overlays) {
      this.setOverlays(message.overlays);
    }
    if (message.type === 'memory.snapshot') {
      this._markers = [];
      this.replace(message);
    } else {
      this.append(message);
    }
    if (message.cells.length) {
      this.addMarkers(message.cells);
    }
  }

  /** Cell markers: a cell's end replaces its start; only the latest MAX_MARKERS are kept. */
  addMarkers(cells: CellInfo[]): void {
    for (const cell of cells) {
      const index = this._markers.findIndex(m => m.cell === cell.cell && m.start === cell.start);
      if (index >= 0) {
        this._markers[index] = cell;
      } else {
        this._markers.push(cell);
      }
    }
    if (this._markers.length > MAX_MARKERS) {
      this._markers.splice(0, this._markers.length - MAX_MARKERS);
    }
    this.scheduleRedraw();
  }

  get markers(): CellInfo[] {
    return this._markers;
  }

  setSeries(series: SeriesInfo[]): void {
    this.store.setSeries(series);
    this._rebuild();
  }

  setOverlays(overlays: OverlayInfo[]): void {
    this._overlays = overlays;
    this.scheduleRedraw();
  }

  setStates(states: SourceState[]): void {
    this._states = states;
    this._renderStatus();
  }

  append(rows: Rows): void {
    this.store.append(rows);
    this.scheduleRedraw();
  }

  replace(rows: Rows): void {
    this.store.replace(rows);
    this.scheduleRedraw();
  }

  /** Coalesce redraws: many appends between two frames cost one redraw. */
  scheduleRedraw(): void {
    if (this._frame !== null) {
      return;
    }
    const raf = typeof requestAnimationFrame !== 'undefined' ? requestAnimationFrame : (f: () => void) => setTimeout(f, 16);
    this._frame = raf(() => {
      this._frame = null;
      this.redrawNow();
    }) as unknown as number;
  }

  /** Redraw at once; returns the milliseconds it took (the benchmark reads this). */
  redrawNow(): number {
    const start = performance.now();
    this._renderStatus();
    this._renderLegend();
    if (this._plot) {
      const data = this._data();
      // batch(): draw now rather than in uPlot's own microtask (we already coalesce to one redraw per frame)
      this._plot.batch((u: uPlot) => u.setData(data, !this._zoomed));
    }
    return performance.now() - start;
  }

  toCSV(): string {
    const series = this.store.series;
    return toCSV(
      series.map(s => s.key),
      this.store.times,
      series.map(s => this.store.column(s.key))
    );
  }

  destroy(): void {
    if (this._frame !== null) {
      (typeof cancelAnimationFrame !== 'undefined' ? cancelAnimationFrame : clearTimeout)(this._frame);
      this._frame = null;
    }
    this._resizeObserver?.disconnect();
    this._plot?.destroy();
    this._plot = null;
    this.root.replaceChildren();
  }

  private _data(): uPlot.AlignedData {
    return [this.store.times, ...this.store.series.map(s => this.store.column(s.key))] as uPlot.AlignedData;
  }

  private _rebuild(): void {
    this._plot?.destroy();
    this._plot = null;
    const series = this.store.series;
    if (series.length === 0) {
      this.redrawNow();
      return;
    }
    const opts: uPlot.Options = {
      width: Math.max(this._plotBox.clientWidth || this.root.clientWidth || 600, 200),
      height: this._height,
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: true } },
      scales: { x: { time: true } },
      axes: [{}, { values: (_u, ticks) => ticks.map(v => formatBytes(v)), size: 70 }],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.key,
          stroke: PALETTE[i % PALETTE.length],
          width: 1.5,
          dash: s.quantity === 'reserved' || s.quantity === 'total' ? [6, 3] : undefined,
          spanGaps: false,
          points: { show: false },
          value: (_u: uPlot, v: number | null) => formatBytes(v)
        }))
      ],
      hooks: {
        draw: [u => this._drawOverlays(u)],
        setScale: [
          (u, key) => {
            if (key === 'x') {
              const xs = this.store.times;
              const min = u.scales.x.min ?? 0;
              const max = u.scales.x.max ?? 0;
              this._zoomed = xs.length > 1 && (min > xs[0] || max < xs[xs.length - 1]);
            }
          }
        ]
      }
    };
    this._plot = new uPlot(opts, this._data(), this._plotBox);
    this._plot.over.addEventListener('dblclick', () => {
      this._zoomed = false;
      this.scheduleRedraw();
    });
    this.redrawNow();
  }

  private _drawOverlays(u: uPlot): void {
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.font = `${Math.round(11 * devicePixelRatio)}px sans-serif`;
    for (const overlay of this._overlays) {
      const y = u.valToPos(overlay.bytes, 'y', true);
      if (!isFinite(y) || y < top || y > top + height) {
        continue;
      }
      ctx.strokeStyle = OVERLAY_COLORS[overlay.kind] ?? '#555';
      ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
      ctx.beginPath();
      ctx.moveTo(left, y);
      ctx.lineTo(left + width, y);
      ctx.stroke();
      ctx.fillStyle = ctx.strokeStyle;
      ctx.textAlign = 'right';
      ctx.fillText(overlay.label, left + width - 4, y - 3);
      ctx.textAlign = 'left';
    }
    ctx.setLineDash([]);
    ctx.strokeStyle = 'rgba(0,0,0,0.25)';
    ctx.fillStyle = 'rgba(0,0,0,0.55)';
    for (const marker of this._markers) {
      const x = u.valToPos(marker.start, 'x', true);
      if (!isFinite(x) || x < left || x > left + width) {
        continue;
      }
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      ctx.fillText(`[${marker.cell}]`, x + 2, top + 12 * devicePixelRatio);
    }
    ctx.restore();
  }

  private _resize(): void {
    if (this._plot) {
      const width = Math.max(this._plotBox.clientWidth || this.root.clientWidth, 200);
      if (Math.abs(width - this._plot.width) > 1) {
        this._plot.setSize({ width, height: this._height });
      }
    }
  }

  private _renderHeader(): void {
    this._header.replaceChildren();
    const title = el('span', 'mgenv-chart-title');
    title.textContent = this._title;
    const csv = el('button', 'mgenv-chart-csv') as HTMLButtonElement;
    csv.textContent = 'CSV';
    csv.title = 'Download the data shown as CSV';
    csv.setAttribute('aria-label', 'Export CSV');
    csv.addEventListener('click', () => download('memory.csv', this.toCSV()));
    this._header.append(title, csv);
  }

  private _renderStatus(): void {
    const simulated = this.store.series.some(s => s.simulated) || this._states.some(s => s.simulated);
    // With data on screen, sources with nothing to say (a framework not imported, an idle fallback) stay quiet.
    const quiet = (s: SourceState) => this.store.length > 0 && /not imported|^idle/.test(s.state);
    const parts = this._states.filter(s => !quiet(s)).map(s => `${s.name}: ${s.state}`);
    if (this.store.length === 0) {
      parts.unshift('No data yet');
    }
    this._status.textContent = (simulated ? 'SIMULATED GPU · ' : '') + parts.join(' · ');
    this._status.classList.toggle('mgenv-chart-simulated', simulated);
    this._plotBox.style.display = this.store.length === 0 ? 'none' : '';
  }

  private _renderLegend(): void {
    const rows = [['', 'series', 'current', 'peak']];
    const body = this.store.series.map((s, i) => [
      PALETTE[i % PALETTE.length],
      s.key + (s.simulated && !s.key.includes('simulated') ? ' (simulated)' : ''),
      formatBytes(this.store.current(s.key)),
      formatBytes(this.store.peak(s.key))
    ]);
    this._legend.replaceChildren();
    for (const [index, row] of [...rows, ...body].entries()) {
      const tr = el('tr', index === 0 ? 'mgenv-chart-legend-head' : '');
      row.forEach((cell, column) => {
        const td = el(index === 0 ? 'th' : 'td', '');
        if (column === 0 && index > 0) {
          const swatch = el('span', 'mgenv-chart-swatch');
          swatch.style.background = cell;
          td.append(swatch);
        } else {
          td.textContent = cell;
        }
        tr.append(td);
      });
      this._legend.append(tr);
    }
  }
}

function el(tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  return node;
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
