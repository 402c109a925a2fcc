/**
 * The config half of the sidebar: which kernel it follows and how that went, "Restart and apply", the notebook
 * profile and whether this kernel has it (with a way to review it again when the user declined it), the last error, a search box, the catalog grouped by framework then category with one editor row per
 * variable, and the change history. It only renders the model and forwards the user's actions.
 */
import { Widget } from '@lumino/widgets';

import { ChangeInfo } from '../protocol';
import { Answer } from './client';
import { EnvModel, ModelChange, ProfileStatus } from './model';
import { isSecret } from './profile';
import { el, VariableRow } from './rows';
import { Language, text, TextKey } from './text';

export interface ConfigActions {
  edit(name: string, value: string | null): Promise<Answer | null>;
  forget(name: string): void;
  reviewProfile(): Promise<void>;
  restartAndApply(): Promise<void>;
  refresh(): void;
}

const FRAMEWORK_NAMES: Record<string, string> = {
  megengine: 'MegEngine',
  mxnet: 'MXNet',
  paddle: 'PaddlePaddle',
  ascend: 'Ascend (NPURunConfig)',
  cuda: 'CUDA',
  dtr: 'DTR'
};
const HISTORY_SHOWN = 100;
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
  private _rows = new Map<string, VariableRow>();
  private _status: HTMLElement;
  private _notice: HTMLElement;
  private _restart: HTMLButtonElement;
  private _refresh: HTMLButtonElement;
  private _profile: HTMLElement;
  private _error: HTMLElement;
  private _search: HTMLInputElement;
  private _catalog: HTMLElement;
  private _empty: HTMLElement;
  private _history: HTMLElement;

  constructor(model: EnvModel, actions: ConfigActions) {
    super();
    this._model = model;
    this._actions = actions;
    const t = (key: Parameters<typeof text>[0]) => text(key, this._language);
    this.addClass('mgenv-sb-config');

    this._status = el('div', 'mgenv-sb-status');
    this._status.setAttribute('role', 'status');
    this._notice = el('div', 'mgenv-sb-notice');
    const toolbar = el('div', 'mgenv-sb-toolbar');
    this._restart = button(t('restartApply'), t('restartApplyTitle'), 'jp-mod-accept mgenv-sb-restart');
    this._restart.addEventListener('click', () => void this._actions.restartAndApply());
    this._refresh = button(t('refresh'), t('refresh'), 'jp-mod-reject mgenv-sb-refresh');
    this._refresh.addEventListener('click', () => this._actions.refresh());
    toolbar.append(this._restart, this._refresh);
    this._profile = el('div', 'mgenv-sb-profile');
    this._error = el('div', 'mgenv-sb-error');
    this._error.setAttribute('role', 'alert');
    this._search = el('input', 'mgenv-sb-search') as HTMLInputElement;
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
    history.append(summary, this._history);
    this.node.append(
      this._status, this._notice, toolbar, this._profile, this._error, this._search, this._catalog, this._empty, history
    );
    model.changed.connect(this._onChange, this);
    this._renderAll();
  }

  /** The row of a variable (browser tests and benchmarks reach rows through the DOM; this is for jest). */
  row(name: string): VariableRow | undefined {
    return this._rows.get(name);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.changed.disconnect(this._onChange, this);
    super.dispose();
  }

  private get _language(): Language {
    return this._model.language;
  }

  private _onChange(_: EnvModel, change: ModelChange): void {
    switch (change.kind) {
      case 'catalog':
        this._renderCatalog();
        break;
      case 'variables':
        this._updateRows(change.names);
        break;
      case 'history':
        this._renderHistory();
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
    }
  }

  private _renderAll(): void {
    this._renderStatus();
    this._renderProfile();
    this._renderError();
    this._renderCatalog();
    this._renderHistory();
  }

  private _renderStatus(): void {
    const { state, notebook, kernel, detail } = this._model.connection;
    const t = (key: Parameters<typeof text>[0]) => text(key, this._language);
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
          line += ` · imported: ${info.imported.join(', ')}`;
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
    this._restart.disabled = state === 'no-notebook' || state === 'no-kernel' || state === 'restarting';
    this._refresh.disabled = !live;
    for (const row of this._rows.values()) {
      row.setEnabled(live);
    }
  }

  private _renderProfile(): void {
    const t = (key: Parameters<typeof text>[0]) => text(key, this._language);
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
        const again = button(t('profileReview'), t('profileReviewTitle'), 'jp-mod-reject mgenv-sb-profile-review');
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
      assignment.textContent = `${name}=${value}`;
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
      const remove = el('button', 'mgenv-sb-profile-remove') as HTMLButtonElement;
      remove.textContent = '×';
      remove.title = t('removeFromProfile');
      remove.setAttribute('aria-label', `${t('removeFromProfile')}: ${name}`);
      remove.addEventListener('click', () => this._actions.forget(name));
      item.append(remove);
      list.append(item);
    }
    this._profile.append(list);
    this._restart.textContent = text('restartApply', this._language) + (profile.length ? ` (${profile.length})` : '');
  }

  private _renderError(): void {
    const error = this._model.error;
    this._error.textContent = error ? `${text('error', this._language)}: ${error}` : '';
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
      summary.textContent = FRAMEWORK_NAMES[group.framework] ?? group.framework;
      framework.append(summary);
      for (const category of group.categories) {
        const section = el('details', 'mgenv-sb-category') as HTMLDetailsElement;
        section.open = true;
        const heading = el('summary', '');
        heading.textContent = category.category;
        section.append(heading);
        for (const entry of category.entries) {
          const row = new VariableRow(entry, (name, value) => void this._edit(name, value), this._language);
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
    if (answer?.type === 'error') {
      this._rows.get(name)?.markInvalid(answer.message);
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
      empty.textContent = text('historyEmpty', this._language);
      this._history.append(empty);
      return;
    }
    for (const change of history.slice(-HISTORY_SHOWN).reverse()) {
      this._history.append(historyItem(change));
    }
  }
}

function historyItem(change: ChangeInfo): HTMLElement {
  const item = el('li', 'mgenv-sb-history-item');
  const time = new Date(change.time * 1000).toLocaleTimeString();
  // The kernel masks a secret's values itself (`secret`); masking by name as well costs nothing.
  const masked = change.secret || isSecret(change.name);
  const value = (v: string | null) => (v === null ? '(unset)' : masked ? '********' : v);
  item.textContent = `${time} ${change.name}: ${value(change.old)} → ${value(change.new)} [${change.source}] ${change.outcome}`;
  item.title = change.message + (change.effective ? ` (effective: ${change.effective})` : '');
  return item;
}

function button(label: string, title: string, className: string): HTMLButtonElement {
  const node = el('button', `jp-Button jp-mod-styled ${className}`) as HTMLButtonElement;
  node.textContent = label;
  node.title = title;
  return node;
}
