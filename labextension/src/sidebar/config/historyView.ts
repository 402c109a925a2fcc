/**
 * The change history: the latest changes, as many as the settings say, each labelled with the kernel's outcome, and
 * older ones page by page on request (asked of the kernel once the model has no more). One part of the variables
 * section (ConfigView).
 */
import { ChangeInfo, MASK } from '../../protocol';
import { badgeClass, badgeFor } from '../../shared/badges';
import { el } from '../../shared/dom';
import { EnvModel, HISTORY_LIMIT } from '../model';
import { isSecret } from '../profile/profile';
import { DEFAULT_OPTIONS } from '../settings';
import { Translation } from '../text';
import { button } from './buttons';

export class HistoryView {
  readonly node: HTMLElement;
  private _model: EnvModel;
  private _trans: Translation;
  private _load: (before: number, limit: number) => Promise<void>;
  private _list: HTMLElement;
  private _count: HTMLElement;
  private _older: HTMLButtonElement;
  private _historyShown: number = DEFAULT_OPTIONS.historyShown;
  private _shown = this._historyShown; // how many changes the list shows now ("Show older" adds a page)
  private _loading = false;

  /** `load` asks the kernel for at most `limit` changes older than number `before`; they arrive through the model. */
  constructor(model: EnvModel, trans: Translation, load: (before: number, limit: number) => Promise<void>) {
    this._model = model;
    this._trans = trans;
    this._load = load;
    this.node = el('details', 'mgenv-sb-history');
    const summary = el('summary', '');
    summary.textContent = trans.__('Change history');
    this._list = el('ol', 'mgenv-sb-history-list');
    this._count = el('div', 'mgenv-sb-history-count');
    this._older = button(trans.__('Show older changes'), trans.__('Show older changes'), 'mgenv-sb-history-older');
    this._older.addEventListener('click', () => void this._showOlder());
    this.node.append(summary, this._list, this._count, this._older);
  }

  /** How many of the latest changes the list shows (a setting); older pages stay shown once asked for. */
  setShown(count: number): void {
    this._shown = Math.max(count, this._shown === this._historyShown ? count : this._shown);
    this._historyShown = count;
    this.render();
    void this.fill();
  }

  render(): void {
    const history = this._model.history;
    this._list.replaceChildren();
    if (!history.length) {
      const empty = el('li', 'mgenv-sb-history-empty');
      empty.textContent = this._trans.__('No changes yet.');
      this._list.append(empty);
    }
    for (const change of history.slice(-this._shown).reverse()) {
      this._list.append(this._item(change));
    }
    this.renderFooter();
  }

  renderFooter(): void {
    const shown = Math.min(this._shown, this._model.history.length);
    const total = this._model.historyTotal;
    this._count.textContent = this._trans.__('showing the latest %1 of %2 changes', shown, total);
    this._count.hidden = shown === 0 || shown >= total;
    const more = this._model.history.length > this._shown || this._model.olderAvailable;
    this._older.hidden = !more || this._shown >= HISTORY_LIMIT;
    this._older.disabled = this._loading || this._model.connection.state !== 'ready';
  }

  /** Ask the kernel for older changes while the list should show more than the model holds. */
  async fill(): Promise<void> {
    const history = this._model.history;
    const missing = Math.min(this._shown, HISTORY_LIMIT) - history.length;
    if (this._loading || missing <= 0 || !this._model.olderAvailable || this._model.connection.state !== 'ready') {
      return;
    }
    const oldest = history[0]?.seq ?? this._model.historyTotal + 1;
    this._loading = true;
    this.renderFooter();
    try {
      await this._load(oldest, missing);
    } finally {
      this._loading = false;
      this.renderFooter();
    }
  }

  /** One more page of older changes: those already here first, then the kernel's. */
  private async _showOlder(): Promise<void> {
    this._shown = Math.min(HISTORY_LIMIT, this._shown + this._historyShown);
    this.render();
    await this.fill();
  }

  private _item(change: ChangeInfo): HTMLElement {
    const trans = this._trans;
    const item = el('li', 'mgenv-sb-history-item');
    const time = new Date(change.time * 1000).toLocaleTimeString();
    // The kernel masks a secret's values itself (`secret`); masking by name as well costs nothing.
    const masked = change.secret || isSecret(change.name);
    const value = (v: string | null) => (v === null ? trans.__('(unset)') : masked ? MASK : v);
    const outcome = badgeFor(change.outcome, this._model.language);
    const label = el('span', `${badgeClass(outcome)} mgenv-sb-history-outcome`);
    label.textContent = outcome.label;
    // A size as the kernel writes it (3 GiB), not the plain number the environment holds.
    const old = value(change.shown_old ?? change.old);
    item.append(`${time} ${change.name}: ${old} → ${value(change.shown_new ?? change.new)} [${change.source}] `, label);
    item.dataset.outcome = change.outcome;
    item.title = change.message + (change.effective ? ` (${trans.__('in effect: %1', change.effective)})` : '');
    return item;
  }
}
