/**
 * Follows the active notebook and its kernel: a notebook becoming current, its kernel changing, restarting (by the
 * user, by "Restart and apply", or automatically after a crash), dying or shutting down, and the notebook closing —
 * all without a page reload. Each fresh kernel process gets a KernelClient that hands it the notebook profile before
 * any cell the user runs next; whether that profile applies, and asking the user, is the profile-trust protocol's
 * business (profile/consent.ts). The sidebar's edits and the remedies clicked in its card go to the followed kernel
 * through here, and join the notebook profile once the kernel accepts them; so do the remedies a report under a cell
 * set in its own notebook's kernel (keepRemedy).
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel, Session } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { MemoryMessage, ResultReply } from '../protocol';
import { Answer, KernelClient, MEMORY_INTERVAL, ProfileReviewed, RemedyChoice } from './client';
import { EnvModel } from './model';
import { isSecret, readProfile, updateProfile } from './profile/profile';
import { NEVER, ProfileConsent, ProfileReviewer } from './profile/consent';
import { ProfileQuestion } from './profile/review';

export { profileKey } from './profile/consent';

/** How long "Restart and apply" waits for the kernel to record the kept values as the user's own profile. */
const KEEP_WAIT_MS = 3000;

function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

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

export class NotebookFollower {
  private _source: NotebookSource;
  private _model: EnvModel;
  private _consent: ProfileConsent;
  private _panel: NotebookPanel | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _client: KernelClient | null = null;
  private _memoryOn = false;
  // What "Restart and apply" carries into the kernel it restarts: handed to that kernel's client once.
  private _carry: Record<string, string> = {};
  private _memoryInterval = MEMORY_INTERVAL;
  private _active = false;
  private _reattachScheduled = false;
  private _disposed = false;
  private _memoryReceived = new Signal<this, MemoryMessage>(this);
  private _clientChanged = new Signal<this, KernelClient | null>(this);

