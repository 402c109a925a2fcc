/**
 * The live memory section of the sidebar: the same uPlot MemoryChart as the inline widget, fed with the kernel's
 * memory.batch / memory.snapshot messages. The stream is wanted only while the chart can be seen (SeenSection), and
 * `wantedChanged` says so, so the kernel stops sampling for a hidden chart. The accordion's title names the section.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { MemoryChart } from '../chart/memoryChart';
import { MemoryMessage } from '../protocol';
import { el } from '../shared/dom';
import { SeenSection } from './seenSection';
import { Translation } from './text';

export class MemoryView extends SeenSection {
  private _chart: MemoryChart;
  private _body: HTMLElement;
  private _wantedChanged = new Signal<this, boolean>(this);

  constructor(private _trans: Translation) {
    super();
    this.addClass('mgenv-sb-memory');
    this.node.setAttribute('aria-label', this._trans.__('Live GPU memory'));
    this._body = el('div', 'mgenv-sb-memory-body');
    this.node.append(this._body);
    this._chart = this._newChart();
  }

  get wantedChanged(): ISignal<this, boolean> {
    return this._wantedChanged;
  }

  get wanted(): boolean {
    return this.seen;
  }

  get chart(): MemoryChart {
    return this._chart;
  }

  receive(message: MemoryMessage): void {
    this._chart.receive(message);
  }

  /** Start over (another kernel, or the same one restarted). */
  reset(): void {
    this._chart.destroy();
    this._chart = this._newChart();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    super.dispose(); // says the stream is no longer wanted first
    this._chart.destroy();
  }

  protected onSeenChanged(seen: boolean): void {
    this._wantedChanged.emit(seen);
  }

  private _newChart(): MemoryChart {
    this._body.replaceChildren();
    const root = el('div', 'mgenv-sb-chart');
    this._body.append(root);
    // The accordion's title already names it; the chart's own header keeps only its CSV button. It fills the
    // section, whatever height the user drags it to.
    const chart = new MemoryChart(root, { title: '', height: 'fill', maxPoints: 20_000, trans: this._trans });
    (root as any).mgenvChart = chart; // lets browser tests and benchmarks reach the live chart
    return chart;
  }
}
