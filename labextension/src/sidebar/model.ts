/**
 * The sidebar's state for the notebook it follows: the kernel's catalog (entries and framework names), every
 * variable's value, status and applicability, the change history, the last error, the notebook profile (and what
 * became of it in this kernel) and the connection. The kernel is the one source of truth: `receive` folds its
 * messages in (catalog → state → changed → history); views listen to `changed`.
 */
import { ISignal, Signal } from '@lumino/signaling';

import {
  MAX_HISTORY_WINDOW,
  ChangeInfo,
  EntryInfo,
  KernelInfo,
  OomReportData,
  ProfileItemInfo,
  PROTOCOL_VERSION,
  Reply,
  SizeInfo,
  VariableInfo,
  VerifyNotice
} from '../protocol';
import { Badge, badgeFor } from '../shared/badges';
import { Profile } from './profile/profile';
import { Language } from './text';

/** How many size values of one variable the model remembers the kernel's split of. */
const REMEMBERED_SIZES = 16;

export type ConnectionState =
  | 'no-notebook' // no notebook is current
  | 'no-kernel' // the notebook has no kernel
  | 'standby' // a kernel, not connected: the panel has not been shown and the notebook has no profile
  | 'connecting' // load_ext sent, waiting for the catalog
  | 'ready' // catalog received
  | 'restarting'
  | 'not-installed' // ModuleNotFoundError from `%load_ext mgenv_jupyter`
  | 'failed' // `%load_ext` failed otherwise, or the protocol is not one we speak
  | 'closed' // the kernel closed the comm
  | 'dead';

/**
 * What became of the notebook profile in the followed kernel process. The kernel decides what is approved and
 * applied; the front end only asks the user and reports.
 */
export type ProfileStatus =
  | 'none' // nothing to apply: the notebook has no profile, or this kernel has not been sent it
  | 'checking' // sent to the kernel, waiting for its review
  | 'asking' // the kernel has no approval for this exact profile: the user is being asked
  | 'applied' // approved (now or earlier) and applied: nothing refused was set
  | 'declined' // the user did not approve it: nothing of it was applied to this kernel
  | 'failed'; // the kernel answered the review with an error (shown as the model's error)

export interface ProfileReview {
  status: ProfileStatus;
  /** The kernel's review, variable by variable (empty until it has answered). */
  items: readonly ProfileItemInfo[];
}

/** An error the kernel gave about one variable of the catalog (the error reply's `field`). */
export interface FieldError {
  name: string;
  message: string;
}

export interface Connection {
  state: ConnectionState;
  notebook: string;
  kernel: string;
  detail: string;
}

/** What changed; `names` lists the variables whose value or status changed (all when absent). */
export type ModelChange =
  | { kind: 'catalog' }
  | { kind: 'variables'; names?: string[] }
  | { kind: 'history' }
  | { kind: 'error' }
  | { kind: 'connection' }
  | { kind: 'profile' }
  | { kind: 'filter' }
  | { kind: 'oom' }
  | { kind: 'verify' };

export interface CategoryGroup {
  category: string;
  entries: EntryInfo[];
}

export interface FrameworkGroup {
  framework: string;
  categories: CategoryGroup[];
}

/** Changes kept, and the most one "history" request asks for (the kernel's window, generated from the protocol). */
export const HISTORY_LIMIT = MAX_HISTORY_WINDOW;