  constructor(source: NotebookSource, model: EnvModel, ask: ProfileQuestion = NEVER) {
    this._source = source;
    this._model = model;
    this._consent = new ProfileConsent(model, ask, { kernel: () => this._kernel, client: () => this._client });
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
      void this._updateProfile(panel, [[name, stored(answer, name, value)]]);
    }
    return answer;
  }

  /**
   * A remedy clicked in the panel's copy of the followed kernel's last out-of-memory report: its ids go to that kernel
   * as a "remedy" request (the kernel sets the remedy its own last report holds, catalog variables only, all or
   * nothing, and refuses a stale id) and, once accepted, its variables join the notebook profile (keepRemedy).
   * Connects to the kernel first when the sidebar was on standby. Null: `panel` is not the followed notebook, or it
   * has no kernel. A report under a cell asks its own notebook's kernel instead (shared/kernelChannel.ts).
   */
  async applyRemedy(panel: NotebookPanel, choice: RemedyChoice): Promise<Answer | null> {
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
    const answer = await client.applyRemedy(choice.reportId, choice.remedyId);
    this.keepRemedy(panel, choice, answer, client);
    return answer;
  }

  /**
   * A remedy `panel`'s kernel accepted (`answer` a "result"): its variables join that notebook's profile like a sidebar
   * edit, so "Restart and apply" brings them into a new kernel, whether or not the sidebar follows that notebook.
   * `kernel` is the notebook's own connection, which records the new profile as the user's (ProfileConsent.edited).
   */
  keepRemedy(panel: NotebookPanel, choice: RemedyChoice, answer: Answer | null, kernel: ProfileReviewer): void {
    if (answer?.type === 'result' && !panel.isDisposed) {
      void this._updateProfile(
        panel,
        Object.entries(choice.assignments).map(([name, value]) => [name, stored(answer, name, value)]),
        kernel
      );
    }
  }

  /** A remedy clicked in the panel's copy of the last out-of-memory report: for the followed notebook. */
  applyRemedyToFollowed(choice: RemedyChoice): Promise<Answer | null> {
    return this._panel ? this.applyRemedy(this._panel, choice) : Promise.resolve(null);
  }

  /** Run cluster.verify() in the followed kernel (null: no kernel to ask). Its result comes as a "verify" notice. */
  verifyNodes(): Promise<Answer | null> {
    return this._client ? this._client.verify() : Promise.resolve(null);
  }

  /**
   * "Try several values…" of a variable: the followed kernel writes a %%envsweep cell for it (its values from the
   * variable's type), inserted below the active cell of the followed notebook for the user to edit and run. Nothing
   * runs. Null: no kernel followed.
   */
  async trySeveral(name: string): Promise<Answer | null> {
    const client = this._client;
    const panel = this._panel;
    if (!client || !panel) {
      return null;
    }
    const answer = await client.sweepCell(name);
    if (answer.type === 'sweep_cell' && panel === this._panel && !panel.isDisposed) {
      insertCell(panel, answer.code);
    }
    return answer;
  }

  /** Remove a variable from the notebook profile only (the running kernel keeps its value). */
  forget(name: string): void {
    const panel = this._panel;
    if (panel && !panel.isDisposed) {
      void this._updateProfile(panel, [[name, null]]);
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
    await this._consent.reviewAgain(client, panel, kernel);
  }

  refresh(): void {
    this._client?.refresh();
  }

  /**
   * Keep values in the notebook profile (the restart's carried values the user ticked), as the user's own edit; resolves
   * once the kernel has recorded the new profile as approved, so the restarting kernel applies it without asking.
   */
  async keep(values: Record<string, string>): Promise<void> {
    const panel = this._panel;
    if (panel && !panel.isDisposed && Object.keys(values).length) {
      // A kernel busy with a cell answers only after it: the restart does not wait for that (the carried values reach
      // the new kernel either way; its profile question then comes from the kernel that missed the approval).
      await Promise.race([this._updateProfile(panel, Object.entries(values)), delay(KEEP_WAIT_MS)]);
    }
  }

  /**
   * Restart the kernel; an approved profile is applied as it comes back, before any cell runs, and then `carry`, the
   * values this session set that a restart carries over (source "restart": the kernel checks them again).
   */
  async restartAndApply(carry: Record<string, string> = {}): Promise<void> {
    const context = this._panel?.sessionContext;
    if (context?.session?.kernel) {
      this._carry = { ...carry };
      try {
        await context.restartKernel();
      } catch (error) {
        this._carry = {};
        throw error;
      }
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._follow(null);
    this._consent.dispose();
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
      this._consent.restarted(this._kernel); // a new process: it gets the profile again
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
    return this._active || Object.keys(this._model.profile).length > 0 || Object.keys(this._carry).length > 0;
  }

  private _connect(kernel: Kernel.IKernelConnection): void {
    const panel = this._panel;
    if (!panel) {
      return;
    }
    const profile = this._consent.profileFor(kernel, panel); // once per kernel process
    const carry = this._carry;
    this._carry = {};
    const client = new KernelClient(kernel, this._model, {
      language: this._model.language,
      profile,
      carry,
      memoryInterval: this._memoryInterval
    });
    this._client = client;
    client.memoryReceived.connect(this._onMemory, this);
    client.profileReviewed.connect(this._onProfileReviewed, this);
    client.profileOffered.connect(this._onProfileOffered, this);
    client.cellOffered.connect(this._onCellOffered, this);
    client.setMemory(this._memoryOn);
    client.start();
    this._clientChanged.emit(client);
  }

  private _onProfileReviewed(client: KernelClient, { profile, answer }: ProfileReviewed): void {
    const panel = this._panel;
    const kernel = this._kernel;
    if (client === this._client && panel && kernel) {
      void this._consent.reviewed(client, panel, kernel, profile, answer);
    }
  }

  /**
   * A sweep's `.apply()` in the followed kernel set values its framework had already read: the notebook profile keeps
   * them, as if edited here, so "Restart and apply" starts a kernel with them. A secret is never kept.
   */
  private _onProfileOffered(client: KernelClient, assignments: Record<string, string>): void {
    const panel = this._panel;
    if (client !== this._client || !panel || panel.isDisposed) {
      return;
    }
    const kept = Object.entries(assignments).filter(([name]) => !isSecret(name));
    if (kept.length) {
      void this._updateProfile(panel, kept);
    }
  }

  /** A cell the followed kernel offers (a widget's "try several values…"): inserted below the active cell, unrun. */
  private _onCellOffered(client: KernelClient, code: string): void {
    const panel = this._panel;
    if (client === this._client && panel && !panel.isDisposed) {
      insertCell(panel, code);
    }
  }

  /** Write the user's own change into the notebook profile; the consent records the new content as theirs through
   * `kernel`, the followed kernel's client unless said (the promise resolves when the kernel has). */
  private _updateProfile(panel: NotebookPanel, changes: [string, string | null][], kernel?: ProfileReviewer): Promise<void> {
    const before = readProfile(panel.context.model);
    let after = before;
    for (const [name, value] of changes) {
      after = updateProfile(panel.context.model, name, value);
    }
    if (panel === this._panel) {
      this._model.setProfile(after);
    }
    return this._consent.edited(panel, before, after, kernel);
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

/** Insert a code cell holding `code` below the notebook's active cell and make it the active one; it is not run. */
export function insertCell(panel: NotebookPanel, code: string): void {
  const notebook = panel.content;
  const model = notebook.model;
  if (!model) {
    return;
  }
  const index = Math.min(notebook.activeCellIndex + 1, model.sharedModel.cells.length);
  model.sharedModel.insertCell(index, { cell_type: 'code', source: code, metadata: {} });
  notebook.activeCellIndex = index;
}
