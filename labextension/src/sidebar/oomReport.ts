/**
 * The out-of-memory report under a failing cell (the kernel's OOM_MIME output, protocol/_oom.py), with one button per
 * remedy. A click asks the kernel over the sidebar's comm with a JSON "remedy" request naming only the kernel's ids
 * for the report and the remedy — no names, values or force, and never code: the kernel sets the remedy as its own
 * last report holds it (catalog variables only, all or nothing) and refuses an id of any other report. Accepted, the variables join the notebook profile (NotebookFollower.applyRemedy);
 * a remedy the kernel can only take in at start says so and offers "Restart and apply". The timeline is drawn by the
 * memory chart (oomTimeline.ts).
 *
 * The DOM is built with textContent only, and the renderer is not `safe`: an untrusted notebook's saved report shows
 * its text/html fallback, without buttons.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { OOM_MIME, OOM_VERSION, OomFreeOffer, OomRemedyInfo, OomReportData } from '../protocol';
import { Answer, RemedyChoice } from './client';
import { el } from './dom';
import { freeOfferItem, holdersView } from './freeOffer';
import { kernelHolderItem, ShutdownHolder } from './oomHolder';
import { ChartLike, timelineView } from './oomTimeline';
import { badgeFor } from './badges';
import { Language, Translation } from './text';

export interface OomReportOptions {
  trans: Translation;
  /** The notebook showing `node` (the report's cell output), if any. */
  notebookOf: (node: HTMLElement) => NotebookPanel | null;
  /** Set the remedy in that notebook's kernel and keep it in its profile (null: no kernel followed there). */
  apply: (panel: NotebookPanel, choice: RemedyChoice) => Promise<Answer | null>;
  /** Run the sidebar's "Restart and apply" command. */
  restart: () => Promise<unknown>;
  /** Ask that notebook's kernel to give back what the failed cell holds (null: no kernel followed there). */
  free?: (panel: NotebookPanel) => Promise<Answer | null>;
  /** Turn allocation-site recording on in that notebook's kernel (null: no kernel followed there). */
  recordSites?: (panel: NotebookPanel) => Promise<Answer | null>;
  /** Shut down another kernel of this server that holds most of the GPU, after asking (oomHolder.ts). */
  shutdownHolder?: ShutdownHolder;
  /** "Try it first": insert the remedy's %%envsweep cell below the active cell of that notebook, unrun. */
  insertCell?: (panel: NotebookPanel, code: string) => void;
}

export class OomReportView extends Widget implements IRenderMime.IRenderer {
  private _options: OomReportOptions;
  private _chart: ChartLike | null = null;
  private _language: Language = 'en';
  private _reportId = '';

  constructor(options: OomReportOptions) {
    super();
    this._options = options;
    this.addClass('mgenv-oom');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[OOM_MIME] as unknown as OomReportData | undefined;
    this._destroyChart();
    this.node.replaceChildren();
    if (!data || data.v !== OOM_VERSION) {
      const text = model.data['text/plain'];
      const fallback = el('pre', 'mgenv-oom-text');
      fallback.textContent = typeof text === 'string' ? text : '';
      this.node.append(fallback);
      return Promise.resolve();
    }
    this.node.lang = data.language === 'zh' ? 'zh-CN' : 'en';
    this._language = data.language === 'zh' ? 'zh' : 'en';
    this._reportId = data.id;
    const headline = el('div', 'mgenv-oom-headline');
    headline.textContent = data.headline;
    this.node.append(headline);
    for (const lines of data.sections) {
      const section = el('div', 'mgenv-oom-section');
      for (const line of lines) {
        const row = el('div', 'mgenv-oom-line');
        row.textContent = line;
        section.append(row);
      }
      this.node.append(section);
    }
    if (data.record_sites && this._options.recordSites) {
      this.node.append(this._recordSites(data.record_sites));
    }
    const timeline = timelineView(data.timeline, undefined, this._options.trans);
    this._chart = timeline.chart;
    this.node.append(timeline.node);
    const title = el('div', 'mgenv-oom-remedies-title');
    title.textContent = `${data.remedies_title}:`;
    this.node.append(title);
    if (data.free) {
      // First, above the numbered settings: it sets nothing (the text report lists it unnumbered too).
      this.node.append(this._freeOffer(data.free));
    }
    const list = el('ol', 'mgenv-oom-remedies');
    if (data.kernel_holder && this._options.shutdownHolder) {
      list.append(kernelHolderItem(data.kernel_holder, this._options.trans, this._options.shutdownHolder));
    }
    for (const remedy of data.remedies) {
      list.append(this._remedy(remedy));
    }
    if (data.no_remedy) {
      const none = el('li', 'mgenv-oom-no-remedy');
      none.textContent = data.no_remedy;
      list.append(none);
    }
    this.node.append(list);
    if (data.holders) {
      this.node.append(holdersView(data.holders));
    }
    const footer = el('div', 'mgenv-oom-footer');
    footer.textContent = data.footer;
    this.node.append(footer);
    return Promise.resolve();
  }