export class EnvModel {
  private _language: Language;
  private _entries: EntryInfo[] = [];
  private _byName = new Map<string, EntryInfo>();
  private _frameworks = new Map<string, string>();
  private _variables: Record<string, VariableInfo> = {};
  // The kernel's splits of the size values it has held, by name (the latest REMEMBERED_SIZES each). Kept across a
  // restart: how a value is written is the notation's, not the kernel's state.
  private _sizes = new Map<string, Map<string, SizeInfo>>();
  private _history: ChangeInfo[] = [];
  private _historyTotal = 0;
  private _olderGone = false; // the kernel answered a request for older changes with none
  private _kernel: KernelInfo | null = null;
  private _error: string | null = null;
  private _fieldError: FieldError | null = null;
  private _profile: Profile = {};
  private _review: ProfileReview = { status: 'none', items: [] };
  private _lastOom: OomReportData | null = null;
  private _lastReportId: string | null | undefined = undefined;
  private _lastVerify: VerifyNotice | null = null;
  private _filter = '';
  private _connection: Connection = { state: 'no-notebook', notebook: '', kernel: '', detail: '' };
  private _changed = new Signal<this, ModelChange>(this);

  constructor(language: Language = 'en') {
    this._language = language;
  }

  get changed(): ISignal<this, ModelChange> {
    return this._changed;
  }

  get language(): Language {
    return this._language;
  }

  get entries(): readonly EntryInfo[] {
    return this._entries;
  }

  entry(name: string): EntryInfo | undefined {
    return this._byName.get(name);
  }

  get variables(): Readonly<Record<string, VariableInfo>> {
    return this._variables;
  }

  variable(name: string): VariableInfo | undefined {
    return this._variables[name];
  }

  /**
   * A size setting's `value` as the kernel split it (the number and unit a size editor shows; "3 GiB" wherever else
   * it is shown), from what the kernel sent for that very value: the variable's value now or earlier (a profile keeps
   * a value the kernel held when the sidebar set it), its default, or the reviewed profile's value. Null for any other
   * value, or one the kernel has not split: it is shown as it is.
   */
  sizeOf(name: string, value: string | null | undefined): SizeInfo | null {
    if (value === null || value === undefined) {
      return null;
    }
    const now = this._variables[name];
    if (now?.size && now.value === value) {
      return now.size;
    }
    const held = this._sizes.get(name)?.get(value);
    if (held) {
      return held;
    }
    const entry = this._byName.get(name);
    if (entry?.default_size && entry.default === value) {
      return entry.default_size;
    }
    return this._review.items.find(item => item.name === name && item.value === value)?.size ?? null;
  }

  /** The framework's name as the kernel spells it in the catalog language (the key itself if it sent none). */
  frameworkLabel(key: string): string {
    return this._frameworks.get(key) ?? key;
  }

  /** Oldest first, at most HISTORY_LIMIT, each change once (by its number). */
  get history(): readonly ChangeInfo[] {
    return this._history;
  }

  /** How many changes the kernel has recorded (its last change's number). */
  get historyTotal(): number {
    return Math.max(this._historyTotal, this._history[this._history.length - 1]?.seq ?? 0);
  }

  /** Whether the kernel may hold changes older than the oldest one here, and there is room for them. */
  get olderAvailable(): boolean {
    const oldest = this._history[0]?.seq ?? this.historyTotal + 1;
    return !this._olderGone && oldest > 1 && this._history.length < HISTORY_LIMIT;
  }

  get kernel(): KernelInfo | null {
    return this._kernel;
  }

  /** The last error that concerns no single variable (the panel shows it above the catalog). */
  get error(): string | null {
    return this._error;
  }

  /** The last error about one variable (the panel shows it under that variable's editor). */
  get fieldError(): FieldError | null {
    return this._fieldError;
  }

  get profile(): Readonly<Profile> {
    return this._profile;
  }

  get profileReview(): Readonly<ProfileReview> {
    return this._review;
  }

  get filter(): string {
    return this._filter;
  }

  get connection(): Readonly<Connection> {
    return this._connection;
  }

  badge(name: string): Badge | null {
    const info = this._variables[name];
    return info ? badgeFor(info.status, this._language) : null;
  }

