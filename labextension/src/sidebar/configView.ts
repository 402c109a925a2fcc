/**
 * The variables section of the sidebar: which kernel it follows and how that went, the notebook profile and whether
 * this kernel has it (with a way to review it again when the user declined it), the kernel's last out-of-memory report
 * and its last cluster.verify() result node by node (verifyView.ts), an error that concerns no variable,
 * a search box, the catalog grouped by framework (named as the kernel names them) then category with one editor row
 * per variable — an error about a variable is shown in its row, under its editor — and the change history (the
 * latest ones, as many as the settings say, and older ones on request). It only renders the model and forwards the
 * user's actions; "Restart and apply" and "Refresh" are the panel's toolbar commands (commands.ts).
 */
import { Widget } from '@lumino/widgets';

import { ChangeInfo, MASK, OomRemedyInfo } from '../protocol';
import { badgeClass, badgeFor } from './badges';
import { Answer } from './client';
import { el } from './dom';
import { EnvModel, HISTORY_LIMIT, ModelChange, ProfileStatus } from './model';
import { markApplied, remedyItem } from './oomReport';
import { isSecret } from './profile';
import { breakableName, VariableRow } from './rows';
import { DEFAULT_OPTIONS } from './settings';
import { TextKey, Translate } from './text';
import { VerifyView } from './verifyView';

export interface ConfigActions {
  edit(name: string, value: string | null): Promise<Answer | null>;
  forget(name: string): void;
  reviewProfile(): Promise<void>;
  /** Ask the kernel for at most `limit` changes older than number `before`; they arrive through the model. */
  loadHistory(before: number, limit: number): Promise<void>;
  /** Set a remedy of the last out-of-memory report in the followed kernel, kept in the notebook profile. */
  applyRemedyToFollowed?(assignments: Record<string, string>): Promise<Answer | null>;
  /** Run cluster.verify() in the followed kernel; the result arrives through the model. */
  verifyNodes?(): Promise<Answer | null>;
}

const PROFILE_STATUS: Record<ProfileStatus, TextKey | null> = {
  none: null,
  checking: 'profileChecking',
  asking: 'profileAsking',
  applied: 'profileApplied',
  declined: 'profileDeclined',
  failed: 'profileFailed'
};

export class ConfigView extends Widget {
  private _model: EnvModel;
  private _actions: ConfigActions;
  private _t: Translate;
  private _rows = new Map<string, VariableRow>();
  private _status: HTMLElement;
  private _notice: HTMLElement;
  private _oom: HTMLElement;
  private _oomItems: [OomRemedyInfo, HTMLElement][] = [];
  private _verify: VerifyView;
  private _profile: HTMLElement;
  private _error: HTMLElement;
  private _search: HTMLInputElement;
  private _catalog: HTMLElement;
  private _empty: HTMLElement;
  private _history: HTMLElement;
  private _historyCount: HTMLElement;
  private _older: HTMLButtonElement;
  private _historyShown: number = DEFAULT_OPTIONS.historyShown;
  private _shown = this._historyShown; // how many changes the list shows now ("Show older" adds a page)
  private _loading = false;

  constructor(model: EnvModel, actions: ConfigActions, t: Translate) {
    super();
    this._model = model;
    this._actions = actions;
    this._t = t;
    this.addClass('mgenv-sb-config');

    this._status = el('div', 'mgenv-sb-status');
    this._status.setAttribute('role', 'status');
    this._notice = el('div', 'mgenv-sb-notice');
    this._oom = el('section', 'mgenv-oom mgenv-sb-oom');
    this._verify = new VerifyView(t, () => this._actions.verifyNodes?.() ?? Promise.resolve(null));
    this._profile = el('div', 'mgenv-sb-profile');
    this._error = el('div', 'mgenv-sb-error');
    this._error.setAttribute('role', 'alert');
    const searchBox = el('div', 'jp-InputGroup mgenv-sb-searchbox');
    this._search = el('input', 'mgenv-sb-search') as HTMLInputElement;
    searchBox.append(this._search);
    this._search.type = 'search';
    this._search.placeholder = t('searchPlaceholder');
    this._search.setAttribute('aria-label', t('search'));
    this._search.addEventListener('input', () => this._model.setFilter(this._search.value));
    this._catalog = el('div', 'mgenv-sb-catalog');
    this._empty = el('div', 'mgenv-sb-empty');
    this._empty.textContent = t('noMatch');
    const history = el('details', 'mgenv-sb-history');
    const summary = el('summary', '');
    summary.textContent = t('history');
    this._history = el('ol', 'mgenv-sb-history-list');
    this._historyCount = el('div', 'mgenv-sb-history-count');
    this._older = button(t('historyOlder'), t('historyOlder'), 'mgenv-sb-history-older');
    this._older.addEventListener('click', () => void this._showOlder());
    history.append(summary, this._history, this._historyCount, this._older);
    this.node.append(
      this._status, this._notice, this._oom, this._verify.node, this._profile, this._error, searchBox, this._catalog, this._empty, history
    );
    model.changed.connect(this._onChange, this);
    this._renderAll();
  }

