import uPlot from 'uplot';

import { SweepFigure, SweepPointInfo } from '../protocol';
import { BYTE_INCRS, formatBytes, formatByteTicks } from '../chart/format';
import { ENGLISH, Translation } from '../chart/text';
import { ChartTheme, readTheme, watchTheme } from '../chart/theme';
import { fitY } from '../chart/view';

/** Each panel's plot height in pixels; the panels sit side by side where there is room, one above another where not. */
const PLOT_HEIGHT = 200;
const MIN_PANEL = 240;
/** About how wide a character of the chart's 11 px font is: what a setting's label may take of its slot. */
const CHAR_PX = 6.2;

/**
 * A sweep's figure, as the DTR seed draws its own: the cell's time and the points' peak memory against the setting
 * (failed points marked with a cross and their outcome, the budget line on the peak, the recommended point ringed),
 * and beside them each point's memory while its cell ran, one line a point. Drawn with uPlot and the memory chart's
 * theme, axes and size format, in the words the kernel sent (its language); the chart's own few words go through
 * `trans`. It decides nothing: which point is best, which failed and what the budget is all come from the kernel.
 */
export class SweepChart {
  readonly root: HTMLElement;
  private _figure: SweepFigure | null = null;
  private _plots: uPlot[] = [];
  private _status: HTMLElement;
  private _title: HTMLElement;
  private _panels: HTMLElement;
  private _failures: HTMLElement;
  private _theme: ChartTheme | null = null;
  private _resizeObserver: ResizeObserver | null = null;
  private _unwatchTheme: () => void;
  private _width = 0;
  private _trans: Translation;

  constructor(root: HTMLElement, trans: Translation = ENGLISH) {
    this.root = root;
    this._trans = trans;
    root.classList.add('mgenv-chart', 'mgenv-sweep-chart');
    this._title = el('div', 'mgenv-chart-title');
    this._status = el('div', 'mgenv-sweep-status');
    this._panels = el('div', 'mgenv-sweep-panels');
    this._failures = el('ul', 'mgenv-sweep-failures');
    root.append(this._title, this._status, this._panels, this._failures);
    if (typeof ResizeObserver !== 'undefined') {
      this._resizeObserver = new ResizeObserver(() => {
        const width = this._panels.clientWidth;
        if (Math.abs(width - this._width) > 2) {
          this._width = width;
          this._draw();
        }
      });
      this._resizeObserver.observe(this._panels);
    }
    this._unwatchTheme = watchTheme(() => {
      this._theme = null;
      this._draw();
    });
  }

  get figure(): SweepFigure | null {
    return this._figure;
  }

  /** Show `figure` (the kernel sends a new one as each point ends, and the final one at the end). */
  render(figure: SweepFigure): void {
    this._figure = figure;
    this._title.textContent = figure.title;
    this._status.textContent = figure.status;
    this._status.classList.toggle('mgenv-sweep-running', figure.running);
    this._renderFailures(figure);
    this._draw();
  }

  /** Under the panels, each point that failed or did not finish, with its reason in the kernel's words. */
  private _renderFailures(figure: SweepFigure): void {
    const items = figure.points
      .filter(p => p.failed || p.outcome === 'not_run')
      .map(p => {
        const item = el('li', `mgenv-sweep-failure mgenv-sweep-failure-${p.outcome}`);
        item.textContent = `✕ ${p.label}: ${p.outcome_label}${p.note ? ` — ${p.note}` : ''}`;
        return item;
      });
    this._failures.replaceChildren(...items);
  }

  destroy(): void {
    this._resizeObserver?.disconnect();
    this._unwatchTheme();
    this._clear();
  }

  private get theme(): ChartTheme {
    if (!this._theme) {
      this._theme = readTheme(this.root);
    }
    return this._theme;
  }

  private _clear(): void {
    for (const plot of this._plots) {
      plot.destroy();
    }
    this._plots = [];
    this._panels.replaceChildren();
  }

  private _draw(): void {
    const figure = this._figure;
    this._clear();
    if (!figure) {
      return;
    }
    // Not laid out (not yet attached, or scrolled out of a windowed notebook, whose hidden cells have no size): the
    // resize observer draws once it has a width; drawing now would size the panels for a width it does not have.
    const width = this._panels.clientWidth;
    this._width = width;
    if (!width) {
      return;
    }
    const columns = Math.max(1, Math.min(3, Math.floor(width / MIN_PANEL)));
    const panelWidth = Math.floor(width / columns) - 8;
    this._panels.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
    const seconds = figure.points.map(p => p.seconds);
    const peaks = figure.points.map(p => p.peak);
    this._plots.push(
      this._categoryPlot(figure, figure.time_title, seconds, panelWidth, false),
      this._categoryPlot(figure, figure.peak_title, peaks, panelWidth, true),
      this._timelinePlot(figure, panelWidth)
    );
  }

