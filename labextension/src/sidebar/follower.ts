/**
 * Follows the active notebook and its kernel: a notebook becoming current, its kernel changing, restarting (by the
 * user, by "Restart and apply", or automatically after a crash), dying or shutting down, and the notebook closing —
 * all without a page reload. Each (re)connected kernel gets a fresh KernelClient, which applies the notebook profile
 * before any cell the user runs next.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel, Session } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { MemoryMessage } from '../protocol';
import { Answer, KernelClient } from './client';
import { EnvModel } from './model';
import { isSecret, readProfile, updateProfile } from './profile';

/** What the follower needs from INotebookTracker. */
export interface NotebookSource {
  readonly currentWidget: NotebookPanel | null;
  readonly currentChanged: ISignal<any, NotebookPanel | null>;
}

export class NotebookFollower {
  private _source: NotebookSource;
  private _model: EnvModel;
  private _panel: NotebookPanel | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _client: KernelClient | null = null;
  private _memoryOn = false;
  private _active = false;
  private _reattachScheduled = false;
  private _profileApplied = new Set<string>(); // kernel ids whose current process has had the profile
  private _disposed = false;
  private _memoryReceived = new Signal<this, MemoryMessage>(this);
  private _clientChanged = new Signal<this, KernelClient | null>(this);

  constructor(source: NotebookSource, model: EnvModel) {
    this._source = source;
    this._model = model;
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

  /**
   * A sidebar edit: set (value) or unset (null) in the kernel; once the kernel accepts it, the notebook profile
   * keeps it (or forgets it), so it is applied again whenever this notebook's kernel starts.
   */
  async edit(name: string, value: string | null): Promise<Answer | null> {
    const client = this._client;
    const panel = this._panel;
    if (!client || !panel) {
      return null;
    }
    const answer = value === null ? await client.unset([name]) : await client.set({ [name]: value });
    if (answer.type === 'result' && panel === this._panel && !panel.isDisposed) {
      const change = answer.changes.find(c => c.name === name);
      const stored = value === null ? null : (change?.new ?? value);
      this._model.setProfile(updateProfile(panel.context.model, name, isSecret(name) ? null : stored));
    }
    return answer;
  }

  /** Remove a variable from the notebook profile only (the running kernel keeps its value). */
  forget(name: string): void {
    const panel = this._panel;
    if (panel && !panel.isDisposed) {
      this._model.setProfile(updateProfile(panel.context.model, name, null));
    }
  }

  refresh(): void {
    this._client?.refresh();
  }

  /** Restart the kernel; the profile is applied as it comes back, before any cell runs. */
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
      this._profileApplied.delete(this._kernel.id); // a new process: it gets the profile again
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
    if (!this._panel) {
      return;
    }
    // The profile is applied once per kernel process (start, restart, or a kernel this page has not seen yet), not
    // each time the user comes back to the notebook: that would undo what they changed since with %envset.
    const fresh = !this._profileApplied.has(kernel.id);
    this._profileApplied.add(kernel.id);
    const client = new KernelClient(kernel, this._model, {
      language: this._model.language,
      profile: fresh ? readProfile(this._panel.context.model) : {}
    });
    this._client = client;
    client.memoryReceived.connect(this._onMemory, this);
    client.setMemory(this._memoryOn);
    client.start();
    this._clientChanged.emit(client);
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
