/**
 * Follows the active notebook and its kernel: a notebook becoming current, its kernel changing, restarting (by the
 * user, by "Restart and apply", or automatically after a crash), dying or shutting down, and the notebook closing —
 * all without a page reload. Each fresh kernel process gets a KernelClient that hands the notebook profile to the
 * kernel before any cell the user runs next: applied at once if the user approved this exact profile before, and
 * otherwise changing nothing until the user has answered the question (ProfileQuestion) the follower asks.
 *
 * The profile comes with the file, so its content is someone else's until the user approves it. What the user sets
 * in the sidebar is their own: the profile it produces is recorded as approved, but only when the profile it
 * started from was approved too, so an edit never launders content the user declined.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel, Session } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { MemoryMessage, ProfileReply, ResultReply } from '../protocol';
import { Answer, KernelClient, MEMORY_INTERVAL, ProfileReviewed } from './client';
import { EnvModel, ProfileReview } from './model';
import { isSecret, Profile, readProfile, updateProfile } from './profile';
import { ProfileQuestion } from './profileReview';

/** What the follower needs from INotebookTracker. */
export interface NotebookSource {
  readonly currentWidget: NotebookPanel | null;
  readonly currentChanged: ISignal<any, NotebookPanel | null>;
}

/** What the profile keeps of an accepted change: the kernel's normalised value, nothing for an unset or a secret. */
function stored(answer: ResultReply, name: string, value: string | null): string | null {
  const change = answer.changes.find(c => c.name === name);
  const secret = isSecret(name) || change?.secret === true;
  return value === null || secret ? null : (change?.new ?? value);
}

/** Without a way to ask, a profile that is not approved is never applied. */
const NEVER: ProfileQuestion = async () => false;

export class NotebookFollower {
  private _source: NotebookSource;
  private _model: EnvModel;
  private _ask: ProfileQuestion;
  private _panel: NotebookPanel | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _client: KernelClient | null = null;
  private _memoryOn = false;
  private _memoryInterval = MEMORY_INTERVAL;
  private _active = false;
  private _reattachScheduled = false;
  // Kernel id → what became of the profile in its current process; present once the process has been sent it.
  private _outcomes = new Map<string, ProfileReview>();
  // Per notebook: the profile content the kernel last reported (or recorded) as approved, as profileKey() spells it.
  private _approved = new WeakMap<NotebookPanel, string>();
  // The question on screen, so a kernel restarting meanwhile waits for the same answer instead of asking twice.
  private _question: { panel: NotebookPanel; key: string; answer: Promise<boolean> } | null = null;
  private _disposed = false;
  private _memoryReceived = new Signal<this, MemoryMessage>(this);
  private _clientChanged = new Signal<this, KernelClient | null>(this);

  constructor(source: NotebookSource, model: EnvModel, ask: ProfileQuestion = NEVER) {
    this._source = source;
    this._model = model;
    this._ask = ask;
    source.currentChanged.connect(this._onCurrentChanged, this);
    this._follow(source.currentWidget);
  }

  /** Live memory messages of the followed kernel. */
  get memoryReceived(): ISignal<this, MemoryMessage> {
    return this._memoryReceived;
  }

  /** A new kernel attachment (the chart starts over) or none. */
  get clientChanged(): ISignal<this, KernelClient | null> {
    return this._clientChanged;
  }

  get panel(): NotebookPanel | null {
    return this._panel;
  }

