/**
 * The followed kernel's last out-of-memory report, in short: what was given back since (and what was left) when its
 * failed cell was freed, and its headline, which unfolds to its verdict and its remedies, each with an Apply button
 * (oom/report.ts remedyItem); a remedy whose values the kernel holds reads "Applied". One part of the variables
 * section (ConfigView), hidden while the kernel has no report, and dismissed with its ×: hidden until the kernel's
 * next report, in this browser, the page loaded again or not (the ids dismissed are kept in its localStorage). Folded
 * to one line, and bounded when unfolded, so that the variables stay in view under it (the whole report is under
 * the failed cell).
 */
import { OomRemedyInfo } from '../../protocol';
import { Answer, RemedyChoice } from '../client';
import { el } from '../../shared/dom';
import { button } from './buttons';
import { EnvModel } from '../model';
import { markApplied, remedyItem } from '../../oom/report';
import { Translation } from '../text';

export class OomSection {
  readonly node: HTMLElement;
  private _model: EnvModel;
  private _trans: Translation;
  private _apply: (choice: RemedyChoice) => Promise<Answer | null>;
  private _items: [OomRemedyInfo, HTMLElement][] = [];
  /** The ids dismissed on this page, also where the browser keeps none (storage off, or full). */
  private _dismissedHere = new Set<string>();

  /** `apply` sets a remedy in the followed kernel and keeps it in the notebook profile (null: no kernel). */
  constructor(model: EnvModel, trans: Translation, apply: (choice: RemedyChoice) => Promise<Answer | null>) {
    this._model = model;
    this._trans = trans;
    this._apply = apply;
    this.node = el('section', 'mgenv-oom mgenv-sb-oom');
  }

  render(): void {
    const report = this._model.lastOom;
    const trans = this._trans;
    this.node.replaceChildren();
    this._items = [];
    // The report's id even while dismissed: the card is there, and hidden.
    this.node.dataset.report = report?.id ?? '';
    this.node.hidden = report === null || this._dismissedHere.has(report.id) || storedDismissed().includes(report.id);
    if (!report || this.node.hidden) {
      return;
    }
    // One line folded: the headline (the card's title in its tooltip) and the ×; unfolded, the title, the verdict
    // and the remedies under it.
    const head = el('div', 'mgenv-sb-oom-head');
    const more = el('details', 'mgenv-sb-oom-more');
    const title = el('div', 'mgenv-sb-oom-title');
    title.textContent = trans.__('Last out of memory in this kernel');
    const headline = el('summary', 'mgenv-oom-headline');
    headline.textContent = report.headline;
    headline.title = `${title.textContent}: ${report.headline}`;
    // JupyterLab's minimal button; its × is drawn by CSS, so the card's text stays the report's.
    const dismiss = button('', trans.__('Dismiss (until the next out-of-memory error)'), 'mgenv-sb-oom-dismiss');
    dismiss.type = 'button';
    dismiss.setAttribute('aria-label', trans.__('Dismiss the out-of-memory report'));
    dismiss.addEventListener('click', () => {
      this._dismissedHere.add(report.id);
      rememberDismissed(report.id);
      this.render();
    });
    const verdict = el('div', 'mgenv-sb-oom-verdict');
    verdict.textContent = report.sections[0]?.[0] ?? '';
    verdict.title = verdict.textContent;
    const list = el('ol', 'mgenv-oom-remedies');
    for (const remedy of report.remedies) {
      const item = remedyItem(remedy, {
        trans, reportId: report.id, apply: this._apply, brief: true, language: this._model.language
      });
      this._items.push([remedy, item]);
      list.append(item);
    }
    if (report.no_remedy) {
      const none = el('li', 'mgenv-oom-no-remedy');
      none.textContent = report.no_remedy;
      list.append(none);
    }
    more.append(headline, title, verdict, list);
    head.append(more, dismiss);
    this.node.append(head);
    if (report.freed) {
      // The latest news, in view with the card folded: what was given back, and what was left.
      const freed = el('div', 'mgenv-sb-oom-freed');
      freed.setAttribute('role', 'status');
      freed.textContent = report.freed.summary;
      this.node.append(freed);
    }
    this.markApplied();
  }

  /** A remedy whose values the kernel holds now reads "Applied" (set from the notebook's report, or by %envset). */
  markApplied(): void {
    for (const [remedy, item] of this._items) {
      const held = remedy.assignments.every(([name, value]) => this._model.variable(name)?.value === value);
      markApplied(item, held, this._trans);
    }
  }
}

/** Where the browser keeps the ids of the reports dismissed (the latest `KEPT`): a kernel's report ids are random. */
const DISMISSED_KEY = 'mgenv-jupyter:dismissed-oom-reports';
const KEPT = 50;
function rememberDismissed(id: string): void {
  const kept = [...storedDismissed().filter(other => other !== id), id].slice(-KEPT);
  try {
    window.localStorage.setItem(DISMISSED_KEY, JSON.stringify(kept));
  } catch {
    // storage refused (private mode, quota): dismissed on this page only
  }
}

/** What the browser keeps, checked: text written by another version or by hand is ignored, and so is a long one. */
function storedDismissed(): string[] {
  let raw: string | null = null;
  try {
    raw = window.localStorage.getItem(DISMISSED_KEY);
  } catch {
    return [];
  }
  if (raw === null || raw.length > KEPT * 80) {
    return [];
  }
  try {
    const ids: unknown = JSON.parse(raw);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string' && id.length <= 64) : [];
  } catch {
    return [];
  }
}
