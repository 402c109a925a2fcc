/** A fake kernel and comm, shaped like @jupyterlab/services' IKernelConnection / IComm where the client uses them. */
import type { Kernel } from '@jupyterlab/services';
import { Signal } from '@lumino/signaling';

import { EntryInfo } from '../src/protocol';

export class FakeComm {
  readonly targetName: string;
  readonly commId: string;
  isDisposed = false;
  opened = false;
  closed = false;
  sent: any[] = [];
  onMsg: (msg: any) => void = () => undefined;
  onClose: (msg: any) => void = () => undefined;

  constructor(targetName: string, commId: string) {
    this.targetName = targetName;
    this.commId = commId;
  }

  open(): void {
    this.opened = true;
  }

  send(data: any): void {
    if (this.isDisposed) {
      throw new Error('comm is closed');
    }
    this.sent.push(data);
  }

  close(): void {
    this.closed = true;
    this.isDisposed = true;
  }

  dispose(): void {
    this.isDisposed = true;
  }

  /** The kernel sends a message on this comm. */
  deliver(data: unknown): void {
    this.onMsg({ content: { comm_id: this.commId, data } });
  }

  /** The kernel closes the comm (as ipykernel does for an unknown target). */
  closeFromKernel(): void {
    this.isDisposed = true;
    this.onClose({ content: { comm_id: this.commId, data: {} } });
  }

  /** What was sent, without the id and version (those are checked separately). */
  bodies(): any[] {
    return this.sent.map(({ id, v, ...body }) => body);
  }
}

let kernels = 0;

export class FakeKernel {
  readonly iopubMessage = new Signal<this, any>(this);
  readonly id = `kernel-${++kernels}`;
  readonly name = 'python3';
  isDisposed = false;
  executes: any[] = [];
  comms: FakeComm[] = [];
  private _replies: ((content: any) => void)[] = [];

  requestExecute(content: any): { done: Promise<{ content: any }> } {
    this.executes.push(content);
    let resolve!: (value: { content: any }) => void;
    const done = new Promise<{ content: any }>(r => (resolve = r));
    this._replies.push(content => resolve({ content }));
    return { done };
  }

  createComm(targetName: string): FakeComm {
    const comm = new FakeComm(targetName, `comm-${this.comms.length + 1}`);
    this.comms.push(comm);
    return comm;
  }

  /** Answer the oldest unanswered execute request. */
  async reply(content: any): Promise<void> {
    this._replies.shift()?.(content);
    await flush();
  }

  /** The kernel went idle after running something (a cell, or a comm message). */
  idleAfter(parentType: string): void {
    this.iopubMessage.emit({
      header: { msg_type: 'status' }, parent_header: { msg_type: parentType }, content: { execution_state: 'idle' }
    });
  }

  get comm(): FakeComm {
    return this.comms[this.comms.length - 1];
  }

  asKernel(): Kernel.IKernelConnection {
    return this as unknown as Kernel.IKernelConnection;
  }
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
  }
}

export function entry(name: string, kind: string, extra: Partial<EntryInfo> = {}): EntryInfo {
  const choices: Record<string, string[]> = { enum: ['a', 'b', 'c'], switch: ['1', '0'], presence: ['1'] };
  return {
    name,
    framework: 'megengine',
    category: 'DTR',
    type: { kind, allowed: `allowed for ${kind}`, choices: choices[kind] ?? [] },
    default: null,
    when: 'import',
    readers: ['megengine'],
    read_at: 'megengine/__init__.py',
    description: `description of ${name}`,
    live_api: null,
    first_use: null,
    caveats: [],
    replaced_by: null,
    extra: false,
    is_env: true,
    ...extra
  };
}