  /** The row of a variable (browser tests and benchmarks reach rows through the DOM; this is for jest). */
  row(name: string): VariableRow | undefined {
    return this._rows.get(name);
  }

  /** How many of the latest changes the history shows (a setting); older pages stay shown once asked for. */
  setHistoryShown(count: number): void {
    this._shown = Math.max(count, this._shown === this._historyShown ? count : this._shown);
    this._historyShown = count;
    this._renderHistory();
    void this._fillHistory();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.changed.disconnect(this._onChange, this);
    super.dispose();
  }

  private _onChange(_: EnvModel, change: ModelChange): void {
    switch (change.kind) {
      case 'catalog':
        this._renderCatalog();
        break;
      case 'variables':
        this._updateRows(change.names);
        this._markOomApplied();
        break;
      case 'history':
        this._renderHistory();
        void this._fillHistory();
        break;
      case 'error':
        this._renderError();
        break;
      case 'connection':
        this._renderStatus();
        this._renderProfile(); // its review button works only with a ready kernel
        break;
      case 'profile':
        this._renderProfile();
        break;
      case 'filter':
        this._applyFilter();
        break;
      case 'oom':
        this._renderOom();
        break;
      case 'verify':
        this._verify.render(this._model.lastVerify);
        break;
    }
  }

  private _renderAll(): void {
    this._renderStatus();
    this._renderProfile();
    this._renderError();
    this._renderOom();
    this._verify.render(this._model.lastVerify);
    this._renderCatalog();
    this._renderHistory();
  }

  /** The followed kernel's last out-of-memory report, in short: its headline, its verdict and its remedies. */
  private _renderOom(): void {
    const report = this._model.lastOom;
    const t = this._t;
    this._oom.replaceChildren();
    this._oomItems = [];
    this._oom.hidden = report === null;
    if (!report) {
      return;
    }
    const title = el('div', 'mgenv-sb-oom-title');
    title.textContent = t('oomLast');
    const headline = el('div', 'mgenv-oom-headline');
    headline.textContent = report.headline;
    const verdict = el('div', 'mgenv-sb-oom-verdict');
    verdict.textContent = report.sections[0]?.[0] ?? '';
    const list = el('ol', 'mgenv-oom-remedies');
    const apply = (assignments: Record<string, string>): Promise<Answer | null> =>
      this._actions.applyRemedyToFollowed?.(assignments) ?? Promise.resolve(null);
    for (const remedy of report.remedies) {
      const item = remedyItem(remedy, { t, apply, brief: true, language: this._model.language });
      this._oomItems.push([remedy, item]);
      list.append(item);
    }
    if (report.no_remedy) {
      const none = el('li', 'mgenv-oom-no-remedy');
      none.textContent = report.no_remedy;
      list.append(none);
    }
    this._oom.append(title, headline, verdict, list);
    this._markOomApplied();
  }

  /** A remedy whose values the kernel holds now reads "Applied" (set from the notebook's report, or by %envset). */
  private _markOomApplied(): void {
    for (const [remedy, item] of this._oomItems) {
      const held = remedy.assignments.every(([name, value]) => this._model.variable(name)?.value === value);
      markApplied(item, held, this._t);
    }
  }

  private _renderStatus(): void {
    const { state, notebook, kernel, detail } = this._model.connection;
    const t = this._t;
    const info = this._model.kernel;
    let line: string;
    switch (state) {
      case 'no-notebook':
        line = t('noNotebook');
        break;
      case 'no-kernel':
        line = `${notebook}: ${t('noKernel')}`;
        break;
      case 'connecting':
      case 'standby':
        line = `${kernel} · ${t('loading')}`;
        break;
      case 'restarting':
        line = `${kernel} · ${t('restarting')}`;
        break;
      case 'ready':
        line = kernel + (info ? ` · Python ${info.version}` : '');
        if (info?.imported.length) {
          line += ` · ${t('imported', info.imported.join(', '))}`;
        }
        break;
      case 'dead':
        line = `${kernel} · ${t('dead')}`;
        break;
      case 'closed':
        line = `${kernel} · ${t('closed')}`;
        break;
      default:
        line = kernel;
    }
    this._status.textContent = state === 'no-notebook' || state === 'no-kernel' ? line : `${notebook} · ${line}`;
    this._status.title = info && state === 'ready' ? info.python : '';
    this._status.dataset.state = state;
    this.node.dataset.connection = state;

    this._notice.replaceChildren();
    this._notice.hidden = state !== 'not-installed' && state !== 'failed';
    if (state === 'not-installed') {
      const what = el('p', 'mgenv-sb-notice-title');
      what.textContent = t('notInstalled');
      const how = el('p', '');
      how.textContent = t('notInstalledHow');
      const code = el('pre', 'mgenv-sb-install');
      code.textContent = '%pip install mgenv_jupyter';
      const why = el('p', 'mgenv-sb-notice-detail');
      why.textContent = detail;
      this._notice.append(what, how, code, why);
    } else if (state === 'failed') {
      const what = el('p', 'mgenv-sb-notice-title');
      what.textContent = t('loadFailed');
      const why = el('pre', 'mgenv-sb-notice-detail');
      why.textContent = detail;
      this._notice.append(what, why);
    }
    const live = state === 'ready';
    for (const row of this._rows.values()) {
      row.setEnabled(live);
    }
    this._renderHistoryFooter();
  }