  private _panel(title: string, kind: string): HTMLElement {
    const panel = el('div', `mgenv-sweep-panel mgenv-sweep-${kind}`);
    const heading = el('div', 'mgenv-sweep-panel-title');
    heading.textContent = title;
    panel.append(heading);
    this._panels.append(panel);
    return panel;
  }

  private _axis(): Partial<uPlot.Axis> {
    const theme = this.theme;
    return {
      font: theme.font,
      labelFont: theme.font,
      stroke: theme.muted,
      grid: { stroke: theme.grid, width: 1 },
      ticks: { stroke: theme.grid, width: 1, size: 4 }
    };
  }

  /** Time or peak against the setting: one x position a point, labelled with its value. */
  private _categoryPlot(
    figure: SweepFigure,
    title: string,
    values: (number | null)[],
    width: number,
    bytes: boolean
  ): uPlot {
    const panel = this._panel(title, bytes ? 'peak' : 'time');
    const theme = this.theme;
    const xs = figure.points.map((_, i) => i);
    const shown = values.map((v, i) => (figure.points[i].failed || figure.points[i].outcome === 'not_run' ? null : v));
    const measured = values.filter((v): v is number => v !== null);
    // A budget far above the points (a host's 22 GiB over points of 50-600 MiB) is named at the top, as the memory
    // chart names a device's total, instead of flattening them: the same rule, fitY's.
    const budgetGiven = bytes ? figure.budget : null;
    const fit = fitY(measured.length ? Math.max(...measured) : null, budgetGiven === null ? [] : [budgetGiven]);
    const budgetAbove = budgetGiven !== null && measured.length > 0 && fit.above.length > 0;
    const budget = budgetAbove ? null : budgetGiven;
    const high = Math.max(0, ...measured, budget ?? 0);
    const slot = (width - (bytes ? 62 : 50)) / Math.max(1, figure.points.length);
    const [every, room] = labelRoom(figure.points.length, slot);
    const opts: uPlot.Options = {
      width,
      height: PLOT_HEIGHT,
      legend: { show: false },
      cursor: { show: false },
      padding: [8, 8, 0, 0],
      scales: {
        x: { time: false, range: () => [-0.5, Math.max(0.5, figure.points.length - 0.5)] },
        y: { range: () => [0, high > 0 ? high * 1.12 : 1] }
      },
      axes: [
        {
          ...this._axis(),
          splits: () => xs,
          values: () => figure.points.map((p, i) => (i % every === 0 ? shorten(p.label, room) : '')),
          label: shorten(figure.axis, 40),
          labelSize: 14,
          size: 34
        },
        bytes
          ? {
              ...this._axis(),
              incrs: BYTE_INCRS,
              values: (_u, ticks, _i, _space, step) => formatByteTicks(ticks, step),
              size: 62
            }
          : { ...this._axis(), label: figure.seconds_label, labelSize: 14, size: 50 }
      ],
      series: [
        {},
        {
          label: title,
          stroke: theme.series[0],
          width: 1.5,
          spanGaps: false, // a failed point breaks the line, as a failed run breaks the seed's curve
          points: { show: true, size: 7, fill: theme.series[0] },
          value: (_u: uPlot, v: number | null) => (bytes ? formatBytes(v) : v === null ? '–' : v.toPrecision(3))
        }
      ],
      hooks: {
        draw: [
          u =>
            this._annotate(u, figure.points, values, budget, figure.budget_label, budgetAbove, bytes, room)
        ]
      }
    };
    const plot = new uPlot(opts, [xs, shown], panel);
    (plot.root as HTMLElement).dataset.panel = bytes ? 'peak' : 'time';
    return plot;
  }

