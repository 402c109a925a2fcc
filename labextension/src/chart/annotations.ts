/**
 * What the chart draws besides its series: the overlay lines (device total, DTR threshold, Paddle's first chunk) with
 * their labels in a gutter right of the plot (a line far above the data shown, such as the device's total over a small
 * curve, only as a label at the gutter's top, with an arrow), cell markers with their labels in a strip above it (one
 * line for markers too close to tell apart), and the time under the cursor. Lines go on uPlot's canvas; labels are HTML in a layer over it (themeable, with tooltips, and
 * measurable by tests), placed by `placement.ts` so that no label covers another or the data.
 */
import uPlot from 'uplot';

import { CellInfo, MarkInfo, OverlayInfo, OverlayKind } from '../protocol';
import { formatBytes } from './format';
import { LineStyle } from './legend';
import { fitGutter, groupMarkers, Gutter, stackLabels } from './placement';
import { ChartTheme } from './theme';
import { ENGLISH, Translation } from './text';
import { formatClock, formatElapsed } from './timeAxis';

/** Height of the strip above the plot that holds cell marker labels. */
export const MARKER_STRIP = 16;
const LINE_HEIGHT = 13;
const LABEL_PADDING = 2;

export const OVERLAY_STYLE: Record<OverlayKind, LineStyle> = {
  total: 'solid',
  dtr_threshold: 'dashed',
  paddle_cap: 'dotted',
  cell_peak: 'dotted',
  oom_request: 'dashed'
};
const DASH: Record<LineStyle, number[]> = { solid: [], dashed: [6, 3], dotted: [2, 3] };

export class Annotations {
  private _layer: HTMLElement;
  private _overlayLabels = new Map<string, HTMLElement>();
  private _markerLabels: HTMLElement[] = [];
  private _markLabels: HTMLElement[] = [];
  private _cursor: HTMLElement;

  constructor(
    plot: uPlot,
    private _trans: Translation = ENGLISH
  ) {
    this._layer = div('mgenv-chart-annotations');
    this._cursor = div('mgenv-chart-cursor-time');
    this._cursor.hidden = true;
    this._layer.append(this._cursor);
    // The layer covers the plot's wrapper, so label positions are uPlot's CSS pixel positions.
    (plot.over.parentElement ?? plot.root).append(this._layer);
  }

