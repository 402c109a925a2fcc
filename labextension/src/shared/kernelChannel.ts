/**
 * Requests to one notebook's own kernel over the comm (target "mgenv_jupyter"), JSON only, never code. The sidebar's
 * KernelClient (sidebar/client.ts) is one such conversation, with the kernel the sidebar follows; an output of ours
 * (an out-of-memory report under a cell) holds a KernelChannel to the kernel of the notebook it is shown in, so its
 * buttons reach that kernel whichever notebook the sidebar follows, as a widget's model does.
 *
 * The channel opens its comm at its first request, to the notebook's kernel of that moment, and opens a new one when
 * the notebook's kernel is another, or restarted (a restart drops every comm, unanswered). It says no hello and asks
 * for no stream: the kernel's notices on the comm (changes, reports, offers) are the sidebar's business and are
 * ignored here.
 */
import type { Kernel, KernelMessage as KernelMessages } from '@jupyterlab/services';

import {
  COMM_TARGET,
  ErrorReply,
  FreedReply,
  HistoryReply,
  KERNEL_MESSAGE_TYPES,
  KernelMessage,
  ProfileReply,
  PROTOCOL_VERSION,
  Request,
  RequestBody,
  ResultReply,
  SweepCellReply
} from '../protocol';

export type Answer = ResultReply | ErrorReply | ProfileReply | HistoryReply | FreedReply | SweepCellReply;

/**
 * A remedy of an out-of-memory report as a click names it: the kernel's ids for the report and the remedy (all that
 * is sent) and the variables the report shows for it (kept in the notebook profile once the kernel has set them).
 */
export interface RemedyChoice {
  reportId: string;
  remedyId: string;
  assignments: Record<string, string>;
}

/** Data from the comm that is shaped as one of the kernel's messages: an object whose `type` the schema knows. */
export function isKernelMessage(data: unknown): data is KernelMessage {
  if (typeof data !== 'object' || data === null || !('type' in data)) {
    return false;
  }
  const { type } = data;
  return typeof type === 'string' && (KERNEL_MESSAGE_TYPES as readonly string[]).includes(type);
}

/** What a channel says when the comm went away before the kernel answered (reply_to null: no kernel's reply). */
export function notConnected(message: string): ErrorReply {
  return { v: PROTOCOL_VERSION, type: 'error', reply_to: null, message, field: null, code: 'not_connected' };
}

let counter = 0;

/** The requests sent on one comm and not yet answered, by id: each resolves with the kernel's reply to it. */
export class PendingReplies {
  private _pending = new Map<string, (answer: Answer) => void>();

  constructor(private _prefix: string) {}

  /** Send `body` as a request on `comm`; resolves with the kernel's answer, or `notConnected` if the comm goes. */
  send(comm: Pick<Kernel.IComm, 'send'>, body: RequestBody): Promise<Answer> {
    const id = this.post(comm, body);
    return new Promise(resolve => this._pending.set(id, resolve));
  }

  /** Send `body` without waiting for its answer; returns its id. */
  post(comm: Pick<Kernel.IComm, 'send'>, body: RequestBody): string {
    const id = `${this._prefix}-${++counter}`;
    const request: Request = { v: PROTOCOL_VERSION, id, ...body };
    comm.send(request);
    return id;
  }

  /** A message from the kernel: resolves the request it answers, if it answers one of ours. */
  answer(message: KernelMessage): void {
    if (message.type !== 'result' && message.type !== 'error' && message.type !== 'profile' &&
      message.type !== 'history' && message.type !== 'freed' && message.type !== 'sweep_cell') {
      return; // a notice, answering nothing
    }
    const resolve = message.reply_to ? this._pending.get(message.reply_to) : undefined;
    if (resolve && message.reply_to) {
      this._pending.delete(message.reply_to);
      resolve(message);
    }
  }

  /** The comm went away: every request still waiting is answered `notConnected(why)`. */
  dropAll(why: string): void {
    const pending = [...this._pending.values()];
    this._pending.clear();
    for (const resolve of pending) {
      resolve(notConnected(why));
    }
  }
}

/** A notebook's kernel as the channel needs it: the kernel it has now (null: none). */
export type OwnKernel = () => Kernel.IKernelConnection | null;

export class KernelChannel {
  private _kernel: Kernel.IKernelConnection | null = null;
  private _comm: Kernel.IComm | null = null;
  private _replies = new PendingReplies('output');
  private _disposed = false;

  constructor(private _own: OwnKernel) {}

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Set the remedy `remedyId` of report `reportId` as the kernel's own last report has it (null: no kernel). */
  applyRemedy(reportId: string, remedyId: string): Promise<Answer | null> {
    return this._request({ type: 'remedy', report_id: reportId, remedy_id: remedyId });
  }

  /** Give back what report `reportId`'s failed cell holds; a report given back already is answered with that. */
  free(reportId: string): Promise<Answer | null> {
    return this._request({ type: 'free', report_id: reportId });
  }

  /** Record allocation sites from the next cell on (what `%memtrace on` does). */
  memtrace(on: boolean): Promise<Answer | null> {
    return this._request({ type: 'memtrace', on });
  }

  /** Record `profile` as the user's own (approve) and, with `apply`, apply it (the profile's review request). */
  reviewProfile(profile: Record<string, string>, options: { approve: boolean; apply: boolean }): Promise<Answer | null> {
    return this._request({ type: 'profile', profile: { ...profile }, approve: options.approve, apply: options.apply });
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._close('the notebook was closed');
  }

  /** Null when the notebook has no running kernel now; otherwise the kernel's answer, or why none came. */
  private _request(body: RequestBody): Promise<Answer | null> {
    const kernel = this._disposed ? null : this._own();
    if (!kernel || kernel.isDisposed || kernel.status === 'dead') {
      return Promise.resolve(null);
    }
    if (kernel !== this._kernel || !this._comm || this._comm.isDisposed) {
      this._open(kernel);
    }
    return this._replies.send(this._comm!, body);
  }

  private _open(kernel: Kernel.IKernelConnection): void {
    this._close('the notebook’s kernel changed');
    this._kernel = kernel;
    kernel.statusChanged.connect(this._onStatus, this);
    const comm = kernel.createComm(COMM_TARGET);
    this._comm = comm;
    comm.onMsg = (msg: KernelMessages.ICommMsgMsg) => {
      const data = msg.content.data;
      if (isKernelMessage(data)) {
        this._replies.answer(data);
      }
    };
    // The kernel closes a comm whose target it does not have (the extension is not loaded there).
    comm.onClose = () => {
      if (comm === this._comm) {
        this._close('the kernel closed the connection');
      }
    };
    comm.open({});
  }

  /** A restart drops the kernel's comms without closing them: their requests will never be answered. */
  private _onStatus(kernel: Kernel.IKernelConnection, status: Kernel.Status): void {
    if (kernel === this._kernel && (status === 'restarting' || status === 'autorestarting' || status === 'dead')) {
      this._close('the kernel restarted');
    }
  }

  private _close(why: string): void {
    this._kernel?.statusChanged.disconnect(this._onStatus, this);
    this._kernel = null;
    const comm = this._comm;
    this._comm = null;
    if (comm && !comm.isDisposed) {
      try {
        comm.close();
      } catch {
        // the kernel is gone; nothing to tell it
      }
    }
    this._replies.dropAll(why);
  }
}
