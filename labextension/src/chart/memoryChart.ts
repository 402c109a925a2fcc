import uPlot from 'uplot';

import { CellInfo, MarkInfo, MemoryMessage, OverlayInfo, SeriesInfo, SourceState } from '../protocol';
import { Annotations, MARKER_STRIP, OVERLAY_STYLE, overlayGutter, textWidth } from './annotations';
import { BYTE_INCRS, formatBytes, formatByteTicks, toCSV } from './format';
import { isLost, Legend, LegendEntry, LegendGroup, LegendValues } from './legend';
import { Gutter } from './placement';
import { statusLine } from './status';
import { deviceName, ENGLISH, seriesName, Translation } from './text';
import { Rows, SeriesStore } from './store';
import { ChartTheme, readTheme, watchTheme } from './theme';
import { formatElapsed, TIME_INCRS, timeTicks } from './timeAxis';
import { DEFAULT_WINDOW, fitY, windowRange, WINDOWS } from './view';

const MAX_MARKERS = 500;
// Right of the plot without overlay labels: room for the last time tick's label.
const MIN_GUTTER = 20;

export interface MemoryChartOptions {
  /**
   * The plot's height in pixels, or 'fill': the chart takes its container's height (give the root one) and the plot
   * the part of it that the header, status and legend leave, at least MIN_FILL_HEIGHT (a resizable sidebar section);
   * 200 px when the container sets no height.
   */
  height?: number | 'fill';
  maxPoints?: number;
  title?: string;
  /** Draw each sample as a dot too: a few samples a second apart (an out-of-memory report's timeline) are then seen
   * as the readings they are, not as a continuous curve. */
  points?: boolean;
  /** The chart's own words in the user's language: JupyterLab's translation bundle in the sidebar, the page's
   * language from the shipped catalog inline (chart/text.ts); English when not given. */
  trans?: Translation;
  /**
   * Seconds of the latest data shown, a rolling window (five minutes unless given); null shows everything. The user
   * can choose another in the chart's header, "All" included, unless `windows` is false.
   */
  window?: number | null;
  /** Offer the choice of window in the header (default true; a fixed record, such as a report's timeline, has none). */
  windows?: boolean;
  /**
   * Fit the y-axis to the data shown (default true): overlay lines far above it (a 40 GiB total over 2 GiB of data)
   * become labels at the top. false: every overlay line is in range (a report's timeline, whose lines are the point).
   */
  fitToData?: boolean;
}

const MIN_FILL_HEIGHT = 120;

/**
 * The live memory chart: one uPlot plot of the series, with the overlay lines (device total, DTR threshold, allocator
 * caps) labelled in a gutter right of the plot, cell markers labelled above it, time counted from the kernel's start
 * (the wall-clock time under the cursor), drag-to-zoom (double-click resets), a legend whose rows toggle their lines,
 * CSV export, and the sources' states in one line (shown alone while there is no data). Colours come from
 * JupyterLab's theme and follow it when it changes. Redraws are coalesced to one per animation frame, whatever the
 * number of appends.
 *
 * It stays readable however long it runs (view.ts): it shows the last few minutes by default (a rolling window the
 * user can widen to everything), its y-axis fits the data shown, a line far above that data (the device's total) is a
 * label at the top rather than a line that squashes the curve, and cell markers too close to tell apart share one line.
 */
export class MemoryChart {
  readonly store: SeriesStore;
  readonly root: HTMLElement;
  private _plot: uPlot | null = null;
  private _annotations: Annotations | null = null;
  private _overlays: OverlayInfo[] = [];
  private _markers: CellInfo[] = [];
  private _marks: MarkInfo[] = [];
  private _states: SourceState[] = [];
  private _origin: number | null = null;
  private _hidden = new Set<string>();
  private _title: string;
  private _height: number;
  private _fill: boolean;
  private _frame: number | null = null;
  private _header: HTMLElement;
  private _status: HTMLElement;
  private _plotBox: HTMLElement;
  private _legend: Legend;
  private _theme: ChartTheme | null = null;
  private _gutter: Gutter = { width: 0, twoLines: new Set() };
  private _resizeObserver: ResizeObserver | null = null;
  private _unwatchTheme: () => void;
  private _zoomed = false;
  private _lastWidth = 600;
  private _points: boolean;
  private _trans: Translation;
  private _window: number | null;
  private _fitToData: boolean;
  /** The overlays above the y range at the last fit: labelled at the top of the gutter, not drawn. */
  private _above = new Set<string>();
  private _windowSelect: HTMLSelectElement | null = null;

