/**
 * The out-of-memory report under a failing cell (the kernel's OOM_MIME output, protocol/_oom.py), with one button per
 * remedy. A click asks the kernel of the notebook the report is an output of (its own comm, shared/kernelChannel.ts,
 * whichever notebook the sidebar follows) with a JSON "remedy" request naming only the kernel's ids for the report and
 * the remedy — no names, values or force, and never code: the kernel sets the remedy as its own last report holds it
 * (catalog variables only, all or nothing) and refuses an id of any other report. Accepted, the variables join that
 * notebook's profile (NotebookFollower.keepRemedy); a remedy the kernel can only take in at start says so and offers
 * "Restart and apply". The timeline is drawn by the
 * memory chart (oom/timeline.ts). What is done about the report later (its failed cell given back by %memfree or the
 * other view's button, a remedy set elsewhere) reaches the rendered report through `ReportWatch`: the offer gives way
 * to what was given back and what is left, a remedy the kernel holds reads "Applied"; nothing is offered twice.
 *
 * The DOM is built with textContent only, and the renderer is not `safe`: an untrusted notebook's saved report shows
 * its text/html fallback, without buttons.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { OOM_MIME, OOM_VERSION, OomFreed, OomFreeOffer, OomRemedyInfo, OomReportData } from '../protocol';
import { Answer, RemedyChoice } from '../shared/kernelChannel';
import { el } from '../shared/dom';
import { freedItem, freeOfferItem, holdersView, staleOfferItem } from './freeOffer';
import { KernelRunning, kernelHolderItem, ShutdownHolder } from './holder';
import { ChartLike, timelineView } from './timeline';
import { badgeFor } from '../shared/badges';
import { Language, Translation } from '../shared/translation';

export interface OomReportOptions {
  trans: Translation;
  /**
   * The notebook whose outputs this report is one of (its rendermime registry's), wherever the output is shown (in the
   * notebook, or in a view of the output of its own); null where none (a test, a document that is no notebook).
   */
  notebook: NotebookPanel | null;
  /** Set the remedy in that notebook's own kernel and keep it in its profile (null: that notebook has no kernel). */
  apply: (panel: NotebookPanel, choice: RemedyChoice) => Promise<Answer | null>;
  /** Run the sidebar's "Restart and apply" command. */
  restart: () => Promise<unknown>;
  /** Ask that notebook's own kernel to give back what report `reportId`'s failed cell holds (null: no kernel). */
  free?: (panel: NotebookPanel, reportId: string) => Promise<Answer | null>;
  /** Turn allocation-site recording on in that notebook's own kernel (null: no kernel there). */
  startMemtrace?: (panel: NotebookPanel) => Promise<Answer | null>;
  /** Shut down another kernel of this server that holds most of the GPU, after asking (oom/holder.ts). */
  shutdownHolder?: ShutdownHolder;
  /** Whether the server still runs a kernel (a report naming one shut down since offers nothing). */
  kernelRunning?: KernelRunning;
  /** "Try it first": insert the remedy's %%envsweep cell below the active cell of that notebook, unrun. */
  insertCell?: (panel: NotebookPanel, code: string) => void;
  /** What the followed kernel says of its last report and its variables now (the sidebar's model). */
  watch?: ReportWatch;
}

/** The followed kernel as the report under a cell sees it: its own view of a report, and what it holds now. */
export interface ReportWatch {
  /** The kernel's latest data of report `reportId` (null: the followed kernel's last report is another, or none). */
  latest(reportId: string): OomReportData | null;
  /** Whether the followed kernel holds `value` for `name` now. */
  holds(name: string, value: string): boolean;
  /**
   * Whether report `reportId`, shown in `notebook`, is no longer its kernel's last: that notebook's kernel is the one
   * followed, and it said its last report is another, or that it has none (a restarted kernel). Its buttons would be
   * refused. False while unknown.
   */
  stale(notebook: NotebookPanel, reportId: string): boolean;
  /** Call `callback` at every change of either; returns how to stop. */
  changed(callback: () => void): () => void;
}

export class OomReportView extends Widget implements IRenderMime.IRenderer {
  private _options: OomReportOptions;
  private _chart: ChartLike | null = null;
  private _language: Language = 'en';
  private _reportId = '';
  private _offer: HTMLElement | null = null;
  private _remedies: [OomRemedyInfo, HTMLElement][] = [];
  private _unwatch: (() => void) | null = null;