  dispose(): void {
    this._destroyChart();
    super.dispose();
  }

  private _destroyChart(): void {
    this._chart?.destroy();
    this._chart = null;
  }

  /** The button that turns allocation-site recording on: one click, a JSON "memtrace" request; the kernel says. */
  private _recordSites(label: string): HTMLElement {
    const { trans, notebookOf, recordSites } = this._options;
    const row = el('div', 'mgenv-oom-record-sites');
    const button = document.createElement('button');
    button.className = 'jp-Button jp-mod-styled jp-mod-accept';
    button.textContent = label;
    const said = el('span', 'mgenv-oom-record-said');
    button.addEventListener('click', () => {
      const panel = notebookOf(this.node);
      button.disabled = true;
      void (panel && recordSites ? recordSites(panel) : Promise.resolve(null)).then(answer => {
        button.disabled = answer?.type === 'result';
        said.textContent =
          answer === null
            ? trans.__('This report’s notebook has no running kernel to set it in.')
            : answer.type === 'result'
              ? trans.__('Recording from the next cell on: run the cell again to see its lines.')
              : answer.type === 'error'
                ? answer.message
                : answer.type;
      });
    });
    row.append(button, said);
    return row;
  }

  private _freeOffer(offer: OomFreeOffer): HTMLElement {
    const { trans, notebookOf, free } = this._options;
    return freeOfferItem(offer, {
      noKernel: trans.__('This report’s notebook has no running kernel to set it in.'),
      busy: trans.__('Setting…'),
      free: async () => {
        const panel = notebookOf(this.node);
        const answer = panel && free ? await free(panel) : null;
        return answer === null || answer.type === 'freed' || answer.type === 'error'
          ? answer
          : { type: 'error', message: answer.type };
      }
    });
  }

  private _remedy(remedy: OomRemedyInfo): HTMLElement {
    const { trans, notebookOf, apply, restart, insertCell } = this._options;
    return remedyItem(remedy, {
      trans,
      language: this._language,
      reportId: this._reportId,
      tryFirst: insertCell
        ? code => {
            const panel = notebookOf(this.node);
            if (panel) {
              insertCell(panel, code);
            }
          }
        : undefined,
      apply: choice => {
        const panel = notebookOf(this.node);
        return panel ? apply(panel, choice) : Promise.resolve(null);
      },
      restart
    });
  }
}

export interface RemedyOptions {
  trans: Translation;
  /** The kernel's id of the report the remedy belongs to (sent back with the remedy's id on a click). */
  reportId: string;
  /** Set the remedy in the kernel and keep it in the notebook profile (null: no kernel to set it in). */
  apply: (choice: RemedyChoice) => Promise<Answer | null>;
  /** Run "Restart and apply"; without it (the sidebar, whose toolbar has the button) the outcome only says so. */
  restart?: () => Promise<unknown>;
  /** Say only when it takes effect, the reason and caveat in a tooltip (the narrow sidebar). */
  brief?: boolean;
  /** The language of what the outcome says (the report's; English when not given). */
  language?: Language;
  /** "Try it first": insert the remedy's %%envsweep cell (the failing cell, the current setting against it). */
  tryFirst?: (code: string) => void;
}