  constructor(root: HTMLElement, options: MemoryChartOptions = {}) {
    this.root = root;
    this.store = new SeriesStore(options.maxPoints);
    this._trans = options.trans ?? ENGLISH;
    this._title = options.title ?? this._trans._p('memory chart', 'Memory');
    this._points = options.points ?? false;
    this._fill = options.height === 'fill';
    this._height = typeof options.height === 'number' ? options.height : this._fill ? 200 : 260;
    this._window = options.window === undefined ? DEFAULT_WINDOW : options.window;
    this._fitToData = options.fitToData ?? true;
    if (options.windows ?? true) {
      this._windowSelect = this._newWindowSelect();
    }
    root.classList.add('mgenv-chart');
    root.classList.toggle('mgenv-chart-fill', this._fill);
    this._header = el('div', 'mgenv-chart-header');
    this._status = el('div', 'mgenv-chart-status');
    this._plotBox = el('div', 'mgenv-chart-plot');
    this._legend = new Legend(entry => this._toggle(entry), this._trans);
    root.append(this._header, this._status, this._plotBox, this._legend.node);
    this._renderHeader();
    if (typeof ResizeObserver !== 'undefined') {
      this._resizeObserver = new ResizeObserver(() => this._resize());
      // The plot's box: it follows the root's width, and in 'fill' mode also the height the legend leaves.
      this._resizeObserver.observe(this._plotBox);
    }
    this._unwatchTheme = watchTheme(() => {
      this._theme = null;
      this._rebuild();
    });
  }

  /** Seconds of the latest data shown (null: everything). */
  get window(): number | null {
    return this._window;
  }

  /** Show the last `seconds` of the data (null: everything), as the header's choice does; it ends a zoom. */
  setWindow(seconds: number | null): void {
    this._window = seconds;
    if (this._windowSelect) {
      this._windowSelect.value = String(seconds);
    }
    this._zoomed = false;
    this.scheduleRedraw();
  }

  /** The overlays drawn as labels at the top, above the data's range (their keys); tests read it. */
  get overlaysAbove(): string[] {
    return [...this._above];
  }

  setTitle(title: string): void {
    this._title = title;
    this._renderHeader();
  }

