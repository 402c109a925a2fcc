/**
 * The profile-trust protocol on the front end's side: a notebook's profile comes with the file, so its content is
 * someone else's until the user approves it. Each fresh kernel process is handed the profile once (KernelClient sends
 * it for review before any cell the user runs next); the kernel applies it at once if the user approved this exact
 * profile before, and otherwise changes nothing until the user has answered the question (ProfileQuestion) asked
 * here, once per notebook and content however often the kernel restarts meanwhile. Only a yes sends the approval.
 *
 * What the user sets in the sidebar is their own: the profile it produces is recorded as approved, but only when the
 * profile it started from was approved too, so an edit never launders content the user declined. The kernel enforces
 * all of this itself (the approval is kept outside the notebook); this side only asks and says what happened.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel } from '@jupyterlab/services';

import { ProfileReply } from '../../protocol';
import { Answer, KernelClient } from '../client';
import { EnvModel, ProfileReview } from '../model';
import { Profile, readProfile } from './profile';
import { ProfileQuestion } from './review';

/** Without a way to ask, a profile that is not approved is never applied. */
export const NEVER: ProfileQuestion = async () => false;

const NO_PROFILE: ProfileReview = { status: 'none', items: [] };

/** A connection that can record a profile as the user's own: the sidebar's client, or an output's channel. */
export interface ProfileReviewer {
  reviewProfile(profile: Profile, options: { approve: boolean; apply: boolean }): Promise<unknown>;
}

/** What the consent needs to know of the follower: the kernel it follows now and that kernel's client. */
export interface Followed {
  kernel(): Kernel.IKernelConnection | null;
  client(): KernelClient | null;
}

export class ProfileConsent {
  private _model: EnvModel;
  private _ask: ProfileQuestion;
  private _followed: Followed;
  // Kernel id → what became of the profile in its current process; present once the process has been sent it.
  private _outcomes = new Map<string, ProfileReview>();
  // Per notebook: the profile content the kernel last reported (or recorded) as approved, as profileKey() spells it.
  private _approved = new WeakMap<NotebookPanel, string>();
  // The question on screen, so a kernel restarting meanwhile waits for the same answer instead of asking twice.
  private _question: { panel: NotebookPanel; key: string; answer: Promise<boolean> } | null = null;

  constructor(model: EnvModel, ask: ProfileQuestion, followed: Followed) {
    this._model = model;
    this._ask = ask;
    this._followed = followed;
  }

  /**
   * The profile to hand a client of `kernel` as it connects ({}: none). It goes to each kernel process once (start,
   * restart, or a kernel this page has not seen yet), not each time the user comes back to the notebook: that would
   * undo what they changed since with %envset. A process whose review was cut short (the notebook left before the
   * kernel or the user answered) is sent it again.
   */
  profileFor(kernel: Kernel.IKernelConnection, panel: NotebookPanel): Profile {
    const outcome = this._outcomes.get(kernel.id);
    const fresh = !outcome || outcome.status === 'checking' || outcome.status === 'asking';
    const profile = fresh ? readProfile(panel.context.model) : {};
    const sent = Object.keys(profile).length > 0;
    this.setOutcome(kernel, sent ? { status: 'checking', items: [] } : fresh ? NO_PROFILE : outcome);
    return profile;
  }

  /** The kernel is restarting: its new process gets the profile again. */
  restarted(kernel: Kernel.IKernelConnection): void {
    this._outcomes.delete(kernel.id);
  }

  /** Show the profile's review again and apply it if the user approves (after they declined it at start). */
  async reviewAgain(client: KernelClient, panel: NotebookPanel, kernel: Kernel.IKernelConnection): Promise<void> {
    const profile = readProfile(panel.context.model);
    if (!Object.keys(profile).length) {
      return;
    }
    this.setOutcome(kernel, { status: 'checking', items: [] });
    const answer = await client.reviewProfile(profile, { approve: false, apply: true });
    await this.reviewed(client, panel, kernel, profile, answer);
  }