/** One remedy: its Apply button, %envset line, when it takes effect and why, its caveat, and what a click did. */
export function remedyItem(remedy: OomRemedyInfo, options: RemedyOptions): HTMLElement {
  const { trans } = options;
  const item = el('li', 'mgenv-oom-remedy');
  const head = el('div', 'mgenv-oom-remedy-head');
  const apply = el('button', 'jp-Button mgenv-oom-apply') as HTMLButtonElement;
  apply.type = 'button';
  apply.textContent = trans.__('Apply');
  apply.title = trans.__('Set this in the kernel (%1) and keep it in the notebook profile', remedy.envset);
  const code = el('code', 'mgenv-oom-envset');
  code.textContent = remedy.envset;
  head.append(apply);
  const tryCell = remedy.try_cell;
  if (tryCell && options.tryFirst) {
    const tryFirst = el('button', 'jp-Button jp-mod-minimal mgenv-oom-try') as HTMLButtonElement;
    tryFirst.type = 'button';
    tryFirst.textContent = trans.__('Try it first');
    tryFirst.title = trans.__(
      'Insert a cell that runs the failing cell under the current setting and this one, each in a fresh kernel'
    );
    const tryFirstCallback = options.tryFirst;
    tryFirst.addEventListener('click', () => tryFirstCallback(tryCell));
    head.append(tryFirst);
  }
  head.append(code);
  const why = el('div', 'mgenv-oom-why');
  const when = el('b', '');
  when.textContent = remedy.when;
  item.append(head, why);
  if (options.brief) {
    why.append(when);
    why.title = remedy.caveat ? `${remedy.why}\n${remedy.caveat}` : remedy.why;
  } else {
    why.append(when, `; ${remedy.why}`);
  }
  if (remedy.caveat && !options.brief) {
    const caveat = el('div', 'mgenv-oom-caveat');
    caveat.textContent = remedy.caveat;
    item.append(caveat);
  }
  const outcome = el('div', 'mgenv-oom-outcome');
  outcome.setAttribute('role', 'status');
  item.append(outcome);
  apply.addEventListener('click', () => void applyRemedy(remedy, options, apply, outcome));
  return item;
}

/** Show a remedy whose values the kernel already holds as applied (a click elsewhere, or %envset), or offer it again. */
export function markApplied(item: HTMLElement, applied: boolean, trans: Translation): void {
  const button = item.querySelector<HTMLButtonElement>('.mgenv-oom-apply');
  const outcome = item.querySelector<HTMLElement>('.mgenv-oom-outcome');
  if (!button || outcome?.dataset.state === 'busy') {
    return;
  }
  button.disabled = applied;
  button.textContent = applied ? trans.__('Applied') : trans.__('Apply');
}

async function applyRemedy(
  remedy: OomRemedyInfo,
  options: RemedyOptions,
  button: HTMLButtonElement,
  outcome: HTMLElement
): Promise<void> {
  const { trans } = options;
  button.disabled = true;
  outcome.dataset.state = 'busy';
  outcome.textContent = trans.__('Setting…');
  let answer: Answer | null = null;
  try {
    answer = await options.apply({
      reportId: options.reportId,
      remedyId: remedy.id,
      assignments: Object.fromEntries(remedy.assignments)
    });
  } catch (reason) {
    answer = null;
    console.warn('mgenv_jupyter: the remedy could not be sent', reason);
  }
  outcome.replaceChildren();
  if (answer === null) {
    outcome.dataset.state = 'error';
    outcome.textContent = trans.__('This report’s notebook has no running kernel to set it in.');
    button.disabled = false;
    return;
  }
  if (answer.type !== 'result') {
    outcome.dataset.state = 'error';
    outcome.textContent = trans.__('The kernel refused it: %1', answer.type === 'error' ? answer.message : answer.type);
    button.disabled = false;
    return;
  }
  // The kernel's verdicts, labelled: the report's (made before the click) or the answer's says a restart is needed;
  // otherwise the answer's status for the whole batch ("applied live", "takes effect at first use"...), in the
  // report's language from the schema's one table; never "applies now" for a change that waits for a first use.
  const restart = remedy.restart || answer.restart;
  outcome.dataset.state = restart ? 'restart' : 'applied';
  const said = el('span', 'mgenv-oom-said');
  said.textContent = restart
    ? trans.__('Set and kept in the notebook profile; it takes effect after a restart.')
    : trans.__(
        'Set in this kernel and kept in the notebook profile: %1.',
        answer.status ? badgeFor(answer.status, options.language ?? 'en').label : remedy.when
      );
  outcome.append(said);
  button.textContent = trans.__('Applied');
  if (restart && options.restart) {
    const again = el('button', 'jp-Button mgenv-oom-restart') as HTMLButtonElement;
    again.type = 'button';
    again.textContent = trans.__('Restart and apply');
    again.title = trans.__('Restart the kernel and apply this notebook’s profile before any cell runs (import-time variables take effect)');
    const run = options.restart;
    again.addEventListener('click', () => void run());
    outcome.append(again);
  }
}

/** The renderer factory for OOM_MIME, given to each notebook's rendermime registry. */
export function oomRendererFactory(options: OomReportOptions): IRenderMime.IRendererFactory {
  return {
    safe: false,
    mimeTypes: [OOM_MIME],
    defaultRank: 10, // before text/html (50), the report's fallback
    createRenderer: () => new OomReportView(options)
  };
}