  get client(): KernelClient | null {
    return this._client;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** The panel is shown (or hidden): a shown panel connects to the kernel it follows. */
  setActive(active: boolean): void {
    this._active = active;
    const kernel = this._kernel;
    if (active && kernel && !kernel.isDisposed && !this._client && this._model.connection.state === 'standby') {
      this._connect(kernel);
    }
  }

  /** Whether the live memory stream is wanted (the memory panel is visible). */
  setMemory(on: boolean): void {
    this._memoryOn = on;
    this._client?.setMemory(on);
  }

  /** Seconds between memory samples (a setting), for this kernel and the next ones. */
  setMemoryInterval(interval: number): void {
    this._memoryInterval = interval;
    this._client?.setMemoryInterval(interval);
  }

  /** Ask the followed kernel for older changes; they reach the model as a "history" reply. */
  async loadHistory(before: number, limit: number): Promise<void> {
    await this._client?.history(before, limit);
  }

  /**
   * A sidebar edit: set (value) or unset (null) in the kernel; once the kernel accepts it, the notebook profile
   * keeps it (or forgets it), so it is applied again whenever this notebook's kernel starts. A secret — by name, or
   * as the kernel judged the change — is never kept.
   */
  async edit(name: string, value: string | null): Promise<Answer | null> {
    const client = this._client;
    const panel = this._panel;
    if (!client || !panel) {
      return null;
    }
    const answer = value === null ? await client.unset([name]) : await client.set({ [name]: value });
    if (answer.type === 'result' && panel === this._panel && !panel.isDisposed) {
      this._updateProfile(panel, [[name, stored(answer, name, value)]]);
    }
    return answer;
  }

  /**
   * A remedy clicked in an out-of-memory report shown in `panel`: its variables go to that notebook's kernel as one
   * "set" request (source "oom_report"; the kernel validates it like a sidebar edit, all or nothing) and, once
   * accepted, join the notebook profile like a sidebar edit, so "Restart and apply" brings them into a new kernel.
   * Connects to the kernel first when the sidebar was on standby. Null: `panel` is not the followed notebook, or it
   * has no kernel.
   */
  async applyRemedy(panel: NotebookPanel, assignments: Record<string, string>): Promise<Answer | null> {
    if (panel !== this._panel || panel.isDisposed) {
      return null;
    }
    if (!this._client && this._kernel && !this._kernel.isDisposed) {
      this._connect(this._kernel);
    }
    const client = this._client;
    if (!client) {
      return null;
    }
    const answer = await client.set(assignments, 'oom_report');
    if (answer.type === 'result' && panel === this._panel && !panel.isDisposed) {
      this._updateProfile(
        panel,
        Object.entries(assignments).map(([name, value]) => [name, stored(answer, name, value)])
      );
    }
    return answer;
  }

  /** Give back what the failed cell holds in `panel`'s kernel (null: not the followed notebook, or no kernel). */
  async free(panel: NotebookPanel): Promise<Answer | null> {
    if (panel !== this._panel || panel.isDisposed) {
      return null;
    }
    if (!this._client && this._kernel && !this._kernel.isDisposed) {
      this._connect(this._kernel);
    }
    return this._client ? this._client.free() : null;
  }

  /** A remedy clicked in the panel's copy of the last out-of-memory report: for the followed notebook. */
  applyRemedyToFollowed(assignments: Record<string, string>): Promise<Answer | null> {
    return this._panel ? this.applyRemedy(this._panel, assignments) : Promise.resolve(null);
  }

  /** Run cluster.verify() in the followed kernel (null: no kernel to ask). Its result comes as a "verify" notice. */
  verifyNodes(): Promise<Answer | null> {
    return this._client ? this._client.verify() : Promise.resolve(null);
  }

  /** Remove a variable from the notebook profile only (the running kernel keeps its value). */
  forget(name: string): void {
    const panel = this._panel;
    if (panel && !panel.isDisposed) {
      this._updateProfile(panel, [[name, null]]);
    }
  }

  /** Show the profile's review again and apply it if the user approves (after they declined it at start). */
  async reviewProfile(): Promise<void> {
    const client = this._client;
    const panel = this._panel;
    const kernel = this._kernel;
    if (!client || !panel || !kernel || panel.isDisposed) {
      return;
    }
    const profile = readProfile(panel.context.model);
    if (!Object.keys(profile).length) {
      return;
    }
    this._setOutcome(kernel, { status: 'checking', items: [] });
    const answer = await client.reviewProfile(profile, { approve: false, apply: true });
    await this._onReview(client, panel, kernel, profile, answer);
  }

  refresh(): void {
    this._client?.refresh();
  }

  /** Restart the kernel; an approved profile is applied as it comes back, before any cell runs. */
  async restartAndApply(): Promise<void> {
    const context = this._panel?.sessionContext;
    if (context?.session?.kernel) {
      await context.restartKernel();
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._follow(null);
    this._question = null;
    this._source.currentChanged.disconnect(this._onCurrentChanged, this);
    Signal.clearData(this);
  }

  private _onCurrentChanged(_: unknown, panel: NotebookPanel | null): void {
    this._follow(panel);
  }

  private _follow(panel: NotebookPanel | null): void {
    if (panel === this._panel) {
      return;
    }
    const old = this._panel;
    if (old) {
      old.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
      old.sessionContext.statusChanged.disconnect(this._onStatusChanged, this);
      old.context.model.metadataChanged.disconnect(this._onMetadataChanged, this);
      old.disposed.disconnect(this._onPanelDisposed, this);
    }
    this._panel = panel;
    this._attach(null);
    if (!panel) {
      this._model.setProfile({});
      this._model.setConnection({ state: 'no-notebook', notebook: '', kernel: '', detail: '' });
      return;
    }
    this._model.setConnection({ notebook: panel.context.localPath, kernel: '', detail: '' });
    panel.sessionContext.kernelChanged.connect(this._onKernelChanged, this);
    panel.sessionContext.statusChanged.connect(this._onStatusChanged, this);
    panel.disposed.connect(this._onPanelDisposed, this);
    void panel.context.ready.then(() => {
      if (panel !== this._panel || panel.isDisposed) {
        return;
      }
      panel.context.model.metadataChanged.connect(this._onMetadataChanged, this);
      this._model.setProfile(readProfile(panel.context.model));
      this._attach(panel.sessionContext.session?.kernel ?? null);
    });
  }

  private _onPanelDisposed(panel: NotebookPanel): void {
    if (panel === this._panel) {
      this._follow(null);
    }
  }

  private _onMetadataChanged(): void {
    if (this._panel) {
      this._model.setProfile(readProfile(this._panel.context.model));
    }
  }

  private _onKernelChanged(_: unknown, args: Session.ISessionConnection.IKernelChangedArgs): void {
    if (args.newValue === this._kernel) {
      return; // SessionContext.restartKernel re-announces the same kernel; restarts are followed through the status
    }
    if (this._panel?.context.isReady) {
      this._attach(args.newValue);
    }
  }

  private _onStatusChanged(_: unknown, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      if (this._reattachScheduled || !this._kernel) {
        return;
      }
      this._outcomes.delete(this._kernel.id); // a new process: it gets the profile again
      if (!this._client && !this._wanted()) {
        return; // not connected, nothing to apply: the panel connects when it is shown
      }
      this._reattachScheduled = true;
      this._model.setConnection({ state: 'restarting', detail: '' });
      // The connection clears its comms right after announcing the restart, then queues what is sent until the new
      // kernel answers; attaching on the next microtask puts our requests first in that queue.
      const kernel = this._kernel;
      void Promise.resolve().then(() => {
        this._reattachScheduled = false;
        if (kernel === this._kernel && !kernel.isDisposed) {
          this._attach(kernel);
        }
      });
    } else if (status === 'dead') {
      this._disconnect();
      this._model.setConnection({ state: 'dead', detail: '' });
    }
  }

  /** Follow this kernel (or none): forget the previous one, and connect if the panel is wanted. */
  private _attach(kernel: Kernel.IKernelConnection | null): void {
    this._disconnect();
    this._kernel = kernel;
    this._model.resetKernelState();
    if (!kernel || kernel.isDisposed || !this._panel) {
      if (this._panel) {
        this._model.setConnection({ state: 'no-kernel', kernel: '', detail: '' });
      }
      this._clientChanged.emit(null);
      return;
    }
    this._model.setConnection({ kernel: this._panel.sessionContext.kernelDisplayName || kernel.name });
    if (this._wanted()) {
      this._connect(kernel);
    } else {
      this._model.setConnection({ state: 'standby', detail: '' });
      this._clientChanged.emit(null);
    }
  }

  /**
   * The kernel is only touched (`%load_ext`, the comm) once the panel has been shown, or when the notebook has a
   * profile to apply: a notebook nobody configures from here is left alone.
   */
  private _wanted(): boolean {
    return this._active || Object.keys(this._model.profile).length > 0;
  }

  private _connect(kernel: Kernel.IKernelConnection): void {
    const panel = this._panel;
    if (!panel) {
      return;
    }
    // The profile goes to each kernel process once (start, restart, or a kernel this page has not seen yet), not
    // each time the user comes back to the notebook: that would undo what they changed since with %envset. A process
    // whose review was cut short (the notebook left before the kernel or the user answered) is sent it again.
    const outcome = this._outcomes.get(kernel.id);
    const fresh = !outcome || outcome.status === 'checking' || outcome.status === 'asking';
    const profile = fresh ? readProfile(panel.context.model) : {};
    const sent = Object.keys(profile).length > 0;
    this._setOutcome(kernel, sent ? { status: 'checking', items: [] } : fresh ? NO_PROFILE : outcome);
    const client = new KernelClient(kernel, this._model, {
      language: this._model.language,
      profile,
      memoryInterval: this._memoryInterval
    });
    this._client = client;
    client.memoryReceived.connect(this._onMemory, this);
    client.profileReviewed.connect(this._onProfileReviewed, this);
    client.setMemory(this._memoryOn);
    client.start();
    this._clientChanged.emit(client);
  }

  private _onProfileReviewed(client: KernelClient, { profile, answer }: ProfileReviewed): void {
    const panel = this._panel;
    const kernel = this._kernel;
    if (client === this._client && panel && kernel) {
      void this._onReview(client, panel, kernel, profile, answer);
    }
  }

  /**
   * The kernel reviewed `profile`: approved (now or earlier) means applied, so nothing to ask; otherwise nothing was
   * changed, and the user is asked. Only their yes sends the approval, and the kernel applies the profile then.
   */
  private async _onReview(
    client: KernelClient,
    panel: NotebookPanel,
    kernel: Kernel.IKernelConnection,
    profile: Profile,
    answer: Answer
  ): Promise<void> {
    if (answer.type !== 'profile') {
      // The model shows the kernel's error; a local one (the comm went away) leaves the review to the next client.
      if (answer.type === 'error' && answer.reply_to !== null && this._client === client) {
        this._setOutcome(kernel, { status: 'failed', items: [] });
      }
      return;
    }
    if (answer.approved) {
      this._approved.set(panel, profileKey(profile));
      this._setOutcome(kernel, { status: 'applied', items: answer.items });
      return;
    }
    this._setOutcome(kernel, { status: 'asking', items: answer.items });
    const accepted = await this._askOnce(panel, profile, answer);
    // The kernel restarted or the notebook was left while the question was open: the client that follows now
    // (if any) waits for the same answer and acts on it.
    if (client !== this._client || client.isDisposed) {
      return;
    }
    if (!accepted) {
      this._setOutcome(kernel, { status: 'declined', items: answer.items });
      return;
    }
    this._setOutcome(kernel, { status: 'checking', items: answer.items });
    const approval = await client.reviewProfile(profile, { approve: true, apply: true });
    if (client !== this._client) {
      return;
    }
    if (approval.type === 'profile' && approval.approved) {
      this._approved.set(panel, profileKey(profile));
      this._setOutcome(kernel, { status: 'applied', items: approval.items });
    } else {
      this._setOutcome(kernel, { status: 'failed', items: answer.items });
    }
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

  /**
   * Write the user's own change into the notebook profile. The new content is theirs: it is recorded as approved
   * (not applied: the kernel already has the change) when the profile it replaces was approved, or empty.
   */
  private _updateProfile(panel: NotebookPanel, changes: [string, string | null][]): void {
    const before = readProfile(panel.context.model);
    let after = before;
    for (const [name, value] of changes) {
      after = updateProfile(panel.context.model, name, value);
    }
    this._model.setProfile(after);
    const key = profileKey(after);
    const trusted = !Object.keys(before).length || this._approved.get(panel) === profileKey(before);
    const client = this._client;
    if (!client || !trusted || key === profileKey(before) || !Object.keys(after).length) {
      return;
    }
    this._approved.set(panel, key);
    void client.reviewProfile(after, { approve: true, apply: false });
  }

  private _setOutcome(kernel: Kernel.IKernelConnection, review: ProfileReview): void {
    this._outcomes.set(kernel.id, review);
    if (kernel === this._kernel) {
      this._model.setProfileReview(review);
    }
  }

  private _disconnect(): void {
    if (this._client) {
      this._client.memoryReceived.disconnect(this._onMemory, this);
      this._client.dispose();
      this._client = null;
    }
  }

  private _onMemory(_: KernelClient, message: MemoryMessage): void {
    this._memoryReceived.emit(message);
  }
}

const NO_PROFILE: ProfileReview = { status: 'none', items: [] };

/** One spelling per profile content, whatever the order of its names (as the kernel's digest sees it). */
export function profileKey(profile: Profile): string {
  return JSON.stringify(Object.keys(profile).sort().map(name => [name, profile[name]]));
}