  /**
   * Draw the overlay lines and cell markers on the canvas and place their labels (uPlot's draw hook); `gutter` is
   * what `overlayGutter` gave for these overlays.
   */
  draw(
    u: uPlot,
    overlays: OverlayInfo[],
    markers: CellInfo[],
    theme: ChartTheme,
    gutter: Gutter,
    marks: MarkInfo[] = [],
    above: ReadonlySet<string> = new Set()
  ): void {
    // CSS pixels from uPlot's own numbers: reading the DOM's boxes here would force a layout on every redraw.
    const ratio = uPlot.pxRatio;
    const { left: plotLeft, top: plotTop, width: plotWidth, height: plotHeight } = cssBox(u);
    const ctx = u.ctx;
    ctx.save();
    ctx.lineWidth = Math.max(1, ratio);

    // Overlay lines across the plot, their labels stacked in the gutter beside them; those above the range only as
    // labels at the gutter's top (they come first there, stacked downwards).
    const pinned = overlays.filter(o => above.has(o.key)).map(o => ({ overlay: o, y: -LINE_HEIGHT, pinned: true }));
    const drawn = overlays
      .filter(o => !above.has(o.key))
      .map(o => ({ overlay: o, y: u.valToPos(o.bytes, 'y'), pinned: false }))
      .filter(({ y }) => isFinite(y) && y >= -0.5 && y <= plotHeight + 0.5);
    const lines = [...pinned, ...drawn];
    for (const { overlay, y } of drawn) {
      const at = crisp((plotTop + y) * ratio);
      ctx.strokeStyle = theme.overlays[overlay.kind];
      ctx.setLineDash(DASH[OVERLAY_STYLE[overlay.kind]].map(d => d * ratio));
      ctx.beginPath();
      ctx.moveTo(plotLeft * ratio, at);
      ctx.lineTo((plotLeft + plotWidth) * ratio, at);
      ctx.stroke();
    }
    const stacked = stackLabels(
      lines.map(({ overlay, y }) => ({
        key: overlay.key,
        y: plotTop + y,
        height: (gutter.twoLines.has(overlay.key) ? 2 : 1) * LINE_HEIGHT + 2
      })),
      plotTop,
      plotTop + plotHeight
    );
    const gutterLeft = plotLeft + plotWidth;
    const gutterWidth = u.width - gutterLeft;
    const shown = new Set<string>();
    for (const place of stacked) {
      const { overlay, y, pinned: isPinned } = lines.find(l => l.overlay.key === place.key)!;
      shown.add(overlay.key);
      const label = this._overlayLabel(overlay, isPinned);
      label.classList.toggle('mgenv-chart-two-lines', gutter.twoLines.has(overlay.key));
      label.style.color = theme.overlays[overlay.kind];
      place_(label, gutterLeft + 4, place.top, Math.max(0, gutterWidth - 6), place.height);
      // A label moved off its line is tied back to it.
      const middle = place.top + place.height / 2;
      if (!isPinned && Math.abs(middle - (plotTop + y)) > 2) {
        ctx.strokeStyle = theme.overlays[overlay.kind];
        ctx.setLineDash([]);
        ctx.beginPath();
        ctx.moveTo(gutterLeft * ratio, (plotTop + y) * ratio);
        ctx.lineTo((gutterLeft + 3) * ratio, middle * ratio);
        ctx.stroke();
      }
    }
    for (const [key, label] of this._overlayLabels) {
      if (!shown.has(key)) {
        label.remove();
        this._overlayLabels.delete(key);
      }
    }

    // Cell markers: labels in the strip above, merged where they would touch, and one thin line per label, so that
    // markers stay apart however many cells ran (a line for each became a dark band).
    const visible = markers
      .map(m => ({ cell: m.cell, x: u.valToPos(m.start, 'x'), marker: m }))
      .filter(({ x }) => isFinite(x) && x >= 0 && x <= plotWidth);
    const groups = groupMarkers(
      visible.map(({ cell, x }) => ({ cell, x: plotLeft + x })),
      text => textWidth(text, theme.font) + LABEL_PADDING * 2,
      0,
      u.width
    );
    ctx.strokeStyle = theme.marker;
    ctx.setLineDash([]);
    for (const group of groups) {
      const at = crisp(group.x * ratio);
      ctx.beginPath();
      ctx.moveTo(at, (plotTop - 3) * ratio);
      ctx.lineTo(at, (plotTop + plotHeight) * ratio);
      ctx.stroke();
    }
    groups.forEach((group, i) => {
      const label = this._markerLabels[i] ?? this._newMarkerLabel();
      setText(label, group.text);
      label.title = group.cells
        .map(cell => {
          const marker = visible.find(v => v.cell === cell)!.marker;
          const trans = this._trans;
          const took =
            marker.duration !== null
              ? trans._p('memory chart', ', %1 s', marker.duration.toFixed(1))
              : trans._p('memory chart', ', running');
          const failed = marker.ok === false ? trans._p('memory chart', ', failed') : '';
          return trans._p('memory chart', 'cell [%1] at %2', cell, formatClock(marker.start)) + took + failed;
        })
        .join('\n');
      label.style.color = theme.muted;
      place_(label, group.left, Math.max(0, plotTop - MARKER_STRIP), group.width, MARKER_STRIP - 3);
    });
    for (const label of this._markerLabels.splice(groups.length)) {
      label.remove();
    }
    this._drawMarks(u, marks, theme, groups, { plotLeft, plotTop, plotWidth, plotHeight });
    ctx.restore();
  }

  /** Show the wall-clock time and the time since the kernel started under the cursor; null hides it. */
  showCursor(u: uPlot, time: number | null, origin: number): void {
    if (time === null || u.cursor.left === undefined || u.cursor.left < 0) {
      this._cursor.hidden = true;
      return;
    }
    this._cursor.hidden = false;
    const elapsed = formatElapsed(time - origin, 0.1);
    setText(this._cursor, this._trans._p('memory chart', '%1 (%2 since start)', formatClock(time, true), elapsed));
    const box = cssBox(u);
    const width = this._cursor.offsetWidth;
    const left = Math.max(0, Math.min(box.left + u.cursor.left - width / 2, u.width - width));
    this._cursor.style.left = `${left}px`;
    this._cursor.style.top = `${box.top + box.height + 2}px`;
  }

  destroy(): void {
    this._layer.remove();
  }

  /** An overlay's label: its short name and size; `pinned`, above the data shown, with an arrow pointing up. */
  private _overlayLabel(overlay: OverlayInfo, pinned: boolean): HTMLElement {
    let label = this._overlayLabels.get(overlay.key);
    if (!label) {
      label = div('mgenv-chart-overlay-label');
      label.append(span('mgenv-chart-overlay-name'), span('mgenv-chart-overlay-value'));
      this._overlayLabels.set(overlay.key, label);
      this._layer.append(label);
    }
    label.classList.toggle('mgenv-chart-overlay-above', pinned);
    const [name, value] = Array.from(label.children) as HTMLElement[];
    setText(name, pinned ? `↑ ${overlay.short}` : overlay.short);
    setText(value, formatBytes(overlay.bytes));
    const node = overlay.node !== null ? `${overlay.node} ` : '';
    const where = pinned ? `\n${this._trans._p('memory chart', 'Above the data shown: not drawn, so the data keeps the height')}` : '';
    label.title = `${node}${overlay.label}: ${overlay.note}${where}`;
    return label;
  }