  /**
   * Fold one kernel message into the state. Returns false for anything that is not a sidebar reply of our protocol
   * version (ignored, the state unchanged).
   */
  receive(message: Reply): boolean {
    if (!isObject(message) || typeof message.type !== 'string') {
      return false;
    }
    if ('v' in message && message.v !== PROTOCOL_VERSION) {
      this.setConnection({
        state: 'failed',
        detail: `the kernel speaks sidebar protocol v${String(message.v)}, this front end v${PROTOCOL_VERSION}`
      });
      return false;
    }
    switch (message.type) {
      case 'catalog':
        if (!Array.isArray(message.entries)) {
          return false;
        }
        this._entries = message.entries;
        this._byName = new Map(message.entries.map(e => [e.name, e]));
        this._frameworks = new Map((message.frameworks ?? []).map(f => [f.key, f.label]));
        this._changed.emit({ kind: 'catalog' });
        if (this._connection.state === 'connecting') {
          this.setConnection({ state: 'ready', detail: '' });
        }
        return true;
      case 'state':
        this._variables = { ...(message.variables ?? {}) };
        this._rememberSizes(this._variables);
        // The latest window; older changes already here (loaded on request) stay.
        this._history = mergeHistory(this._history, message.history ?? []);
        this._historyTotal = message.history_total ?? 0;
        this._kernel = message.kernel ?? null;
        // A kernel that does not say (another version) leaves it unknown: no report is called stale then.
        this._lastReportId = typeof message.last_report === 'string' || message.last_report === null
          ? message.last_report
          : undefined;
        this._changed.emit({ kind: 'oom' });
        this._changed.emit({ kind: 'variables' });
        this._changed.emit({ kind: 'history' });
        this._changed.emit({ kind: 'connection' });
        return true;
      case 'changed': {
        const variables = message.variables ?? {};
        Object.assign(this._variables, variables);
        this._rememberSizes(variables);
        const changes = message.changes ?? [];
        const names = [...new Set([...Object.keys(variables), ...changes.map(c => c.name)])];
        this._changed.emit({ kind: 'variables', names });
        if (changes.length) {
          this._history = mergeHistory(this._history, changes);
          this._changed.emit({ kind: 'history' });
        }
        return true;
      }
      case 'history': {
        const changes = message.changes ?? [];
        const oldest = this._history[0]?.seq ?? Infinity;
        if (!changes.some(c => c.seq < oldest)) {
          this._olderGone = true; // the kernel has dropped them (it keeps a bounded history)
        }
        this._history = mergeHistory(this._history, changes);
        this._historyTotal = Math.max(this._historyTotal, message.total ?? 0);
        this._changed.emit({ kind: 'history' });
        return true;
      }
      case 'result':
      case 'profile':
        // What changed arrives again, to every sidebar, as a "changed" notice; the history is taken from there.
        if (this._error !== null || this._fieldError !== null) {
          this._error = null;
          this._fieldError = null;
          this._changed.emit({ kind: 'error' });
        }
        return true;
      case 'error': {
        const text = typeof message.message === 'string' ? message.message : 'the kernel rejected the request';
        const name = this._catalogField(message.field);
        if (name === null) {
          this._error = text;
        } else {
          this._fieldError = { name, message: text };
        }
        this._changed.emit({ kind: 'error' });
        return true;
      }
      default:
        return false;
    }
  }

  private _rememberSizes(variables: Readonly<Record<string, VariableInfo>>): void {
    for (const [name, info] of Object.entries(variables)) {
      if (info.size && info.value !== null) {
        const held = this._sizes.get(name) ?? new Map<string, SizeInfo>();
        held.delete(info.value); // the latest last
        held.set(info.value, info.size);
        if (held.size > REMEMBERED_SIZES) {
          held.delete(held.keys().next().value as string);
        }
        this._sizes.set(name, held);
      }
    }
  }

  setConnection(update: Partial<Connection>): void {
    this._connection = { ...this._connection, ...update };
    this._changed.emit({ kind: 'connection' });
  }