  /** Apply one kernel message: a snapshot replaces everything, a batch adds rows and any changed metadata. */
  receive(message: MemoryMessage): void {
    if (message.started !== undefined) {
      this._origin = message.started;
    }
    if (message.series) {
      this.setSeries(message.series);
    }
    if (message.sources) {
      this.setStates(message.sources);
    }
    if (message.overlays) {
      this.setOverlays(message.overlays);
    }
    if (message.marks) {
      this._marks = message.marks.slice(-MAX_MARKERS);
      this.scheduleRedraw();
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

  /** Cell markers: a cell's end replaces its start (the same start time); only the latest MAX_MARKERS are kept. */
  addMarkers(cells: CellInfo[]): void {
    for (const cell of cells) {
      const index = this._markers.findIndex(m => m.start === cell.start);
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

  get overlays(): OverlayInfo[] {
    return this._overlays;
  }

  /** Moments that are not cells, as the kernel marked them (memory given back). */
  get marks(): MarkInfo[] {
    return this._marks;
  }

  /** Seconds since the epoch at which the time axis starts: the kernel's start when the kernel said it. */
  get origin(): number {
    return this._origin ?? this.store.times[0] ?? 0;
  }

  /** The time axis' labels as last drawn ("45s", "1m30s"); tests read them, the canvas has no text to select. */
  get timeTicks(): string[] {
    const axis = this._plot?.axes[0] as { _values?: (string | number)[] } | undefined;
    return (axis?._values ?? []).map(String);
  }

  setSeries(series: SeriesInfo[]): void {
    this.store.setSeries(series);
    this._rebuild();
  }

  setOverlays(overlays: OverlayInfo[]): void {
    const totals = (list: OverlayInfo[]) => list.filter(o => o.kind === 'total').map(o => o.series).join('\u0000');
    const coverageChanged = totals(overlays) !== totals(this._overlays);
    this._overlays = overlays;
    if (coverageChanged && this._plot) {
      this._applySeriesVisibility();
    }
    this._fitGutter();
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
    this._unwatchTheme();
    this._resizeObserver?.disconnect();
    this._annotations?.destroy();
    this._plot?.destroy();
    this._plot = null;
    this.root.replaceChildren();
  }

  private get theme(): ChartTheme {
    if (!this._theme) {
      // Before the chart is in the page its own style has no theme variables yet; the document's has them.
      this._theme = readTheme(this.root.isConnected ? this.root : document.documentElement);
    }
    return this._theme;
  }

  private _data(): uPlot.AlignedData {
    return [this.store.times, ...this.store.series.map(s => this.store.column(s.key))] as uPlot.AlignedData;
  }

  /** Overlays the user has not switched off. */
  private _visibleOverlays(): OverlayInfo[] {
    return this._overlays.filter(o => !this._hidden.has(o.key));
  }

  /** A device's total is drawn once, as its overlay line (labelled, in the legend); its series stays in the CSV. */
  private _coveredByOverlay(s: SeriesInfo): boolean {
    return s.quantity === 'total' && this._overlays.some(o => o.kind === 'total' && o.series === s.key);
  }

  private _seriesShown(s: SeriesInfo): boolean {
    return !this._hidden.has(s.key) && !this._coveredByOverlay(s);
  }

  private _color(index: number): string {
    const palette = this.theme.series;
    return palette[index % palette.length];
  }

  /**
   * The plot's width: its box's, or while the box has none (hidden, or a notebook cell scrolled out of JupyterLab's
   * window and not laid out) the last one it had, so that a plot rebuilt meanwhile (a theme change) still fits.
   */
  private _width(): number {
    const width = this._plotBox.clientWidth || this.root.clientWidth;
    if (width) {
      this._lastWidth = Math.max(width, 200);
    }
    return this._lastWidth;
  }

  private _rebuild(): void {
    this._annotations?.destroy();
    this._annotations = null;
    this._plot?.destroy();
    this._plot = null;
    const series = this.store.series;
    if (series.length === 0) {
      this.redrawNow();
      return;
    }
    const theme = this.theme;
    const axis = {
      font: theme.font,
      labelFont: theme.font,
      stroke: theme.muted,
      grid: { stroke: theme.grid, width: 1 },
      ticks: { stroke: theme.grid, width: 1, size: 4 }
    };
    const opts: uPlot.Options = {
      width: this._width(),
      height: this._plotHeight(),
      legend: { show: false },
      padding: [MARKER_STRIP, () => Math.max(MIN_GUTTER, this._gutter.width), 0, 0],
      cursor: { drag: { x: true, y: false, setScale: true } },
      scales: {
        x: { time: false, range: (_u, min, max) => this._xRange(min, max) },
        y: { range: (_u, _min, max) => this._yRange(max) }
      },
      axes: [
        {
          ...axis,
          // At least three ticks however narrow the plot (a 250 px sidebar), as far apart as a label needs.
          space: (_u, _i, _min, _max, plotWidth) => Math.min(90, Math.max(44, plotWidth / 3)),
          size: 22,
          incrs: TIME_INCRS,
          splits: (_u, _i, min, max, step, spacing) => timeTicks(min, max, step, spacing, this.origin),
          // The step from the ticks themselves: timeTicks may have taken a smaller one than uPlot found.
          values: (_u, ticks, _i, _space, step) =>
            ticks.map(t => formatElapsed(t - this.origin, ticks.length > 1 ? ticks[1] - ticks[0] : step)),
          label: this._trans._p('memory chart', 'since kernel start'),
          labelSize: 14,
          labelGap: 0
        },
        {
          ...axis,
          space: 26,
          incrs: BYTE_INCRS,
          values: (_u, ticks, _i, _space, step) => formatByteTicks(ticks, step),
          size: (_u, values) => this._yAxisSize(values)
        }
      ],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.key,
          stroke: this._color(i),
          width: 1.5,
          dash: s.quantity === 'reserved' ? [6, 3] : undefined,
          spanGaps: false,
          show: this._seriesShown(s),
          points: { show: this._points, size: 5 },
          value: (_u: uPlot, v: number | null) => formatBytes(v)
        }))
      ],
      hooks: {
        draw: [
          u =>
            this._annotations?.draw(u, this._visibleOverlays(), this._markers, this.theme, this._gutter, this._marks, this._above)
        ],
        setCursor: [u => this._onCursor(u)],
        setScale: [
          (u, key) => {
            if (key === 'x') {
              // Zoomed: less than the window shows (a drag); the window's own range is not a zoom.
              const xs = this.store.times;
              const [first, last] = xs.length ? windowRange(xs[0], xs[xs.length - 1], this._window) : [0, 0];
              const min = u.scales.x.min ?? 0;
              const max = u.scales.x.max ?? 0;
              this._zoomed = xs.length > 1 && (min > first + 1e-6 || max < last - 1e-6);
            }
          }
        ]
      }
    };
    this._fitGutter(opts.width);
    this._plot = new uPlot(opts, this._data(), this._plotBox);
    this._annotations = new Annotations(this._plot, this._trans);
    this._plot.over.addEventListener('dblclick', () => {
      this._zoomed = false;
      this.scheduleRedraw();
    });
    this.redrawNow();
  }

