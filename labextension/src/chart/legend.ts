/**
 * The chart's legend: one row per plotted series (its value now, or at the cursor, and its peak) and one per overlay
 * line (its label), each a toggle button that hides or shows its line. Rows are a grid whose value columns have
 * fixed widths, so the values stay whole at any width; long names wrap instead of being cut.
 */

export type LineStyle = 'solid' | 'dashed' | 'dotted';

export interface LegendEntry {
  key: string;
  kind: 'series' | 'overlay';
  name: string;
  color: string;
  style: LineStyle;
  shown: boolean;
  /** More about the row, as its tooltip (an overlay's note). */
  note?: string;
}

export interface LegendValues {
  now: string;
  peak: string;
}

interface Row {
  entry: LegendEntry;
  button: HTMLButtonElement;
  swatch: HTMLElement;
  now?: HTMLElement;
  peak?: HTMLElement;
}

export class Legend {
  readonly node: HTMLElement;
  private _rows = new Map<string, Row>();
  private _signature = '';
  private _heading: HTMLElement;

  constructor(private _toggle: (entry: LegendEntry) => void) {
    this.node = el('div', 'mgenv-chart-legend');
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', 'Legend: click a line to hide or show it');
    this._heading = el('span', 'mgenv-chart-legend-now');
  }

  /** Rebuild the rows when the lines change; otherwise only colours and pressed states are brought up to date. */
  setEntries(entries: LegendEntry[]): void {
    const signature = entries.map(e => `${e.kind}\u0000${e.key}\u0000${e.name}\u0000${e.note ?? ''}`).join('\u0001');
    if (signature !== this._signature) {
      this._signature = signature;
      this._build(entries);
    }
    for (const entry of entries) {
      const row = this._rows.get(rowKey(entry));
      if (row) {
        row.entry = entry;
        paintSwatch(row.swatch, entry);
        row.button.setAttribute('aria-pressed', String(entry.shown));
        row.button.classList.toggle('mgenv-chart-legend-off', !entry.shown);
      }
    }
  }

  /** The series' values; `heading` names the value column ("now", or the cursor's time). */
  setValues(values: Map<string, LegendValues>, heading: string): void {
    setText(this._heading, heading);
    for (const row of this._rows.values()) {
      const value = values.get(row.entry.key);
      if (row.now && row.peak) {
        setText(row.now, value?.now ?? '–');
        setText(row.peak, value?.peak ?? '–');
      }
    }
  }

  private _build(entries: LegendEntry[]): void {
    this._rows.clear();
    this.node.replaceChildren();
    if (entries.some(e => e.kind === 'series')) {
      const head = el('div', 'mgenv-chart-legend-head');
      const peak = el('span', 'mgenv-chart-legend-peak');
      peak.textContent = 'peak';
      head.append(el('span', ''), el('span', ''), this._heading, peak);
      this.node.append(head);
    }
    for (const entry of entries) {
      const button = el('button', `mgenv-chart-legend-item mgenv-chart-legend-${entry.kind}`) as HTMLButtonElement;
      button.type = 'button';
      button.title = (entry.note ? `${entry.name}: ${entry.note}\n` : '') + 'Click to hide or show this line';
      const swatch = el('span', 'mgenv-chart-swatch');
      const name = el('span', 'mgenv-chart-legend-name');
      name.textContent = entry.name;
      button.append(swatch, name);
      const row: Row = { entry, button, swatch };
      if (entry.kind === 'series') {
        row.now = el('span', 'mgenv-chart-legend-now');
        row.peak = el('span', 'mgenv-chart-legend-peak');
        button.append(row.now, row.peak);
      }
      button.addEventListener('click', () => this._toggle(row.entry));
      this._rows.set(rowKey(entry), row);
      this.node.append(button);
    }
  }
}

function rowKey(entry: LegendEntry): string {
  return `${entry.kind}:${entry.key}`;
}

function paintSwatch(swatch: HTMLElement, entry: LegendEntry): void {
  // A line sample in the line's own colour and dash, so that the legend matches what is drawn.
  swatch.style.borderTopColor = entry.color;
  swatch.style.borderTopStyle = entry.style;
}

function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) {
    node.textContent = text;
  }
}

function el(tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  return node;
}
