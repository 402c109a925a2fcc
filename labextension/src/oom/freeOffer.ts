/**
 * "Free what the failed cell holds": the out-of-memory report's first remedy when the kernel offers it
 * (`OomFreeOffer`), and what a free did (`FreeResultData`: the answer to its button, and `%memfree`'s output). A click
 * sends the comm's JSON "free" request; the kernel decides what to clear and answers with the memory before and
 * after, in its own words. Nothing here decides: it lays out what the kernel said. The DOM is built with textContent
 * only.
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { formatBytes } from '../chart/format';
import {
  FigureInfo,
  FREE_MIME,
  FREE_VERSION,
  FreedReply,
  FreeResultData,
  HoldersData,
  OomFreed,
  OomFreeOffer
} from '../protocol';
import { el } from '../shared/dom';

/** What the button's click gets back: the kernel's answer, an error to show, or null (no kernel to ask). */
export type FreeAnswer = FreedReply | { type: 'error'; message: string } | null;

export interface FreeOfferOptions {
  /** Ask the kernel to free (the follower's comm). */
  free: () => Promise<FreeAnswer>;
  /** Said when there is no kernel to ask (the report's language). */
  noKernel: string;
  /** Said while the kernel works. */
  busy: string;
}

/**
 * The offer as the report's first remedy, above the numbered settings (it sets nothing, as the text report shows it
 * unnumbered): its button, the magic that does the same, why, and the outcome.
 */
export function freeOfferItem(offer: OomFreeOffer, options: FreeOfferOptions): HTMLElement {
  const item = el('div', 'mgenv-oom-free');
  const head = el('div', 'mgenv-oom-remedy-head');
  const button = el('button', 'jp-Button mgenv-oom-free-button') as HTMLButtonElement;
  button.type = 'button';
  button.textContent = offer.button;
  button.title = `${offer.title} (${offer.magic})`;
  const title = el('b', 'mgenv-oom-free-title');
  title.textContent = offer.title;
  const magic = el('code', 'mgenv-oom-envset');
  magic.textContent = offer.magic;
  head.append(button, title, magic);
  const why = el('div', 'mgenv-oom-why');
  why.textContent = `${offer.why}; ${offer.note}`;
  const outcome = el('div', 'mgenv-oom-outcome mgenv-oom-free-outcome');
  outcome.setAttribute('role', 'status');
  item.append(head, why, outcome);
  button.addEventListener('click', () => void runFree(options, button, outcome));
  return item;
}

async function runFree(options: FreeOfferOptions, button: HTMLButtonElement, outcome: HTMLElement): Promise<void> {
  button.disabled = true;
  outcome.dataset.state = 'busy';
  outcome.textContent = options.busy;
  let answer: FreeAnswer = null;
  try {
    answer = await options.free();
  } catch (reason) {
    console.warn('mgenv_jupyter: the free request could not be sent', reason);
  }
  outcome.replaceChildren();
  if (answer === null || answer.type === 'error') {
    outcome.dataset.state = 'error';
    outcome.textContent = answer === null ? options.noKernel : answer.message;
    button.disabled = false;
    return;
  }
  outcome.dataset.state = 'applied';
  outcome.append(freeResultView(answer.result));
}

/**
 * The report's failed cell was given back since the report was made (by %memfree, or the button in the other view):
 * said in place of the offer, with what came back and what was left; nothing to click.
 */
export function freedItem(freed: OomFreed): HTMLElement {
  const item = el('div', 'mgenv-oom-free mgenv-oom-freed');
  item.setAttribute('role', 'status');
  const summary = el('div', 'mgenv-oom-freed-summary');
  summary.textContent = freed.summary;
  item.append(summary, figuresTable(freed.figures));
  return item;
}

/**
 * In place of the offer when the report is no longer its kernel's last (the kernel restarted, or a later cell ran out
 * of memory): the kernel would refuse the button, so none is shown; `text` says why, in the page's language.
 */
export function staleOfferItem(text: string): HTMLElement {
  const item = el('div', 'mgenv-oom-free mgenv-oom-free-stale');
  item.setAttribute('role', 'status');
  item.textContent = text;
  return item;
}