  /** Forget everything the previous kernel said (a new kernel, a restart, another notebook). */
  resetKernelState(): void {
    this._entries = [];
    this._byName.clear();
    this._frameworks.clear();
    this._variables = {};
    this._history = [];
    this._historyTotal = 0;
    this._olderGone = false;
    this._kernel = null;
    this._error = null;
    this._fieldError = null;
    this._review = { status: 'none', items: [] };
    this._lastOom = null;
    this._lastReportId = undefined;
    this._lastVerify = null;
    this._changed.emit({ kind: 'oom' });
    this._changed.emit({ kind: 'verify' });
    this._changed.emit({ kind: 'catalog' });
    this._changed.emit({ kind: 'history' });
    this._changed.emit({ kind: 'error' });
    this._changed.emit({ kind: 'profile' });
  }

  setLanguage(language: Language): void {
    this._language = language;
  }

  /** The followed kernel's last out-of-memory report (null: none since this kernel process started). */
  get lastOom(): OomReportData | null {
    return this._lastOom;
  }

  setLastOom(report: OomReportData | null): void {
    this._lastOom = report;
    if (report) {
      this._lastReportId = report.id;
    }
    this._changed.emit({ kind: 'oom' });
  }

  /**
   * The id of the followed kernel's last out-of-memory report, as it said in its state and in each report since:
   * null when it has none, undefined before it said (or a kernel that does not say). A report shown with another id
   * is an earlier kernel's or an earlier failure's: the kernel refuses its buttons.
   */
  get lastReportId(): string | null | undefined {
    return this._lastReportId;
  }

  /** The followed kernel's last cluster.verify() result (null: none since this kernel process started). */
  get lastVerify(): VerifyNotice | null {
    return this._lastVerify;
  }

  setLastVerify(result: VerifyNotice | null): void {
    this._lastVerify = result;
    this._changed.emit({ kind: 'verify' });
  }

  setProfile(profile: Profile): void {
    this._profile = { ...profile };
    this._changed.emit({ kind: 'profile' });
  }

  setProfileReview(review: ProfileReview): void {
    this._review = { status: review.status, items: [...review.items] };
    this._changed.emit({ kind: 'profile' });
  }

  setError(message: string | null): void {
    this._error = message;
    this._changed.emit({ kind: 'error' });
  }

  /** The catalog variable a kernel error is about (the reply's `field`); null when it names none of the catalog's. */
  private _catalogField(field: string | null | undefined): string | null {
    return typeof field === 'string' && this._byName.has(field) ? field : null;
  }

  setFilter(filter: string): void {
    if (filter !== this._filter) {
      this._filter = filter;
      this._changed.emit({ kind: 'filter' });
    }
  }

  /** Whether an entry matches the search box: every word appears in its name or description. */
  matches(entry: EntryInfo, filter: string = this._filter): boolean {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) {
      return true;
    }
    const haystack = `${entry.name}\n${entry.description ?? ''}`.toLowerCase();
    return words.every(word => haystack.includes(word));
  }

  /** The catalog grouped by framework, then category, in the kernel's order; only entries matching the filter. */
  groups(filter: string = this._filter): FrameworkGroup[] {
    const frameworks = new Map<string, Map<string, EntryInfo[]>>();
    for (const entry of this._entries) {
      if (!this.matches(entry, filter)) {
        continue;
      }
      let categories = frameworks.get(entry.framework);
      if (!categories) {
        categories = new Map();
        frameworks.set(entry.framework, categories);
      }
      const list = categories.get(entry.category) ?? [];
      list.push(entry);
      categories.set(entry.category, list);
    }
    return [...frameworks].map(([framework, categories]) => ({
      framework,
      categories: [...categories].map(([category, entries]) => ({ category, entries }))
    }));
  }
}

/** Both lists of changes, each change once (a change's number identifies it in a kernel), oldest first, bounded. */
function mergeHistory(kept: readonly ChangeInfo[], arrived: readonly ChangeInfo[]): ChangeInfo[] {
  const bySeq = new Map<number, ChangeInfo>();
  for (const change of [...kept, ...arrived]) {
    bySeq.set(change.seq, change);
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq).slice(-HISTORY_LIMIT);
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null;
}
