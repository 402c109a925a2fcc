/**
 * The anywidget module of mgenv_jupyter's SweepChart: the figure arrives as the model's `data` (a SweepFigure, in the
 * kernel's language), updated as each point ends. A newly opened view says hello with the page's language, so the
 * kernel can send the figure's words in it.
 */
import 'uplot/dist/uPlot.min.css';
import '../chart/chart.css';
import './sweep.css';

import chinese from '../locale/zh_CN.json';
import { ENGLISH, messagesTranslation, pageLanguage } from '../chart/text';
import { SweepFigure } from '../protocol';
import { SweepChart } from './sweepChart';

interface Model {
  get(name: string): any;
  on(event: string, callback: (...args: any[]) => void): void;
  off(event?: string | null, callback?: ((...args: any[]) => void) | null): void;
  send(content: unknown): void;
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const language = pageLanguage();
  const trans = language === 'zh' ? messagesTranslation(chinese) : ENGLISH;
  const chart = new SweepChart(el, trans);
  const onData = () => {
    const figure = model.get('data') as SweepFigure;
    if (figure && Array.isArray(figure.points)) {
      chart.render(figure);
    }
  };
  model.on('change:data', onData);
  onData();
  model.send({ type: 'sweep.hello', language });
  (el as any).mgenvSweep = chart; // lets browser tests reach the figure
  return () => {
    model.off('change:data', onData);
    chart.destroy();
  };
}

export default { render };
