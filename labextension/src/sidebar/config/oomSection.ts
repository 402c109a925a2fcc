/**
 * The followed kernel's last out-of-memory report, in short: its headline, its verdict, what was given back since
 * (and what was left) when its failed cell was freed, and its remedies, each with an Apply button (oom/report.ts
 * remedyItem); a remedy whose values the kernel holds reads "Applied". One part of the variables section
 * (ConfigView), hidden while the kernel has no report, and dismissed with its ×: hidden until the kernel's next
 * report. Its height is bounded, so that the variables stay in view under it.
 */
import { OomRemedyInfo } from '../../protocol';
import { Answer, RemedyChoice } from '../client';
import { el } from '../dom';
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
  private _dismissed: string | null = null; // the id of the report the user dismissed

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
    this.node.hidden = report === null || report.id === this._dismissed;
    if (!report || this.node.hidden) {
      return;
    }
    const head = el('div', 'mgenv-sb-oom-head');
    const title = el('div', 'mgenv-sb-oom-title');
    title.textContent = trans.__('Last out of memory in this kernel');
    // JupyterLab's minimal button; its × is drawn by CSS, so the card's text stays the report's.
    const dismiss = button('', trans.__('Dismiss (until the next out-of-memory error)'), 'mgenv-sb-oom-dismiss');
    dismiss.type = 'button';
    dismiss.setAttribute('aria-label', trans.__('Dismiss the out-of-memory report'));
    dismiss.addEventListener('click', () => {
      this._dismissed = report.id;
      this.render();
    });
    head.append(title, dismiss);
    const headline = el('div', 'mgenv-oom-headline');
    headline.textContent = report.headline;
    headline.title = report.headline;
    const verdict = el('div', 'mgenv-sb-oom-verdict');
    verdict.textContent = report.sections[0]?.[0] ?? '';
    verdict.title = verdict.textContent;
    const parts: HTMLElement[] = [head];
    if (report.freed) {
      // The latest news first: what was given back, and what was left.
      const freed = el('div', 'mgenv-sb-oom-freed');
      freed.setAttribute('role', 'status');
      freed.textContent = report.freed.summary;
      parts.push(freed);
    }
    parts.push(headline, verdict);
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
    this.node.append(...parts, list);
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
