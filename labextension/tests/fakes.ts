/** A fake kernel and comm, shaped like @jupyterlab/services' IKernelConnection / IComm where the client uses them. */
import type { Kernel } from '@jupyterlab/services';
import { Signal } from '@lumino/signaling';

import { EditorInfo, EditorKind, EntryInfo, KeyInfo, StatusCode, UnitInfo, VariableInfo } from '../src/protocol';

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
  readonly statusChanged = new Signal<this, string>(this);
  readonly id = `kernel-${++kernels}`;
  readonly name = 'python3';
  isDisposed = false;
  status = 'idle';
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

  /** The kernel's status changes ('restarting', 'dead', …), as the connection announces it. */
  setStatus(status: string): void {
    this.status = status;
    this.statusChanged.emit(status);
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

/** The kernel's units (catalog/_values.py SIZE_UNITS), as every size editor gets them. */
const SIZE_UNITS: UnitInfo[] = [
  { name: 'B', bytes: 1 },
  { name: 'KiB', bytes: 1024 },
  { name: 'MiB', bytes: 1024 ** 2 },
  { name: 'GiB', bytes: 1024 ** 3 },
  { name: 'TiB', bytes: 1024 ** 4 }
];

/** Keys of a `key:value` config as the kernel sends them for PyTorch's allocator config (a choice, a switch, a number). */
export const ALLOCATOR_KEYS: KeyInfo[] = [
  { name: 'backend', default: 'native', allowed: 'native or cudaMallocAsync', description: 'the allocator',
    editor: editorInfo('choice', { choices: ['native', 'cudaMallocAsync'] }) },
  { name: 'expandable_segments', default: 'False', allowed: 'True or False', description: 'growable segments',
    editor: editorInfo('switch', { on: 'True', off: 'False' }) },
  { name: 'max_split_size_mb', default: null, allowed: 'an integer from 11', description: 'largest block split',
    editor: editorInfo('number', { min: 11, max: null, integer: true }) },
  { name: 'roundup_power2_divisions', default: null, allowed: 'a number or [size:divisions,...]',
    description: 'rounding of sizes', editor: editorInfo('text', { placeholder: 'default' }) }
];

/** An editor spec as the kernel's presentation layer sends it for each kind (mgenv_jupyter/presentation/_editor.py). */
export function editorInfo(kind: EditorKind, extra: Partial<EditorInfo> = {}): EditorInfo {
  const byKind: Record<EditorKind, Partial<EditorInfo>> = {
    choice: { choices: ['a', 'b', 'c'] },
    switch: { on: '1', off: '0' },
    presence: { on: '1' },
    fraction: { min: 0, max: 1 },
    number: { min: 1, max: 64, integer: true },
    size: { min: 0, units: SIZE_UNITS },
    text: { placeholder: 'not set' },
    key_value: {}
  };
  return {
    kind, choices: [], optional: false, min: null, max: null, integer: false, unit_bytes: 1, units: [], on: null,
    off: null, placeholder: '', keys: kind === 'key_value' ? ALLOCATOR_KEYS : [], ...byKind[kind], ...extra
  };
}

export function entry(name: string, kind: EditorKind, extra: Partial<EntryInfo> = {}): EntryInfo {
  return {
    name,
    framework: 'megengine',
    category: 'DTR',
    description: `description of ${name}`,
    editor: editorInfo(kind),
    when: 'import',
    reading: 'read at `import megengine`',
    read_at: 'megengine/__init__.py',
    readers: ['megengine'],
    default: null,
    default_size: null,
    allowed: `allowed for ${kind}`,
    caveats: [],
    replaced_by: null,
    note: null,
    applies_when: null,
    extra: false,
    is_env: true,
    sweep: true,
    ...extra
  };
}

/** A variable's state as "state" and "changed" carry it. */
export function variable(value: string | null, status: StatusCode, extra: Partial<VariableInfo> = {}): VariableInfo {
  return {
    value, status, message: `${status} message`, live: null, live_example: false, applies: true, applies_reason: null, keys: null,
    size: null, carry: null,
    ...extra
  };
}

export const FRAMEWORKS = [
  { key: 'megengine', label: 'MegEngine' },
  { key: 'paddle', label: 'PaddlePaddle' }
];