  /** The rolling window over the data from `min` to `max`, or what a drag zoomed to (less than the window). */
  private _xRange(min: number | null, max: number | null): uPlot.Range.MinMax {
    if (min === null || max === null) {
      return [min, max];
    }
    return windowRange(min, max, this._window);
  }

  /**
   * From 0 to a little above the highest value shown and the overlay lines near it, so the headroom to a threshold
   * is visible; lines far above (a device's total over a small curve) are kept for labels at the top (`_above`).
   */
  private _yRange(dataMax: number | null): uPlot.Range.MinMax {
    const overlays = this._visibleOverlays();
    const fit = fitY(
      dataMax,
      overlays.map(o => o.bytes),
      this._fitToData
    );
    this._above = new Set(fit.above.map(i => overlays[i].key));
    return fit.range;
  }

  private _yAxisSize(values: string[] | null): number {
    const font = this.theme.font;
    return Math.ceil(Math.max(24, ...(values ?? []).map(v => textWidth(v, font)))) + 12;
  }

  /** The gutter the overlay labels need at this width; uPlot reads its width as its right padding. */
  private _fitGutter(width = this._plot?.width ?? this._width()): void {
    const before = this._gutter;
    this._gutter = overlayGutter(this._visibleOverlays(), width, this.theme);
    if (this._gutter.width !== before.width) {
      this._plot?.redraw(false, true);
    }
  }

  private _applySeriesVisibility(): void {
    const plot = this._plot;
    if (!plot) {
      return;
    }
    this.store.series.forEach((s, i) => {
      const show = this._seriesShown(s);
      if (plot.series[i + 1].show !== show) {
        plot.setSeries(i + 1, { show });
      }
    });
  }

  private _toggle(entry: LegendEntry): void {
    if (this._hidden.has(entry.key)) {
      this._hidden.delete(entry.key);
    } else {
      this._hidden.add(entry.key);
    }
    if (entry.kind === 'series') {
      this._applySeriesVisibility();
    } else {
      this._fitGutter();
    }
    this.scheduleRedraw();
  }

  private _onCursor(u: uPlot): void {
    const idx = u.cursor.idx;
    const time = idx !== null && idx !== undefined ? this.store.times[idx] ?? null : null;
    this._annotations?.showCursor(u, time, this.origin);
    this._renderLegend(idx ?? null);
  }