  constructor(options: OomReportOptions) {
    super();
    this._options = options;
    this.addClass('mgenv-oom');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[OOM_MIME] as unknown as OomReportData | undefined;
    this._destroyChart();
    this._stopWatching();
    this.node.replaceChildren();
    this._offer = null;
    this._remedies = [];
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
    if (data.memtrace_button && this._options.startMemtrace) {
      this.node.append(this._memtraceButton(data.memtrace_button));
    }
    const timeline = timelineView(data.timeline, undefined, this._options.trans);
    this._chart = timeline.chart;
    this.node.append(timeline.node);
    const title = el('div', 'mgenv-oom-remedies-title');
    title.textContent = `${data.remedies_title}:`;
    this.node.append(title);
    const latest = this._options.watch?.latest(data.id) ?? null;
    const freed = latest ? latest.freed ?? null : data.freed ?? null;
    if (freed) {
      this._offer = freedItem(freed); // given back since: said, never offered again
    } else if (data.free) {
      // First, above the numbered settings: it sets nothing (the text report lists it unnumbered too).
      this._offer = this._freeOffer(data.free);
    }
    if (this._offer) {
      this.node.append(this._offer);
    }
    const list = el('ol', 'mgenv-oom-remedies');
    if (data.kernel_holder && this._options.shutdownHolder) {
      list.append(kernelHolderItem(data.kernel_holder, this._options.trans, this._options.shutdownHolder,
        this._options.kernelRunning));
    }
    for (const remedy of data.remedies) {
      const item = this._remedy(remedy);
      this._remedies.push([remedy, item]);
      list.append(item);
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
    const watch = this._options.watch;
    if (watch) {
      this._unwatch = watch.changed(() => this._follow(watch));
      this._follow(watch);
    }
    return Promise.resolve();
  }

  dispose(): void {
    this._destroyChart();
    this._stopWatching();
    super.dispose();
  }

  /** What the kernel says now of this report: the offer gives way to what was given back, remedies held read Applied. */
  private _follow(watch: ReportWatch): void {
    const notebook = this._options.notebook;
    if (notebook && watch.stale(notebook, this._reportId)) {
      this._offerGone();
      return;
    }
    const latest = watch.latest(this._reportId);
    if (!latest) {
      return; // the followed kernel is another notebook's, or has a newer report: nothing to say of this one
    }
    if (latest.freed && this._offer && !this._offer.classList.contains('mgenv-oom-freed')) {
      this._replaceOffer(latest.freed);
    }
    for (const [remedy, item] of this._remedies) {
      if (remedy.assignments.every(([name, value]) => watch.holds(name, value))) {
        markApplied(item, true, this._options.trans); // set from the sidebar's card, or by %envset
      }
    }
  }

  /** The free offer, not yet clicked, gives way to why there is nothing to free from this report any more. */
  private _offerGone(): void {
    const offer = this._offer;
    if (!offer?.querySelector('.mgenv-oom-free-button') || this._clicked()) {
      return; // none offered, or this view's own click: its answer stands
    }
    const trans = this._options.trans;
    const item = staleOfferItem(
      trans.__(
        'Nothing to free from this report: its kernel has restarted, or a later cell ran out of memory since. ' +
          'Run %memfree in a cell to give back what the kernel holds now.'
      )
    );
    offer.replaceWith(item);
    this._offer = item;
  }

  private _replaceOffer(freed: OomFreed): void {
    if (this._clicked()) {
      return; // this view's own click: its answer says what was given back
    }
    const item = freedItem(freed);
    this._offer?.replaceWith(item);
    this._offer = item;
  }

  /** Whether this view's free button was clicked and is being answered, or was answered with what came back. */
  private _clicked(): boolean {
    const state = this._offer?.querySelector<HTMLElement>('.mgenv-oom-free-outcome')?.dataset.state;
    return state === 'busy' || state === 'applied';
  }

  private _stopWatching(): void {
    this._unwatch?.();
    this._unwatch = null;
  }

  private _destroyChart(): void {
    this._chart?.destroy();
    this._chart = null;
  }

  /** The button that turns allocation-site recording on: one click, a JSON "memtrace" request; the kernel says. */
  private _memtraceButton(label: string): HTMLElement {
    const { trans, notebook, startMemtrace } = this._options;
    const row = el('div', 'mgenv-oom-memtrace');
    const button = document.createElement('button');
    button.className = 'jp-Button jp-mod-styled jp-mod-accept';
    button.textContent = label;
    const said = el('span', 'mgenv-oom-memtrace-said');
    button.addEventListener('click', () => {
      button.disabled = true;
      void (notebook && startMemtrace ? startMemtrace(notebook) : Promise.resolve(null)).then(answer => {
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
    const { trans, notebook, free } = this._options;
    return freeOfferItem(offer, {
      noKernel: trans.__('This report’s notebook has no running kernel to set it in.'),
      busy: trans.__('Setting…'),
      free: async () => {
        const answer = notebook && free ? await free(notebook, this._reportId) : null;
        return answer === null || answer.type === 'freed' || answer.type === 'error'
          ? answer
          : { type: 'error', message: answer.type };
      }
    });
  }

  private _remedy(remedy: OomRemedyInfo): HTMLElement {
    const { trans, notebook, apply, restart, insertCell } = this._options;
    return remedyItem(remedy, {
      trans,
      language: this._language,
      reportId: this._reportId,
      tryFirst: insertCell && notebook ? code => insertCell(notebook, code) : undefined,
      apply: choice => (notebook ? apply(notebook, choice) : Promise.resolve(null)),
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
