/**
 * The notebook profile: what it holds (each entry removable), whether this kernel has it, with a way to review it
 * again when the user declined it, and what the kernel refuses from it (by name, for that very value, with its
 * reason). One part of the variables section (ConfigView).
 */
import { breakableName, el } from '../dom';
import { EnvModel, ProfileStatus } from '../model';
import { TextKey, Translate } from '../text';
import { BUTTON_CLASS, button } from './buttons';

const PROFILE_STATUS: Record<ProfileStatus, TextKey | null> = {
  none: null,
  checking: 'profileChecking',
  asking: 'profileAsking',
  applied: 'profileApplied',
  declined: 'profileDeclined',
  failed: 'profileFailed'
};

export interface ProfileActions {
  forget(name: string): void;
  reviewProfile(): Promise<void>;
}

export class ProfileSection {
  readonly node: HTMLElement;
  private _model: EnvModel;
  private _actions: ProfileActions;
  private _t: Translate;

  constructor(model: EnvModel, actions: ProfileActions, t: Translate) {
    this._model = model;
    this._actions = actions;
    this._t = t;
    this.node = el('div', 'mgenv-sb-profile');
  }

  render(): void {
    const t = this._t;
    const profile = Object.entries(this._model.profile);
    const review = this._model.profileReview;
    this.node.replaceChildren();
    this.node.dataset.status = review.status;
    const title = el('div', 'mgenv-sb-profile-title');
    title.textContent = `${t('profile')} (${profile.length})`;
    title.title = `${t('profileNote')}; ${t('secretNotSaved')}`;
    this.node.append(title);
    if (!profile.length) {
      const empty = el('div', 'mgenv-sb-profile-empty');
      empty.textContent = t('profileEmpty');
      this.node.append(empty);
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
      this.node.append(status);
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
    this.node.append(list);
  }
}