  private _plotHeight(): number {
    if (!this._fill) {
      return this._height;
    }
    const height = this._plotBox.clientHeight;
    if (height) {
      this._height = Math.max(MIN_FILL_HEIGHT, height);
    }
    return this._height;
  }

  private _resize(): void {
    if (this._plot) {
      const width = this._width();
      const height = this._plotHeight();
      if (Math.abs(width - this._plot.width) > 1 || Math.abs(height - this._plot.height) > 1) {
        this._fitGutter(width);
        this._plot.setSize({ width, height });
      }
    }
  }

  /** The title and the CSV button; without a title (the sidebar's section names the chart) the status line takes
   * the title's place, beside the button. */
  private _renderHeader(): void {
    this._header.replaceChildren();
    const title = el('span', 'mgenv-chart-title');
    title.textContent = this._title;
    const csv = el('button', 'mgenv-chart-csv') as HTMLButtonElement;
    csv.type = 'button';
    csv.textContent = 'CSV';
    csv.title = this._trans._p('memory chart', 'Download the data shown as CSV');
    csv.setAttribute('aria-label', this._trans._p('memory chart', 'Export CSV'));
    csv.addEventListener('click', () => download('memory.csv', this.toCSV()));
    const controls = el('span', 'mgenv-chart-controls');
    if (this._windowSelect) {
      controls.append(this._windowSelect);
    }
    controls.append(csv);
    if (this._title) {
      this._header.append(title, controls);
      this._header.after(this._status);
    } else {
      this._header.append(this._status, controls);
    }
  }

  /** The choice of window: the last minute, 5 or 15 minutes, an hour, or everything. */
  private _newWindowSelect(): HTMLSelectElement {
    const select = el('select', 'mgenv-chart-window') as HTMLSelectElement;
    const trans = this._trans;
    select.title = trans._p('memory chart', 'How much of the history to show');
    select.setAttribute('aria-label', trans._p('memory chart', 'Time shown'));
    for (const seconds of WINDOWS) {
      const option = document.createElement('option');
      option.value = String(seconds);
      option.textContent =
        seconds === null
          ? trans._p('memory chart', 'All')
          : seconds < 3600
            ? trans._p('memory chart', 'Last %1 min', seconds / 60)
            : trans._p('memory chart', 'Last %1 h', seconds / 3600);
      select.append(option);
    }
    if (!WINDOWS.includes(this._window)) {
      const option = document.createElement('option');
      option.value = String(this._window);
      option.textContent = trans._p('memory chart', 'Last %1', formatElapsed(this._window ?? 0));
      select.append(option);
    }
    select.value = String(this._window);
    select.addEventListener('change', () => this.setWindow(select.value === 'null' ? null : Number(select.value)));
    return select;
  }

  private _renderStatus(): void {
    const line = statusLine(this._states, this.store.length > 0, this._trans);
    if (this._status.textContent !== line.text) {
      const rest = line.simulation ? line.text.slice(line.simulation.length) : line.text;
      if (line.simulation) {
        const simulation = el('span', 'mgenv-chart-simulated');
        simulation.textContent = line.simulation;
        this._status.replaceChildren(simulation, rest);
      } else {
        this._status.textContent = rest;
      }
    }
    if (this._status.title !== line.title) {
      this._status.title = line.title;
    }
    this._plotBox.style.display = this.store.length === 0 ? 'none' : '';
  }

