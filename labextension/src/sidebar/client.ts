/**
 * The kernel side of one attachment: loads the extension in the kernel with a constant (LOAD_CODE),
 * opens the comm (target "mgenv_jupyter"), says hello, hands the notebook profile to the kernel for review (and, after
 * "Restart and apply", the values it carries over, as a "set" with source "restart"), and routes
 * what the kernel answers: sidebar replies to the model, the profile's review to `profileReviewed`, memory batches to
 * `memoryReceived`. Requests are JSON data; no Python source is ever built from what the user typed.
 *
 * Everything is sent at once, without waiting for replies: the kernel handles shell messages in order, so a profile
 * the user approved earlier is applied before any cell they run after the kernel (re)connects. A profile that is not
 * approved changes nothing in the kernel; asking the user is the follower's business.
 */
import type { Kernel, KernelMessage as KernelMessages } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import {
  COMM_TARGET,
  DEFAULT_INTERVAL,
  ErrorReply,
  KernelMessage,
  LOAD_CODE,
  MemoryMessage,
  ProfileReply,
  RequestBody
} from '../protocol';
import { Answer, isKernelMessage, notConnected, PendingReplies } from '../shared/kernelChannel';
import { EnvModel } from './model';
import { Profile } from './profile/profile';
import { Language } from './text';

/** The constant the panel runs in a kernel that may not have loaded the extension (protocol/_sidebar.py: it loads
 * it as `%load_ext` does, so that the user's own `%load_ext mgenv_jupyter` stays quiet). */
export { LOAD_CODE };
/** Seconds between memory samples unless the settings say otherwise (the kernel's default, as in the settings'
 * schema, schema/sidebar.json: memoryInterval). */
export const MEMORY_INTERVAL = DEFAULT_INTERVAL;

/** The replies and the remedy a click names: one definition for the sidebar and the outputs (shared/). */
export type { Answer, RemedyChoice } from '../shared/kernelChannel';

export type KernelLike = Pick<Kernel.IKernelConnection, 'requestExecute' | 'createComm' | 'iopubMessage'>;

/** Everything the kernel sends over the sidebar's comm (the schema's union, generated from the Python protocol). */
export type KernelMessageData = KernelMessage;

/** The kernel's answer to the profile sent when the comm opened (its review, or why it could not review it). */
export interface ProfileReviewed {
  profile: Profile;
  answer: ProfileReply | ErrorReply;
}

export class KernelClient {
  private _kernel: KernelLike;
  private _model: EnvModel;
  private _language: Language;
  private _comm: Kernel.IComm | null = null;
  private _replies = new PendingReplies('sidebar');
  private _memoryOn = false;
  private _interval: number;
  private _gotCatalog = false;
  private _retried = false;
  private _loadOk = false;
  private _profile: Profile;
  private _carry: Record<string, string>;
  private _disposed = false;
  private _memoryReceived = new Signal<this, MemoryMessage>(this);
  private _profileReviewed = new Signal<this, ProfileReviewed>(this);
  private _profileOffered = new Signal<this, Record<string, string>>(this);
  private _cellOffered = new Signal<this, string>(this);

  constructor(
    kernel: KernelLike,
    model: EnvModel,
    options: { language: Language; profile?: Profile; carry?: Record<string, string>; memoryInterval?: number }
  ) {
    this._kernel = kernel;
    this._model = model;
    this._language = options.language;
    this._interval = options.memoryInterval ?? MEMORY_INTERVAL;
    this._profile = { ...(options.profile ?? {}) };
    this._carry = { ...(options.carry ?? {}) };
  }

  get memoryReceived(): ISignal<this, MemoryMessage> {
    return this._memoryReceived;
  }

  /** The kernel's answer to the notebook profile sent at start (applied if approved, otherwise nothing changed). */
  get profileReviewed(): ISignal<this, ProfileReviewed> {
    return this._profileReviewed;
  }

  /** A sweep's `.apply()` in the kernel set values the running framework had already read: for the profile. */
  get profileOffered(): ISignal<this, Record<string, string>> {
    return this._profileOffered;
  }

