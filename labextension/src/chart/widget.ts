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

/** A hello unanswered is said again after 2, 4, 8, then every 16 s, HELLO_TRIES times in all (about a minute). */
export const HELLO_AGAIN_MS = 2000;
export const HELLO_TRIES = 6;

export function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  // JupyterLab writes its UI language on the page; the chart's words and the kernel's follow it.
  const language = pageLanguage();
  const trans = language === 'zh' ? messagesTranslation(chinese) : ENGLISH;
  const chart = new MemoryChart(el, { title: model.get('title'), height: model.get('height'), trans });
  const onTitle = () => chart.setTitle(model.get('title'));
  // The hello is said once the view is in its place (the widget manager adds it after render): inside the
  // labextension's output host, the kernel may bring the output's static view up to date without this view being
  // drawn again. A view drawn while the page's widget manager still connects to the kernel (a notebook opened in a
  // second front end, Notebook 7) sends into a comm that drops it, and its chart stayed empty: until the kernel's
  // first message shows the comm carries, the hello is said again, less and less often (a cell that runs keeps the
  // kernel from answering, and each hello queued then is answered with a whole snapshot); once the comm carries,
  // once more, unless the snapshot came first.
  let answered = false;
  let carrying = false;
  let tries = 0;
  let hello: ReturnType<typeof setTimeout> | undefined;
  const sayHello = (): void => {
    tries += 1;
    const message: MemoryHello = { type: 'memory.hello', language, hosted: el.closest(`.${OUTPUT_HOST_CLASS}`) !== null };
    model.send(message);
  };
  const sayAgainLater = (): void => {
    if (tries < HELLO_TRIES) {
      hello = setTimeout(() => {
        if (!answered && !carrying) {
          sayHello();
          sayAgainLater();
        }
      }, HELLO_AGAIN_MS * 2 ** Math.min(tries - 1, 3));
    }
  };
  const onMessage = (message: MemoryMessage) => {
    if (message && (message.type === 'memory.batch' || message.type === 'memory.snapshot')) {
      answered ||= message.type === 'memory.snapshot';
      if (!carrying) {
        carrying = true;
        if (!answered && tries > 0) {
          clearTimeout(hello);
          sayHello(); // the comm carries now: this one arrives (before the first, the first is still to come)
        }
      }
      chart.receive(message);
    }
  };
  model.on('change:title', onTitle);
  model.on('msg:custom', onMessage);
  hello = setTimeout(() => {
    if (!answered) {
      sayHello();
      sayAgainLater();
    }
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