  private _renderLegend(cursor: number | null = this._plot?.cursor.idx ?? null): void {
    const trans = this._trans;
    const groups = legendGroups(this.store.series, this._states, trans);
    const lost = new Set(groups.filter(g => isLost(g.state)).map(g => g.key));
    const listed = this.store.series.filter(s => !this._coveredByOverlay(s));
    // One device (the usual single GPU): it is named once, in the legend's heading, and each row by what it counts,
    // so the names fit a 250 px sidebar on one line. The simulation is said there too, and by the status line.
    const naming = legendNaming(listed, trans);
    const entries: LegendEntry[] = [];
    this.store.series.forEach((s, i) => {
      if (!this._coveredByOverlay(s)) {
        const node = s.node ?? '';
        const whole = seriesName(s, trans);
        entries.push({
          key: s.key,
          kind: 'series',
          name: seriesName(s, trans, { device: !naming.once, simulated: false, node: !groups.length }),
          whole,
          color: this._color(i),
          style: s.quantity === 'reserved' ? 'dashed' : 'solid',
          shown: !this._hidden.has(s.key),
          group: groups.length ? node : undefined,
          note: lost.has(node) ? trans._p('memory chart', '%1: no data since %2 was lost', whole, node) : undefined
        });
      }
    });
    // With groups, a device's overlay lines (its total) are listed under the device's node, and the kernel's own
    // (the DTR threshold, Paddle's cap) under the kernel's group. Their labels never name the node.
    const grouped = new Set(groups.map(g => g.key));
    for (const overlay of this._overlays) {
      const group = grouped.has(overlay.node ?? '') ? overlay.node ?? '' : undefined;
      // A total under a caption that names its device: "total (40 GiB)", not the device again.
      const short = naming.once && overlay.kind === 'total' && overlay.series !== null;
      entries.push({
        key: overlay.key,
        kind: 'overlay',
        name: short ? `${overlay.short} (${formatBytes(overlay.bytes)})` : overlay.label,
        whole: overlay.node !== null ? `${overlay.node} ${overlay.label}` : overlay.label,
        color: this.theme.overlays[overlay.kind],
        style: OVERLAY_STYLE[overlay.kind],
        shown: !this._hidden.has(overlay.key),
        note: overlay.note,
        group
      });
    }
    this._legend.setCaption(naming.caption);
    this._legend.setEntries(entries, groups);
    const values = new Map<string, LegendValues>();
    for (const s of this.store.series) {
      // A lost node's last reading is not its memory now: only its peak, and its values under the cursor, stand.
      const stale = cursor === null && lost.has(s.node ?? '');
      const now = cursor !== null ? this.store.column(s.key)[cursor] ?? null : stale ? null : this.store.current(s.key);
      values.set(s.key, { now: formatBytes(now), peak: formatBytes(this.store.peak(s.key)) });
    }
    const at = cursor !== null ? this.store.times[cursor] : undefined;
    this._legend.setValues(
      values,
      at !== undefined
        ? this._trans._p('memory chart', 'at %1', formatElapsed(at - this.origin))
        : this._trans._p('memory chart', 'now')
    );
  }
}

/**
 * How the legend names its rows: with one device (whatever the frameworks counting on it), the device is named once,
 * in the `caption` over the rows ("gpu0 (simulated)"), and not in each row (`once`); with several, each row
 * names its device and the caption only says that the data is simulated, if it is.
 */
export function legendNaming(series: SeriesInfo[], trans: Translation = ENGLISH): { once: boolean; caption: string } {
  const devices = [...new Set(series.map(s => s.device))];
  if (devices.length === 1) {
    return { once: true, caption: deviceName(series[0], trans, series.some(s => s.simulated)) };
  }
  return { once: false, caption: series.some(s => s.simulated) ? trans._p('memory chart', '(simulated)') : '' };
}

/**
 * The legend's groups when some series come from cluster nodes: the kernel's own machine first (when it has series),
 * then each node in the order its series came, with its source's state. None without nodes.
 */
export function legendGroups(series: SeriesInfo[], states: SourceState[], trans: Translation = ENGLISH): LegendGroup[] {
  const nodes = [...new Set(series.map(s => s.node).filter((n): n is string => n !== null))];
  if (!nodes.length) {
    return [];
  }
  const groups: LegendGroup[] = series.some(s => s.node === null)
    ? [{ key: '', name: trans._p('memory chart', 'this kernel'), state: null }]
    : [];
  for (const node of nodes) {
    const state = states.find(s => s.node === node);
    groups.push({ key: node, name: node, state: state?.state.code ?? null, stateText: state?.text ?? null });
  }
  return groups;
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