  private _renderProfile(): void {
    const t = this._t;
    const profile = Object.entries(this._model.profile);
    const review = this._model.profileReview;
    this._profile.replaceChildren();
    this._profile.dataset.status = review.status;
    const title = el('div', 'mgenv-sb-profile-title');
    title.textContent = `${t('profile')} (${profile.length})`;
    title.title = `${t('profileNote')}; ${t('secretNotSaved')}`;
    this._profile.append(title);
    if (!profile.length) {
      const empty = el('div', 'mgenv-sb-profile-empty');
      empty.textContent = t('profileEmpty');
      this._profile.append(empty);
    }
    const said = profile.length ? PROFILE_STATUS[review.status] : null;
    if (said) {
      const status = el('div', `mgenv-sb-profile-status mgenv-sb-profile-${review.status}`);
      status.setAttribute('role', 'status');
      status.textContent = t(said);
      if (review.status === 'declined' || review.status === 'failed') {
        const again = button(t('profileReview'), t('profileReviewTitle'), 'mgenv-sb-profile-review');
        again.disabled = this._model.connection.state !== 'ready';
        again.addEventListener('click', () => void this._actions.reviewProfile());
        status.append(' ', again);
      }
      this._profile.append(status);
    }
    // The kernel's refusals, by name and for this very value: what it would not take from this profile.
    const refused = new Map(review.items.filter(i => i.action === 'refused').map(i => [i.name, i]));
    const list = el('ul', 'mgenv-sb-profile-list');
    for (const [name, value] of profile) {
      const item = el('li', '');
      const entry = el('div', 'mgenv-sb-profile-entry');
      const assignment = el('code', '');
      assignment.append(...breakableName(name), `=${value}`);
      entry.append(assignment);
      const refusal = refused.get(name);
      if (refusal && (refusal.value === value || refusal.value === null)) {
        item.classList.add('mgenv-sb-profile-refused');
        const mark = el('div', 'mgenv-sb-profile-refused-mark');
        mark.textContent = t('profileRefusedMark');
        mark.title = refusal.reason ?? '';
        entry.append(mark);
      }
      item.append(entry);
      const remove = el('button', `${BUTTON_CLASS} mgenv-sb-profile-remove`) as HTMLButtonElement;
      remove.textContent = '×';
      remove.title = t('removeFromProfile');
      remove.setAttribute('aria-label', `${t('removeFromProfile')}: ${name}`);
      remove.addEventListener('click', () => this._actions.forget(name));
      item.append(remove);
      list.append(item);
    }
    this._profile.append(list);
  }

  /** An error about one variable goes under its editor; any other above the catalog. */
  private _renderError(): void {
    const field = this._model.fieldError;
    if (field) {
      this._rows.get(field.name)?.markInvalid(field.message);
    }
    const error = this._model.error;
    this._error.textContent = error ? this._t('error', error) : '';
    this._error.hidden = !error;
  }

  private _renderCatalog(): void {
    this._rows.clear();
    this._catalog.replaceChildren();
    const live = this._model.connection.state === 'ready';
    for (const group of this._model.groups('')) {
      const framework = el('details', 'mgenv-sb-framework') as HTMLDetailsElement;
      framework.open = true;
      framework.dataset.framework = group.framework;
      const summary = el('summary', '');
      summary.textContent = this._model.frameworkLabel(group.framework);
      framework.append(summary);
      for (const category of group.categories) {
        const section = el('details', 'mgenv-sb-category') as HTMLDetailsElement;
        section.open = true;
        const heading = el('summary', '');
        heading.textContent = category.category;
        section.append(heading);
        for (const entry of category.entries) {
          const row = new VariableRow(entry, (name, value) => void this._edit(name, value), this._t);
          row.update(this._model.variable(entry.name), this._model.badge(entry.name));
          row.setEnabled(live);
          this._rows.set(entry.name, row);
          section.append(row.node);
        }
        framework.append(section);
      }
      this._catalog.append(framework);
    }
    this._applyFilter();
  }