  /** The marks uPlot does not draw: crosses and outcome words for failed points, the budget line, the best ring. */
  private _annotate(
    u: uPlot,
    points: SweepPointInfo[],
    values: (number | null)[],
    budget: number | null,
    budgetLabel: string,
    budgetAbove: boolean,
    bytes: boolean,
    room: number
  ): void {
    const theme = this.theme;
    const ctx = u.ctx;
    const ratio = devicePixelRatio || 1;
    ctx.save();
    ctx.font = `${Math.round(10 * ratio)}px ${theme.font.split('px ')[1] ?? 'sans-serif'}`;
    if (budget !== null) {
      const y = u.valToPos(budget, 'y', true);
      ctx.strokeStyle = theme.overlays.oom_request;
      ctx.setLineDash([6 * ratio, 3 * ratio]);
      ctx.lineWidth = 1.5 * ratio;
      ctx.beginPath();
      ctx.moveTo(u.bbox.left, y);
      ctx.lineTo(u.bbox.left + u.bbox.width, y);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.textAlign = 'left'; // the points rise to the right: the label stays clear of them on the left
      // On the page's background: points near the line (a largest-fit search's, which straddle it) stay readable.
      const box = ctx.measureText(budgetLabel).width;
      ctx.fillStyle = theme.background;
      ctx.globalAlpha = 0.85;
      ctx.fillRect(u.bbox.left + 2 * ratio, y - 15 * ratio, box + 4 * ratio, 13 * ratio);
      ctx.globalAlpha = 1;
      ctx.fillStyle = theme.overlays.oom_request;
      ctx.fillText(budgetLabel, u.bbox.left + 4 * ratio, y - 4 * ratio);
    } else if (budgetAbove) {
      ctx.fillStyle = theme.overlays.oom_request;
      ctx.textAlign = 'right';
      ctx.fillText(`↑ ${budgetLabel}`, u.bbox.left + u.bbox.width, u.bbox.top + 10 * ratio);
    }
    const floor = u.bbox.top + u.bbox.height - 10 * ratio;
    points.forEach((point, i) => {
      const x = u.valToPos(i, 'x', true);
      const value = values[i];
      if (point.outcome === 'not_run') {
        // Interrupted: a hollow dashed mark where it had got to, never a result.
        ctx.strokeStyle = theme.muted;
        ctx.lineWidth = 1.5 * ratio;
        ctx.setLineDash([2 * ratio, 2 * ratio]);
        ctx.beginPath();
        ctx.arc(x, value !== null ? u.valToPos(value, 'y', true) : floor, 5 * ratio, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = theme.muted;
        ctx.textAlign = 'center';
        ctx.fillText(shorten(point.outcome_label, room + 2), x, floor - 10 * ratio);
      } else if (point.failed) {
        // A time-out ran past its limit: crossed at the top under an arrow, never drawn at 0 s.
        const timedOut = point.outcome === 'timeout' && !bytes;
        const top = u.bbox.top + 14 * ratio;
        const y = timedOut ? top : value !== null ? u.valToPos(value, 'y', true) : floor;
        const r = 5 * ratio;
        ctx.strokeStyle = theme.overlays.oom_request;
        ctx.lineWidth = 2 * ratio;
        ctx.beginPath();
        ctx.moveTo(x - r, y - r);
        ctx.lineTo(x + r, y + r);
        ctx.moveTo(x - r, y + r);
        ctx.lineTo(x + r, y - r);
        ctx.stroke();
        ctx.fillStyle = theme.overlays.oom_request;
        ctx.textAlign = 'center';
        const label = shorten(point.outcome_label, room + 2);
        ctx.fillText(timedOut ? `↑ ${label}` : label, x, timedOut ? y + 16 * ratio : y - 8 * ratio);
      } else if (point.best && value !== null) {
        ctx.strokeStyle = theme.overlays.paddle_cap;
        ctx.lineWidth = 2.5 * ratio;
        ctx.beginPath();
        ctx.arc(x, u.valToPos(value, 'y', true), 8 * ratio, 0, 2 * Math.PI);
        ctx.stroke();
      }
    });
    ctx.restore();
  }

  /** Each point's memory while its cell ran, on one time axis (seconds since its cell began). */
  private _timelinePlot(figure: SweepFigure, width: number): uPlot {
    const panel = this._panel(figure.timeline_title, 'timeline');
    const theme = this.theme;
    const times = Array.from(new Set(figure.timelines.flatMap(line => line.t))).sort((a, b) => a - b);
    const at = new Map(times.map((t, i) => [t, i]));
    const columns = figure.timelines.map(line => {
      const column: (number | null)[] = new Array(times.length).fill(null);
      line.t.forEach((t, i) => {
        column[at.get(t) ?? 0] = line.bytes[i];
      });
      return column;
    });
    const opts: uPlot.Options = {
      width,
      height: PLOT_HEIGHT,
      legend: { show: true, live: false },
      cursor: { show: false },
      padding: [8, 8, 0, 0],
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { ...this._axis(), label: figure.elapsed_label, labelSize: 14, size: 34 },
        {
          ...this._axis(),
          incrs: BYTE_INCRS,
          values: (_u, ticks, _i, _space, step) => formatByteTicks(ticks, step),
          size: 62
        }
      ],
      series: [
        {},
        ...figure.timelines.map((line, i) => ({
          label: shorten(line.label, 24),
          stroke: theme.series[i % theme.series.length],
          width: 1.3,
          spanGaps: true,
          points: { show: false }
        }))
      ]
    };
    const plot = new uPlot(opts, [times, ...columns] as uPlot.AlignedData, panel);
    (plot.root as HTMLElement).dataset.panel = 'timeline';
    if (!figure.timelines.length) {
      const empty = el('div', 'mgenv-sweep-empty');
      empty.textContent = this._trans._p('sweep chart', 'no point has finished yet');
      panel.append(empty);
    }
    return plot;
  }
}

/**
 * How the setting axis labels `count` points `slot` pixels apart: every k-th one, each cut to this many characters,
 * so that no two labels overlap however many points a grid has.
 */
export function labelRoom(count: number, slot: number): [number, number] {
  const chars = Math.floor(slot / CHAR_PX);
  let every = 1;
  while (chars * every < 4 && every < count) {
    every *= 2;
  }
  return [every, Math.max(4, chars * every - 1)];
}

function shorten(text: string, most = 14): string {
  return text.length <= most ? text : `${text.slice(0, most - 1)}…`;
}

function el(tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}