/** What a free did: the headline, the figures before → after as a table, the lines of what was cleared and asked. */
export function freeResultView(result: FreeResultData): HTMLElement {
  const box = el('div', 'mgenv-free');
  box.lang = result.language === 'zh' ? 'zh-CN' : 'en';
  const headline = el('div', 'mgenv-free-headline');
  headline.textContent = result.headline;
  box.append(headline, figuresTable(result.figures));
  // The figures' section is the table; the others (cleared, asked, not asked, your variables) as lines.
  for (const lines of result.sections.slice(1)) {
    const section = el('div', 'mgenv-free-section');
    for (const line of lines) {
      const row = el('div', 'mgenv-oom-line');
      row.textContent = line;
      section.append(row);
    }
    box.append(section);
  }
  const footer = el('div', 'mgenv-oom-footer');
  footer.textContent = result.footer;
  box.append(footer);
  return box;
}

/** Figures before → after: label, size, arrow, size, change. */
function figuresTable(figures: FigureInfo[]): HTMLElement {
  const table = el('table', 'mgenv-free-figures');
  for (const figure of figures) {
    const row = el('tr', '');
    for (const [text, className] of [
      [figure.label, 'mgenv-free-label'],
      [sizeText(figure.before), 'mgenv-free-size'],
      ['→', 'mgenv-free-arrow'],
      [sizeText(figure.after), 'mgenv-free-size'],
      [figure.change, 'mgenv-free-change']
    ] as const) {
      const cell = el('td', className);
      cell.textContent = text;
      row.append(cell);
    }
    table.append(row);
  }
  return table;
}

/** Bytes as the kernel and the chart write them ("1.5 GiB"); "?" where not known. */
function sizeText(bytes: number | null): string {
  return bytes === null ? '?' : formatBytes(bytes);
}

/**
 * What holds memory now, by name (the report's last part, `HoldersData`): one row per variable, largest first, its
 * size, what it is, per device and what it shares; then the kernel's notes (totals, what the walk left out).
 */
export function holdersView(data: HoldersData): HTMLElement {
  const box = el('div', 'mgenv-holders');
  const title = el('div', 'mgenv-oom-remedies-title');
  title.textContent = `${data.title}:`;
  box.append(title);
  if (data.empty) {
    const empty = el('div', 'mgenv-oom-line');
    empty.textContent = data.empty;
    box.append(empty);
  } else {
    const table = el('table', 'mgenv-holders-table');
    for (const row of data.rows) {
      const tr = el('tr', '');
      const name = el('td', 'mgenv-holders-name');
      const code = el('code', '');
      code.textContent = row.name;
      name.append(code);
      const size = el('td', 'mgenv-free-size');
      size.textContent = row.bytes ? formatBytes(row.bytes) : '0';
      const what = el('td', 'mgenv-holders-what');
      what.textContent = row.what;
      const where = el('td', 'mgenv-holders-where');
      where.textContent = [row.devices, row.note].filter(Boolean).join('; ');
      tr.append(name, size, what, where);
      table.append(tr);
    }
    box.append(table);
  }
  for (const note of data.notes) {
    const line = el('div', 'mgenv-oom-footer');
    line.textContent = note;
    box.append(line);
  }
  return box;
}

/** `%memfree`'s output (FREE_MIME): the same view as the report's outcome. */
export class FreeResultRenderer extends Widget implements IRenderMime.IRenderer {
  constructor() {
    super();
    this.addClass('mgenv-free-output');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[FREE_MIME] as unknown as FreeResultData | undefined;
    this.node.replaceChildren();
    if (!data || data.v !== FREE_VERSION) {
      const fallback = el('pre', '');
      const text = model.data['text/plain'];
      fallback.textContent = typeof text === 'string' ? text : '';
      this.node.append(fallback);
    } else {
      this.node.append(freeResultView(data));
    }
    return Promise.resolve();
  }
}

export const freeRendererFactory: IRenderMime.IRendererFactory = {
  safe: true, // text only, no buttons
  mimeTypes: [FREE_MIME],
  defaultRank: 10,
  createRenderer: () => new FreeResultRenderer()
};
