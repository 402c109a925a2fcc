/**
 * The chart's legend: one row per plotted series (its value now, or at the cursor, and its peak) and one per overlay
 * line (its label), each a toggle button that hides or shows its line. Rows are a grid whose value columns have
 * fixed widths, so the values stay whole at any width; long names wrap instead of being cut.
 *
 * With a cluster's nodes in the chart, series rows come in groups, one per node (and one for the kernel's own
 * machine), each under a heading that names the node and says its state: "ok", "starting", or "lost" in the error
 * colour with the reason in its tooltip, its rows then greyed.
 */

import { STATE_CODES } from '../protocol';
import { ENGLISH, Translation } from './text';

export type LineStyle = 'solid' | 'dashed' | 'dotted';

export interface LegendEntry {
  key: string;
  kind: 'series' | 'overlay';
  /** The row's name, short where the legend says the rest once (its caption, a group's heading). */
  name: string;
  /** The line's whole name (device, node, simulation), for the row's tooltip; `name` when absent. */
  whole?: string;
  color: string;
  style: LineStyle;
  shown: boolean;
  /** More about the row, as its tooltip (an overlay's note). */
  note?: string;
  /** The group (`LegendGroup.key`) the row is listed under (a node's series and its total); without groups, none. */
  group?: string;
}

/** A heading over rows (series, then overlay lines): a cluster node, or the kernel's own machine. */
export interface LegendGroup {
  key: string;
  name: string;
  /** The node's state's code ("ok", "starting", "lost": SourceState.state.code); null: none to show. */
  state: string | null;
  /** The same state in the kernel's words and language, as shown (SourceState.text). */
  stateText?: string | null;
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
  private _groups = new Map<string, { group: LegendGroup; heading: HTMLElement; state: HTMLElement }>();
  private _signature = '';
  private _heading: HTMLElement;
  private _caption: HTMLElement;

  constructor(
    private _toggle: (entry: LegendEntry) => void,
    private _trans: Translation = ENGLISH
  ) {
    this.node = el('div', 'mgenv-chart-legend');
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', this._trans._p('memory chart', 'Legend: click a line to hide or show it'));
    this._heading = el('span', 'mgenv-chart-legend-now');
    this._caption = el('span', 'mgenv-chart-legend-caption');
  }

  /** What every row shares, said once over them ("gpu0 (simulated)"); "" for nothing. */
  setCaption(text: string): void {
    setText(this._caption, text);
    if (this._caption.title !== text) {
      this._caption.title = text;
    }
  }

  /**
   * Rebuild the rows when the lines or groups change; otherwise only colours, pressed states and the groups' states
   * are brought up to date.
   */
  setEntries(entries: LegendEntry[], groups: LegendGroup[] = []): void {
    const signature =
      entries
        .map(e => `${e.kind}\u0000${e.key}\u0000${e.name}\u0000${e.whole ?? ''}\u0000${e.note ?? ''}\u0000${e.group ?? ''}`)
        .join('\u0001') +
      '\u0002' +
      groups.map(g => `${g.key}\u0000${g.name}`).join('\u0001');
    if (signature !== this._signature) {
      this._signature = signature;
      this._build(entries, groups);
    }
    for (const group of groups) {
      const shown = this._groups.get(group.key);
      if (shown) {
        shown.group = group;
        paintGroupState(shown.heading, shown.state, group, this._trans);
      }
    }
    const lost = new Set(groups.filter(g => isLost(g.state)).map(g => g.key));
    for (const entry of entries) {
      const row = this._rows.get(rowKey(entry));
      if (row) {
        row.entry = entry;
        row.button.classList.toggle('mgenv-chart-legend-stale', entry.group !== undefined && lost.has(entry.group));
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

  private _build(entries: LegendEntry[], groups: LegendGroup[]): void {
    this._rows.clear();
    this._groups.clear();
    this.node.replaceChildren();
    if (entries.some(e => e.kind === 'series')) {
      const head = el('div', 'mgenv-chart-legend-head');
      const peak = el('span', 'mgenv-chart-legend-peak');
      peak.textContent = this._trans._p('memory chart', 'peak');
      head.append(this._caption, this._heading, peak);
      this.node.append(head);
    }
    for (const entry of inGroupOrder(entries, groups)) {
      const group = entry.group !== undefined ? groups.find(g => g.key === entry.group) : undefined;
      if (group && !this._groups.has(group.key)) {
        const heading = el('div', 'mgenv-chart-legend-group');
        const name = el('span', 'mgenv-chart-legend-group-name');
        name.textContent = group.name;
        const state = el('span', 'mgenv-chart-legend-group-state');
        heading.append(name, state);
        this._groups.set(group.key, { group, heading, state });
        this.node.append(heading);
      }
      const button = el('button', `mgenv-chart-legend-item mgenv-chart-legend-${entry.kind}`) as HTMLButtonElement;
      button.type = 'button';
      const toggle = this._trans._p('memory chart', 'Click to hide or show this line');
      const whole = entry.whole ?? entry.name;
      button.title = (entry.note ? `${whole}: ${entry.note}` : whole) + '\n' + toggle;
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

/** Rows by group, in the groups' order (a group's series, then its overlay lines), then the rows of no group. */
function inGroupOrder(entries: LegendEntry[], groups: LegendGroup[]): LegendEntry[] {
  if (!groups.length) {
    return entries;
  }
  const known = new Set(groups.map(g => g.key));
  const inGroup = (e: LegendEntry) => e.group !== undefined && known.has(e.group);
  const byKind = (list: LegendEntry[]) => [
    ...list.filter(e => e.kind === 'series'),
    ...list.filter(e => e.kind !== 'series')
  ];
  return [...groups.flatMap(g => byKind(entries.filter(e => e.group === g.key))), ...byKind(entries.filter(e => !inGroup(e)))];
}

/** "lost" (its reason in the tooltip) in the error colour, another state as it is, cut with its tooltip. */
function paintGroupState(heading: HTMLElement, node: HTMLElement, group: LegendGroup, trans: Translation): void {
  const state = group.state ?? '';
  const shown = group.stateText ?? state;
  const lost = isLost(group.state);
  heading.classList.toggle('mgenv-chart-legend-group-lost', lost);
  const ok = state === STATE_CODES.OK;
  heading.classList.toggle('mgenv-chart-legend-group-ok', ok);
  setText(node, lost ? trans._p('memory chart', 'lost') : ok ? trans._p('memory chart', 'ok') : shown);
  const title = state ? `${group.name}: ${shown}` : group.name;
  if (heading.title !== title) {
    heading.title = title;
  }
}

/** Whether a node's state code says it is lost. */
export function isLost(code: string | null): boolean {
  return code === STATE_CODES.LOST;
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
