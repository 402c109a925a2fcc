/**
 * The anywidget module of mgenv_jupyter.MemoryChart. Everything (series, sources, overlays, rows, cells) comes as
 * custom messages in the kernel's batch format; a newly opened view asks for the snapshot with a "memory.hello".
 */
import 'uplot/dist/uPlot.min.css';
import './chart.css';

import { MemoryHello, MemoryMessage } from '../protocol';
import { MemoryChart } from './memoryChart';
import { OUTPUT_HOST_CLASS } from '../output/names';
import chinese from '../locale/zh_CN.json';
import { ENGLISH, messagesTranslation, pageLanguage } from './text';

interface Model {
  get(name: string): any;
  on(event: string, callback: (...args: any[]) => void): void;
  off(event?: string | null, callback?: ((...args: any[]) => void) | null): void;
  send(content: unknown): void;
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  // JupyterLab writes its UI language on the page; the chart's words and the kernel's follow it.
  const language = pageLanguage();
  const trans = language === 'zh' ? messagesTranslation(chinese) : ENGLISH;
  const chart = new MemoryChart(el, { title: model.get('title'), height: model.get('height'), trans });
  const onTitle = () => chart.setTitle(model.get('title'));
  const onMessage = (message: MemoryMessage) => {
    if (message && (message.type === 'memory.batch' || message.type === 'memory.snapshot')) {
      chart.receive(message);
    }
  };
  model.on('change:title', onTitle);
  model.on('msg:custom', onMessage);
  // Said once the view is in its place (the widget manager adds it after render): inside the labextension's output
  // host, the kernel may bring the output's static view up to date without this view being drawn again.
  const hello = setTimeout(() => {
    const message: MemoryHello = { type: 'memory.hello', language, hosted: el.closest(`.${OUTPUT_HOST_CLASS}`) !== null };
    model.send(message);
  }, 0);
  (el as any).mgenvChart = chart; // lets browser tests and benchmarks reach the live chart
  return () => {
    clearTimeout(hello);
    model.off('change:title', onTitle);
    model.off('msg:custom', onMessage);
    chart.destroy();
  };
}

export default { render };