  /**
   * The kernel reviewed `profile`: approved (now or earlier) means applied, so nothing to ask; otherwise nothing was
   * changed, and the user is asked. Only their yes sends the approval, and the kernel applies the profile then.
   */
  async reviewed(
    client: KernelClient,
    panel: NotebookPanel,
    kernel: Kernel.IKernelConnection,
    profile: Profile,
    answer: Answer
  ): Promise<void> {
    if (answer.type !== 'profile') {
      // The model shows the kernel's error; a local one (the comm went away) leaves the review to the next client.
      if (answer.type === 'error' && answer.reply_to !== null && this._followed.client() === client) {
        this.setOutcome(kernel, { status: 'failed', items: [] });
      }
      return;
    }
    if (answer.approved) {
      this._approved.set(panel, profileKey(profile));
      this.setOutcome(kernel, { status: 'applied', items: answer.items });
      return;
    }
    this.setOutcome(kernel, { status: 'asking', items: answer.items });
    const accepted = await this._askOnce(panel, profile, answer);
    // The kernel restarted or the notebook was left while the question was open: the client that follows now
    // (if any) waits for the same answer and acts on it.
    if (client !== this._followed.client() || client.isDisposed) {
      return;
    }
    if (!accepted) {
      this.setOutcome(kernel, { status: 'declined', items: answer.items });
      return;
    }
    this.setOutcome(kernel, { status: 'checking', items: answer.items });
    const approval = await client.reviewProfile(profile, { approve: true, apply: true });
    if (client !== this._followed.client()) {
      return;
    }
    if (approval.type === 'profile' && approval.approved) {
      this._approved.set(panel, profileKey(profile));
      this.setOutcome(kernel, { status: 'applied', items: approval.items });
    } else {
      this.setOutcome(kernel, { status: 'failed', items: answer.items });
    }
  }

  /**
   * The user changed the notebook profile from `before` to `after` in the sidebar. The new content is theirs: it is
   * recorded as approved (not applied: the kernel already has the change) when the profile it replaces was approved,
   * or empty; the promise resolves once the kernel has recorded it, through `kernel` (the followed kernel's client
   * unless said: a report under a cell records it through its own notebook's kernel).
   */
  async edited(panel: NotebookPanel, before: Profile, after: Profile, kernel?: ProfileReviewer): Promise<void> {
    const key = profileKey(after);
    const trusted = !Object.keys(before).length || this._approved.get(panel) === profileKey(before);
    const client = kernel ?? this._followed.client();
    if (!client || !trusted || key === profileKey(before) || !Object.keys(after).length) {
      return;
    }
    this._approved.set(panel, key);
    await client.reviewProfile(after, { approve: true, apply: false });
  }

  setOutcome(kernel: Kernel.IKernelConnection, review: ProfileReview): void {
    this._outcomes.set(kernel.id, review);
    if (kernel === this._followed.kernel()) {
      this._model.setProfileReview(review);
    }
  }

  /** No question left open (the follower is disposed). */
  dispose(): void {
    this._question = null;
  }

  private _askOnce(panel: NotebookPanel, profile: Profile, review: ProfileReply): Promise<boolean> {
    const key = profileKey(profile);
    const open = this._question;
    if (open && open.panel === panel && open.key === key) {
      return open.answer;
    }
    const answer = this._ask({ notebook: panel.context.localPath, items: review.items })
      .catch(() => false) // a question that could not be asked is a no
      .finally(() => {
        if (this._question?.answer === answer) {
          this._question = null;
        }
      });
    this._question = { panel, key, answer };
    return answer;
  }
}

/** One spelling per profile content, whatever the order of its names (as the kernel's digest sees it). */
export function profileKey(profile: Profile): string {
  return JSON.stringify(Object.keys(profile).sort().map(name => [name, profile[name]]));
}