  /**
   * Moments that are not cells (memory given back): a dashed line across the plot in the mark's colour, its label in
   * the strip above, after the cell labels it would touch; one that fits nowhere keeps its line and its tooltip.
   */
  private _drawMarks(
    u: uPlot,
    marks: MarkInfo[],
    theme: ChartTheme,
    taken: { left: number; width: number }[],
    box: { plotLeft: number; plotTop: number; plotWidth: number; plotHeight: number }
  ): void {
    const ratio = uPlot.pxRatio;
    const ctx = u.ctx;
    const placed = taken.map(group => ({ left: group.left, width: group.width }));
    const shown = marks
      .map(mark => ({ mark, x: u.valToPos(mark.time, 'x') }))
      .filter(({ x }) => isFinite(x) && x >= 0 && x <= box.plotWidth);
    shown.forEach(({ mark, x }, i) => {
      const at = crisp((box.plotLeft + x) * ratio);
      ctx.strokeStyle = theme.marks[mark.kind];
      ctx.setLineDash([4 * ratio, 2 * ratio]);
      ctx.beginPath();
      ctx.moveTo(at, (box.plotTop - 3) * ratio);
      ctx.lineTo(at, (box.plotTop + box.plotHeight) * ratio);
      ctx.stroke();
      const label = this._markLabels[i] ?? this._newMarkLabel();
      setText(label, mark.label);
      label.title = `${mark.note} (${formatClock(mark.time)})`;
      label.style.color = theme.marks[mark.kind];
      const width = textWidth(mark.label, theme.font) + LABEL_PADDING * 2;
      let left = Math.max(0, Math.min(box.plotLeft + x + 3, u.width - width));
      for (const other of [...placed].sort((a, b) => a.left - b.left)) {
        if (left < other.left + other.width + 4 && other.left < left + width + 4) {
          left = other.left + other.width + 4;
        }
      }
      label.hidden = left + width > u.width;
      placed.push({ left, width });
      place_(label, left, Math.max(0, box.plotTop - MARKER_STRIP), width, MARKER_STRIP - 3);
    });
    for (const label of this._markLabels.splice(shown.length)) {
      label.remove();
    }
  }

  private _newMarkLabel(): HTMLElement {
    const label = div('mgenv-chart-mark-label');
    this._markLabels.push(label);
    this._layer.append(label);
    return label;
  }

  private _newMarkerLabel(): HTMLElement {
    const label = div('mgenv-chart-marker-label');
    this._markerLabels.push(label);
    this._layer.append(label);
    return label;
  }
}

/**
 * The gutter right of the plot for these overlay labels at this chart width: at most 30% of it (but at least 64 px),
 * a label on two lines (name over size) when one does not fit. uPlot takes its width as its right padding.
 */
export function overlayGutter(overlays: OverlayInfo[], chartWidth: number, theme: ChartTheme): Gutter {
  return fitGutter(
    // Measured with the arrow a label above the data shown carries: which are above changes with the data.
    overlays.map(o => ({ key: o.key, name: `↑ ${o.short}`, value: formatBytes(o.bytes) })),
    Math.max(64, Math.round(chartWidth * 0.3)),
    text => textWidth(text, theme.font),
    LABEL_PADDING * 2 + 8
  );
}

let measurer: CanvasRenderingContext2D | null | undefined;

/** A text's width in CSS pixels in `font`, measured on a canvas of our own (no layout involved). */
export function textWidth(text: string, font: string): number {
  if (measurer === undefined) {
    measurer = document.createElement('canvas').getContext('2d');
  }
  if (!measurer) {
    return text.length * 6.5; // no canvas (a test DOM): a fair estimate at 11 px
  }
  measurer.font = font;
  return measurer.measureText(text).width;
}

/** A one-pixel line's coordinate on a pixel's middle, so it is drawn sharp rather than smeared over two. */
function crisp(canvasPixels: number): number {
  return Math.round(canvasPixels - 0.5) + 0.5;
}

/** The plotting area in CSS pixels, relative to the chart's wrapper (where the labels' layer is). */
export function cssBox(u: uPlot): { left: number; top: number; width: number; height: number } {
  const ratio = uPlot.pxRatio;
  return { left: u.bbox.left / ratio, top: u.bbox.top / ratio, width: u.bbox.width / ratio, height: u.bbox.height / ratio };
}

function place_(node: HTMLElement, left: number, top: number, width: number, height: number): void {
  const style = node.style;
  const values: [keyof CSSStyleDeclaration & string, string][] = [
    ['left', `${Math.round(left)}px`],
    ['top', `${Math.round(top)}px`],
    ['width', `${Math.ceil(width)}px`],
    ['height', `${Math.round(height)}px`]
  ];
  for (const [name, value] of values) {
    if (style.getPropertyValue(name) !== value) {
      style.setProperty(name, value);
    }
  }
}

function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) {
    node.textContent = text;
  }
}

function div(className: string): HTMLElement {
  const node = document.createElement('div');
  node.className = className;
  return node;
}

function span(className: string): HTMLElement {
  const node = document.createElement('span');
  node.className = className;
  return node;
}
