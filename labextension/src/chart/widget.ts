/**
 * The anywidget module of mgenv_jupyter.MemoryChart: state (series, overlays, markers, states) comes as traits;
 * samples come as custom messages in batches; a newly opened view asks for the snapshot with a "hello".
 */
import 'uplot/dist/uPlot.min.css';
import './chart.css';

import { CHART_PROTOCOL_VERSION, ChartMessage } from '../protocol';
import { MemoryChart } from './memoryChart';

interface Model {
  get(name: string): any;
  on(event: string, callback: (...args: any[]) => void): void;
  off(event?: string | null, callback?: ((...args: any[]) => void) | null): void;
  send(content: unknown): void;
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const chart = new MemoryChart(el, { title: model.get('title'), height: model.get('height') });
  const onSeries = () => chart.setSeries(model.get('series'));
  const onOverlays = () => chart.setOverlays(model.get('overlays'));
  const onMarkers = () => chart.setMarkers(model.get('markers'));
  const onStates = () => chart.setStates(model.get('states'));
  const onTitle = () => chart.setTitle(model.get('title'));
  const onMessage = (message: ChartMessage) => {
    if (message.type === 'batch') {
      chart.append(message);
    } else if (message.type === 'snapshot') {
      chart.replace(message);
    }
  };
  onSeries();
  onOverlays();
  onMarkers();
  onStates();
  model.on('change:series', onSeries);
  model.on('change:overlays', onOverlays);
  model.on('change:markers', onMarkers);
  model.on('change:states', onStates);
  model.on('change:title', onTitle);
  model.on('msg:custom', onMessage);
  model.send({ type: 'hello', version: CHART_PROTOCOL_VERSION });
  (el as any).mgenvChart = chart; // lets browser tests and benchmarks reach the live chart
  return () => {
    model.off('change:series', onSeries);
    model.off('change:overlays', onOverlays);
    model.off('change:markers', onMarkers);
    model.off('change:states', onStates);
    model.off('change:title', onTitle);
    model.off('msg:custom', onMessage);
    chart.destroy();
  };
}

export default { render };