  private async _edit(name: string, value: string | null): Promise<void> {
    const answer = await this._actions.edit(name, value);
    const row = this._rows.get(name);
    if (answer?.type === 'error') {
      row?.markInvalid(answer.message);
    } else if (answer?.type === 'result') {
      // Accepted: show what the kernel holds now (normalised: "2GB" → 2147483648), even if nothing changed.
      row?.accepted();
      row?.update(this._model.variable(name), this._model.badge(name));
    }
  }

  private _updateRows(names?: string[]): void {
    const targets = names ?? [...this._rows.keys()];
    for (const name of targets) {
      this._rows.get(name)?.update(this._model.variable(name), this._model.badge(name));
    }
  }

  private _applyFilter(): void {
    const filter = this._model.filter;
    let shown = 0;
    for (const row of this._rows.values()) {
      const match = this._model.matches(row.entry, filter);
      row.node.hidden = !match;
      shown += match ? 1 : 0;
    }
    for (const section of this._catalog.querySelectorAll<HTMLElement>('.mgenv-sb-category, .mgenv-sb-framework')) {
      section.hidden = !section.querySelector('.mgenv-sb-row:not([hidden])');
    }
    this._empty.hidden = shown > 0 || this._rows.size === 0;
  }

  private _renderHistory(): void {
    const history = this._model.history;
    this._history.replaceChildren();
    if (!history.length) {
      const empty = el('li', 'mgenv-sb-history-empty');
      empty.textContent = this._t('historyEmpty');
      this._history.append(empty);
    }
    for (const change of history.slice(-this._shown).reverse()) {
      this._history.append(this._historyItem(change));
    }
    this._renderHistoryFooter();
  }

  private _renderHistoryFooter(): void {
    const shown = Math.min(this._shown, this._model.history.length);
    const total = this._model.historyTotal;
    this._historyCount.textContent = this._t('historyCount', shown, total);
    this._historyCount.hidden = shown === 0 || shown >= total;
    const more = this._model.history.length > this._shown || this._model.olderAvailable;
    this._older.hidden = !more || this._shown >= HISTORY_LIMIT;
    this._older.disabled = this._loading || this._model.connection.state !== 'ready';
  }

  /** One more page of older changes: those already here first, then the kernel's. */
  private async _showOlder(): Promise<void> {
    this._shown = Math.min(HISTORY_LIMIT, this._shown + this._historyShown);
    this._renderHistory();
    await this._fillHistory();
  }

  /** Ask the kernel for older changes while the list should show more than the model holds. */
  private async _fillHistory(): Promise<void> {
    const history = this._model.history;
    const missing = Math.min(this._shown, HISTORY_LIMIT) - history.length;
    if (this._loading || missing <= 0 || !this._model.olderAvailable || this._model.connection.state !== 'ready') {
      return;
    }
    const oldest = history[0]?.seq ?? this._model.historyTotal + 1;
    this._loading = true;
    this._renderHistoryFooter();
    try {
      await this._actions.loadHistory(oldest, missing);
    } finally {
      this._loading = false;
      this._renderHistoryFooter();
    }
  }

  private _historyItem(change: ChangeInfo): HTMLElement {
    const t = this._t;
    const item = el('li', 'mgenv-sb-history-item');
    const time = new Date(change.time * 1000).toLocaleTimeString();
    // The kernel masks a secret's values itself (`secret`); masking by name as well costs nothing.
    const masked = change.secret || isSecret(change.name);
    const value = (v: string | null) => (v === null ? t('unsetValue') : masked ? MASK : v);
    const outcome = badgeFor(change.outcome, this._model.language);
    const label = el('span', `${badgeClass(outcome)} mgenv-sb-history-outcome`);
    label.textContent = outcome.label;
    item.append(`${time} ${change.name}: ${value(change.old)} → ${value(change.new)} [${change.source}] `, label);
    item.dataset.outcome = change.outcome;
    item.title = change.message + (change.effective ? ` (${t('effectiveValue', change.effective)})` : '');
    return item;
  }
}

/** JupyterLab's own button (ui-components' Button: minimal and small), so every theme draws it. */
export const BUTTON_CLASS = 'jp-Button jp-mod-minimal jp-mod-small';

function button(label: string, title: string, className: string): HTMLButtonElement {
  const node = el('button', `${BUTTON_CLASS} ${className}`) as HTMLButtonElement;
  node.textContent = label;
  node.title = title;
  return node;
}