  /** A %%envsweep cell the kernel offers (a widget's "try several values…"): to insert below the active cell. */
  get cellOffered(): ISignal<this, string> {
    return this._cellOffered;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  get memoryOn(): boolean {
    return this._memoryOn;
  }

  /** Load the extension, open the comm, say hello and send the profile for review, all in one go. */
  start(): void {
    this._model.setConnection({ state: 'connecting', detail: '' });
    this._kernel.iopubMessage.connect(this._onIopub, this);
    const future = this._kernel.requestExecute(
      { code: LOAD_CODE, silent: true, store_history: false, allow_stdin: false, stop_on_error: false },
      true
    );
    future.done.then(
      reply => this._onLoaded(reply.content),
      error => this._onLoadFailed(String(error))
    );
    this._open();
  }

  /** Set variables; the promise resolves with the kernel's "result" or "error" for this request. */
  set(assignments: Record<string, string>, source = 'sidebar'): Promise<Answer> {
    return this._request({ type: 'set', assignments, source, force: false, env_only: false });
  }

  /**
   * Apply a remedy of the kernel's last out-of-memory report: only its ids travel, the kernel sets the remedy as its
   * own report has it (catalog variables only, never force) and refuses an id that is not of its last report.
   */
  applyRemedy(reportId: string, remedyId: string): Promise<Answer> {
    return this._request({ type: 'remedy', report_id: reportId, remedy_id: remedyId });
  }

  unset(names: string[], source = 'sidebar'): Promise<Answer> {
    return this._request({ type: 'unset', names, source });
  }

  /**
   * Ask the kernel about a notebook profile: `approve` records the user's consent to this exact profile, `apply`
   * applies it if it is approved (now or earlier). The answer lists what applying would do, variable by variable.
   */
  reviewProfile(profile: Profile, options: { approve: boolean; apply: boolean }): Promise<Answer> {
    return this._request({ type: 'profile', profile: { ...profile }, approve: options.approve, apply: options.apply });
  }

  /**
   * Ask the kernel to run cluster.verify() (it does only where Ray is initialised there, else it answers an error
   * saying how). The result arrives as a "verify" notice, to every sidebar; the answer only says whether it ran.
   */
  verify(): Promise<Answer> {
    return this._request({ type: 'verify' });
  }

  /**
   * Ask the kernel to give back what the failed cell holds (the report's "Free what the failed cell holds"): it
   * decides what to clear (never the output cache) and answers "freed" with the memory before and after.
   */
  /** Give back what the failed cell holds; `reportId`: the report whose button asks (freed once, never again). */
  free(reportId?: string): Promise<Answer> {
    return this._request(reportId === undefined ? { type: 'free' } : { type: 'free', report_id: reportId });
  }

  /** Record where memory is allocated in every cell from the next one on (what `%memtrace on` does), or stop. */
  memtrace(on: boolean): Promise<Answer> {
    return this._request({ type: 'memtrace', on });
  }

  /** "Try several values…" of `name`: the kernel answers with a %%envsweep cell for it, to insert (never to run). */
  sweepCell(name: string): Promise<Answer> {
    return this._request({ type: 'sweep_cell', name });
  }

  refresh(): void {
    void this._request({ type: 'refresh' });
  }

  /** Ask for at most `limit` changes older than change number `before` (the newest ones when null). */
  history(before: number | null, limit: number): Promise<Answer> {
    return this._request({ type: 'history', before, limit });
  }

  /** Ask for the live memory stream (or stop it); remembered and re-sent if the comm is reopened. */
  setMemory(on: boolean): void {
    if (on === this._memoryOn) {
      return;
    }
    this._memoryOn = on;
    if (this._comm) {
      void this._request({ type: 'memory', on, interval: this._interval });
    }
  }

  /** Seconds between memory samples; a running stream is told at once. */
  setMemoryInterval(interval: number): void {
    if (interval === this._interval) {
      return;
    }
    this._interval = interval;
    if (this._comm && this._memoryOn) {
      void this._request({ type: 'memory', on: true, interval });
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._kernel.iopubMessage.disconnect(this._onIopub, this);
    const comm = this._comm;
    this._comm = null;
    if (comm && !comm.isDisposed) {
      try {
        if (this._memoryOn) {
          this._send(comm, { type: 'memory', on: false, interval: this._interval });
        }
        comm.close();
      } catch {
        // the kernel is gone (restart, shutdown); nothing to tell it
      }
    }
    this._rejectPending('the sidebar stopped following this kernel');
    Signal.clearData(this);
  }

  private _open(): void {
    const comm = this._kernel.createComm(COMM_TARGET);
    this._comm = comm;
    comm.onMsg = (msg: KernelMessages.ICommMsgMsg) => this.handle(msg.content.data);
    comm.onClose = () => this._onClosed(comm);
    comm.open({});
    this._send(comm, { type: 'hello', language: this._language });
    if (Object.keys(this._profile).length) {
      const profile = this._profile;
      void this.reviewProfile(profile, { approve: false, apply: true }).then(answer => {
        // A local error (reply_to null) means the comm closed first: a reopened comm sends the profile again.
        if (!this._disposed && (answer.type === 'profile' || answer.type === 'error') && answer.reply_to !== null) {
          this._profileReviewed.emit({ profile, answer });
        }
      });
    }
    // After the profile, so the values this session set last (carried by "Restart and apply") are the ones that stand.
    if (Object.keys(this._carry).length) {
      void this.set(this._carry, 'restart');
    }
    if (this._memoryOn) {
      void this._request({ type: 'memory', on: true, interval: this._interval });
    }
  }

  /** One message from the kernel (anything else is ignored). Public so tests can drive the client without a kernel. */
  handle(message: unknown): void {
    if (this._disposed || !isKernelMessage(message)) {
      return;
    }
    if (message.type === 'memory.batch' || message.type === 'memory.snapshot') {
      this._memoryReceived.emit(message);
      return;
    }
    if (message.type === 'oom') {
      this._model.setLastOom(message.report ?? null);
      return;
    }
    if (message.type === 'verify') {
      this._model.setLastVerify(Array.isArray(message.nodes) ? message : null);
      return;
    }
    if (message.type === 'profile_offer') {
      this._profileOffered.emit({ ...message.assignments });
      return;
    }
    if (message.type === 'cell_offer') {
      if (typeof message.code === 'string') {
        this._cellOffered.emit(message.code);
      }
      return;
    }
    if (message.type === 'catalog') {
      this._gotCatalog = true;
    }
    this._model.receive(message);
    this._replies.answer(message);
  }

  /**
   * After every executed cell, ask for the state again: a cell may import a framework (which changes what each
   * variable's value means) or write os.environ directly, and neither is a change the kernel announces.
   */
  private _onIopub(_: unknown, msg: KernelMessages.IIOPubMessage): void {
    if (
      msg.header.msg_type === 'status' &&
      (msg as KernelMessages.IStatusMsg).content.execution_state === 'idle' &&
      (msg.parent_header as Partial<KernelMessages.IHeader>)?.msg_type === 'execute_request' &&
      this._gotCatalog &&
      this._comm
    ) {
      this.refresh();
    }
  }

  private _request(body: RequestBody): Promise<Answer> {
    const comm = this._comm;
    if (!comm || comm.isDisposed) {
      return Promise.resolve(notConnected('not connected to a kernel'));
    }
    return this._replies.send(comm, body);
  }

  private _send(comm: Kernel.IComm, body: RequestBody): string {
    return this._replies.post(comm, body);
  }

  private _onLoaded(content: KernelMessages.IExecuteReplyMsg['content']): void {
    if (this._disposed) {
      return;
    }
    if (content.status === 'ok') {
      this._loadOk = true;
      if (!this._comm && !this._gotCatalog && !this._retried) {
        this._retried = true; // the comm was refused before the target existed; the kernel has it now
        this._open();
      }
      return;
    }
    const ename = content.status === 'error' ? content.ename : content.status;
    const evalue = content.status === 'error' ? content.evalue : '';
    if (ename === 'ModuleNotFoundError' || /No module named/.test(evalue)) {
      this._model.setConnection({ state: 'not-installed', detail: evalue });
    } else {
      this._model.setConnection({ state: 'failed', detail: evalue ? `${ename}: ${evalue}` : ename });
    }
  }

  private _onLoadFailed(error: string): void {
    if (!this._disposed) {
      this._model.setConnection({ state: 'failed', detail: error });
    }
  }

  private _onClosed(comm: Kernel.IComm): void {
    if (this._disposed || comm !== this._comm) {
      return;
    }
    this._comm = null;
    this._rejectPending('the kernel closed the connection');
    if (!this._gotCatalog && !this._retried && this._loadOk) {
      this._retried = true;
      this._open();
      return;
    }
    const state = this._model.connection.state;
    if (state !== 'not-installed' && state !== 'failed' && (this._gotCatalog || this._loadOk)) {
      this._model.setConnection({ state: 'closed', detail: '' });
    }
  }

  private _rejectPending(message: string): void {
    this._replies.dropAll(message);
  }
}
