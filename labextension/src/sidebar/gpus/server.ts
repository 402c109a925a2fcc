/**
 * The server's GPU view (protocol/_gpus.py, `GET <base_url>mgenv-jupyter/gpus`), polled while it is shown and never
 * while it is hidden. One role: transport and state. A reading is asked for every `interval` ms (1 s by default,
 * measured from one request's start to the next) while `setActive(true)`; a request is never sent while another is
 * under way. Without the server extension (404) or when the server does not answer, it asks again less often.
 *
 * Connection states: `loading` before the first answer; `ready` with a view; `absent` — the server has no such
 * endpoint (the extension is not enabled); `forbidden` — 403, not authorised for the kernels resource;
 * `unreachable` — any other failure (`error` says what).
 */
import { ISignal, Signal } from '@lumino/signaling';

import { GPUS_VERSION, GpuServerView } from '../../protocol';

export type GpuConnection = 'loading' | 'ready' | 'absent' | 'forbidden' | 'unreachable';

/** What the model needs of an HTTP answer (ServerConnection.makeRequest's Response has it). */
export interface GpuResponse {
  status: number;
  ok: boolean;
  json(): Promise<unknown>;
}

export type GpuFetch = () => Promise<GpuResponse>;

export interface ServerGpusOptions {
  /** Milliseconds between readings while shown (at most 1000: the view updates at least once a second). */
  interval?: number;
  /** Milliseconds between tries while the endpoint is missing or the server does not answer. */
  retry?: number;
}

export class ServerGpus {
  readonly interval: number;
  readonly retry: number;
  private _fetch: GpuFetch;
  private _view: GpuServerView | null = null;
  private _connection: GpuConnection = 'loading';
  private _error = '';
  private _active = false;
  private _inFlight: Promise<void> | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _changed = new Signal<this, void>(this);
  private _disposed = false;

  constructor(fetchView: GpuFetch, { interval = 1000, retry = 10_000 }: ServerGpusOptions = {}) {
    this._fetch = fetchView;
    this.interval = Math.min(interval, 1000);
    this.retry = retry;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get view(): GpuServerView | null {
    return this._view;
  }

  get connection(): GpuConnection {
    return this._connection;
  }

  get error(): string {
    return this._error;
  }

  get active(): boolean {
    return this._active;
  }

  /** Poll while shown; stop at once when hidden (a reading under way still lands). */
  setActive(active: boolean): void {
    if (active === this._active || this._disposed) {
      return;
    }
    this._active = active;
    if (active) {
      void this._tick();
    } else {
      this._clearTimer();
    }
  }

  /** Ask now (after a shutdown, say), whatever the schedule; while a request is under way, wait for that one. */
  refresh(): Promise<void> {
    if (this._disposed) {
      return Promise.resolve();
    }
    if (!this._inFlight) {
      this._inFlight = this._ask().finally(() => {
        this._inFlight = null;
      });
    }
    return this._inFlight;
  }

  private async _ask(): Promise<void> {
    try {
      const response = await this._fetch();
      if (response.status === 404) {
        this._set('absent', null, '');
      } else if (response.status === 403) {
        this._set('forbidden', null, '');
      } else if (!response.ok) {
        this._set('unreachable', this._view, `HTTP ${response.status}`);
      } else {
        const view = await response.json();
        if (isView(view)) {
          this._set('ready', view, '');
        } else {
          this._set('unreachable', this._view, 'the server sent a view of another version');
        }
      }
    } catch (reason) {
      this._set('unreachable', this._view, reason instanceof Error ? reason.message : String(reason));
    }
  }

  dispose(): void {
    this._disposed = true;
    this._active = false;
    this._clearTimer();
    Signal.clearData(this);
  }

  private async _tick(): Promise<void> {
    this._clearTimer();
    if (!this._active || this._disposed) {
      return;
    }
    const started = Date.now();
    await this.refresh();
    if (!this._active || this._disposed) {
      return;
    }
    const wait = this._connection === 'ready' || this._connection === 'loading' ? this.interval : this.retry;
    this._timer = setTimeout(() => void this._tick(), Math.max(0, wait - (Date.now() - started)));
  }

  private _clearTimer(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private _set(connection: GpuConnection, view: GpuServerView | null, error: string): void {
    this._connection = connection;
    this._view = view;
    this._error = error;
    if (!this._disposed) {
      this._changed.emit();
    }
  }
}

/** The answer is a view of this version with the parts the section reads (the rest is typed by the schema). */
function isView(value: unknown): value is GpuServerView {
  const view = value as Partial<GpuServerView> | null;
  return (
    typeof view === 'object' &&
    view !== null &&
    view.v === GPUS_VERSION &&
    Array.isArray(view.devices) &&
    Array.isArray(view.kernels)
  );
}
