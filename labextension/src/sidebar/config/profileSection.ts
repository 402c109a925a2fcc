/**
 * The notebook profile: what it holds (each entry removable), whether this kernel has it, with a way to review it
 * again when the user declined it, and what the kernel refuses from it (by name, for that very value, with its
 * reason). One part of the variables section (ConfigView).
 */
import { breakableName, el } from '../../shared/dom';
import { valueText } from '../editors';
import { EnvModel, ProfileStatus } from '../model';
import { Translation } from '../text';
import { BUTTON_CLASS, button } from './buttons';

/** What the profile's status line says, in the user's language; nothing while there is no profile. */
const PROFILE_STATUS: Record<ProfileStatus, ((trans: Translation) => string) | null> = {
  none: null,
  checking: trans => trans.__('checking it with the kernel…'),
  asking: trans => trans.__('waiting for your answer: apply it?'),
  applied: trans => trans.__('applied to this kernel'),
  declined: trans =>
    trans.__('not applied: you have not approved this profile; you are asked again when the kernel starts'),
  failed: trans => trans.__('not applied: the kernel could not review it')
};

export interface ProfileActions {
  forget(name: string): void;
  reviewProfile(): Promise<void>;
}

export class ProfileSection {
  readonly node: HTMLElement;
  private _model: EnvModel;
  private _actions: ProfileActions;
  private _trans: Translation;

  constructor(model: EnvModel, actions: ProfileActions, trans: Translation) {
    this._model = model;
    this._actions = actions;
    this._trans = trans;
    this.node = el('div', 'mgenv-sb-profile');
  }

  render(): void {
    const trans = this._trans;
    const profile = Object.entries(this._model.profile);
    const review = this._model.profileReview;
    this.node.replaceChildren();
    this.node.dataset.status = review.status;
    const title = el('div', 'mgenv-sb-profile-title');
    title.textContent = `${trans.__('Notebook profile')} (${profile.length})`;
    const note = trans.__('saved in this notebook; applied when its kernel starts, once you have approved this exact profile');
    title.title = `${note}; ${trans.__('secret values are not saved in the notebook')}`;
    this.node.append(title);
    if (!profile.length) {
      // On the title's line (the variables come first), the whole of it in its tooltip.
      const empty = el('div', 'mgenv-sb-profile-empty');
      empty.textContent = trans.__('Variables you set here are saved in the notebook.');
      empty.title = empty.textContent;
      this.node.append(empty);
    }
    const said = profile.length ? PROFILE_STATUS[review.status] : null;
    if (said) {
      const status = el('div', `mgenv-sb-profile-status mgenv-sb-profile-${review.status}`);
      status.setAttribute('role', 'status');
      status.textContent = said(trans);
      if (review.status === 'declined' || review.status === 'failed') {
        const again = button(
          trans.__('Review and apply…'),
          trans.__('See what this notebook’s profile would set, and apply it to this kernel if you approve'),
          'mgenv-sb-profile-review'
        );
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
      const shown = valueText(this._model.sizeOf(name, value), value);
      assignment.append(...breakableName(name), `=${shown}`);
      if (shown !== value) {
        assignment.title = `${name}=${value}`; // what the notebook keeps: the plain number the framework reads
      }
      entry.append(assignment);
      const refusal = refused.get(name);
      if (refusal && (refusal.value === value || refusal.value === null)) {
        item.classList.add('mgenv-sb-profile-refused');
        const mark = el('div', 'mgenv-sb-profile-refused-mark');
        mark.textContent = trans.__('will not be applied');
        mark.title = refusal.reason ?? '';
        entry.append(mark);
      }
      item.append(entry);
      const remove = el('button', `${BUTTON_CLASS} mgenv-sb-profile-remove`) as HTMLButtonElement;
      remove.textContent = '×';
      remove.title = trans.__('Remove from the profile');
      remove.setAttribute('aria-label', `${trans.__('Remove from the profile')}: ${name}`);
      remove.addEventListener('click', () => this._actions.forget(name));
      item.append(remove);
      list.append(item);
    }
    this.node.append(list);
  }
}
