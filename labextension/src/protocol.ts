/**
 * The wire between the kernel and the front end, defined once here and once on the Python side
 * (mgenv_jupyter/memory/protocol.py for memory batches); tests/test_protocol_agreement.py checks that the two agree.
 * Sizes are bytes; times are seconds since the epoch.
 */

/** One line on the chart: "<device> <quantity>". */
export interface SeriesInfo {
  key: string;
  device: string;
  quantity: string; // used | total | process | allocated | reserved | peak
  source: string;
  simulated: boolean;
}

/** What a memory source is doing, in words ("ok", "no NVIDIA driver", "simulated", ...). */
export interface SourceState {
  name: string;
  state: string;
  simulated: boolean;
}

/** A horizontal line: device total, DTR eviction threshold, Paddle's fraction cap. */
export interface OverlayInfo {
  key: string;
  kind: string; // total | dtr_threshold | paddle_cap
  device: string | null;
  bytes: number;
  label: string;
  note: string;
}

/** One executed cell: sent when it starts (end null) and again when it ends, with its peak per series. */
export interface CellInfo {
  cell: number;
  start: number;
  end: number | null;
  duration: number | null;
  ok: boolean | null;
  peak: Record<string, number>;
}

/** New rows, column-wise; `series`, `sources`, `overlays` only when they change (complete lists). */
export interface MemoryBatch {
  type: 'memory.batch';
  seq: number;
  interval: number;
  t: number[];
  columns: Record<string, (number | null)[]>;
  cells: CellInfo[];
  series?: SeriesInfo[];
  sources?: SourceState[];
  overlays?: OverlayInfo[];
}

/** The whole history, same shape as a batch, sent when a view opens; it replaces what the view had. */
export interface MemorySnapshot extends Omit<MemoryBatch, 'type'> {
  type: 'memory.snapshot';
}

/** Front end → kernel: a chart view opened and wants the snapshot. */
export interface MemoryHello {
  type: 'memory.hello';
}

export type MemoryMessage = MemoryBatch | MemorySnapshot;

// ---- The sidebar's comm (target "mgenv_jupyter"); kernel side: mgenv_jupyter/protocol.py -----------------------

export const PROTOCOL_VERSION = 1;
export const COMM_TARGET = 'mgenv_jupyter';

export interface HelloRequest {
  v: number;
  id: string;
  type: 'hello';
  language: string;
}

export interface SetRequest {
  v: number;
  id: string;
  type: 'set';
  assignments: Record<string, string>;
  source: string;
  force: boolean;
  env_only: boolean;
}

export interface UnsetRequest {
  v: number;
  id: string;
  type: 'unset';
  names: string[];
  source: string;
}

export interface RefreshRequest {
  v: number;
  id: string;
  type: 'refresh';
}

export interface MemoryRequest {
  v: number;
  id: string;
  type: 'memory';
  on: boolean;
  interval: number;
}

export interface HistoryRequest {
  v: number;
  id: string;
  type: 'history';
  before: number | null;
  limit: number;
}

/** Review a notebook profile; `approve` records the user's consent to this exact profile; `apply` applies it if approved. */
export interface ProfileRequest {
  v: number;
  id: string;
  type: 'profile';
  profile: Record<string, string>;
  approve: boolean;
  apply: boolean;
}

export type Request =
  | HelloRequest
  | SetRequest
  | UnsetRequest
  | RefreshRequest
  | MemoryRequest
  | HistoryRequest
  | ProfileRequest;

export interface VariableInfo {
  value: string | null;
  status: string;
  message: string;
}

export interface ChangeInfo {
  seq: number;
  time: number;
  name: string;
  old: string | null;
  new: string | null;
  source: string;
  outcome: string;
  message: string;
  effective: string | null;
  secret: boolean;
}

export interface KernelInfo {
  python: string;
  version: string;
  imported: string[];
}

/** One catalog entry as the kernel describes it (Entry.to_json). */
export interface EntryInfo {
  name: string;
  framework: string;
  category: string;
  type: { kind: string; allowed: string; choices: string[]; [key: string]: unknown };
  default: string | null;
  when: string;
  readers: string[];
  read_at: string;
  description: string;
  live_api: string | null;
  first_use: string | null;
  caveats: string[];
  replaced_by: string | null;
  extra: boolean;
  is_env: boolean;
}

export interface CatalogReply {
  v: number;
  type: 'catalog';
  reply_to: string | null;
  language: string;
  entries: EntryInfo[];
}

export interface StateReply {
  v: number;
  type: 'state';
  reply_to: string | null;
  variables: Record<string, VariableInfo>;
  history: ChangeInfo[];
  history_total: number;
  kernel: KernelInfo;
}

export interface ResultReply {
  v: number;
  type: 'result';
  reply_to: string;
  changes: ChangeInfo[];
}

export interface ErrorReply {
  v: number;
  type: 'error';
  reply_to: string | null;
  message: string;
}

export interface ChangedNotice {
  v: number;
  type: 'changed';
  changes: ChangeInfo[];
  variables: Record<string, VariableInfo>;
}

export interface HistoryReply {
  v: number;
  type: 'history';
  reply_to: string;
  changes: ChangeInfo[];
  total: number;
}

/** One variable of a reviewed profile: what applying the profile would do with it. */
export interface ProfileItemInfo {
  name: string;
  value: string | null;
  current: string | null;
  action: string; // set | unchanged | refused
  reason: string | null;
}

export interface ProfileReply {
  v: number;
  type: 'profile';
  reply_to: string;
  digest: string;
  approved: boolean;
  stored: boolean;
  applied: boolean;
  items: ProfileItemInfo[];
  changes: ChangeInfo[];
}

export type Reply =
  | CatalogReply
  | StateReply
  | ResultReply
  | ErrorReply
  | ChangedNotice
  | HistoryReply
  | ProfileReply
  | MemoryMessage;
