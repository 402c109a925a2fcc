/**
 * The sidebar's user settings (schema/sidebar.json, plugin "mgenv-jupyter:sidebar"): the live memory panel's
 * sampling interval and how many changes the history shows. Without JupyterLab's setting registry (it is optional)
 * the defaults hold. Values are kept within what the kernel accepts — the interval within the schema's
 * MIN_INTERVAL..MAX_INTERVAL, the history within one "history" window — whatever a hand-edited setting says.
 */
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ISignal, Signal } from '@lumino/signaling';

import { MAX_INTERVAL, MIN_INTERVAL } from '../protocol';
import { MEMORY_INTERVAL } from './client';
import { HISTORY_LIMIT } from './model';

export interface SidebarOptions {
  /** Seconds between memory samples while the memory panel is shown. */
  memoryInterval: number;
  /** How many of the latest changes the history shows ("Show older changes" adds more). */
  historyShown: number;
}

export const DEFAULT_OPTIONS: Readonly<SidebarOptions> = { memoryInterval: MEMORY_INTERVAL, historyShown: 100 };

export class SidebarSettings {
  private _options: SidebarOptions = { ...DEFAULT_OPTIONS };
  private _settings: ISettingRegistry.ISettings | null = null;
  private _changed = new Signal<this, SidebarOptions>(this);

  get options(): Readonly<SidebarOptions> {
    return this._options;
  }

  get changed(): ISignal<this, SidebarOptions> {
    return this._changed;
  }

  /** Follow the user's settings from now on. */
  follow(settings: ISettingRegistry.ISettings): void {
    this._settings?.changed.disconnect(this._read, this);
    this._settings = settings;
    settings.changed.connect(this._read, this);
    this._read();
  }

  /** Take these values (what the registry holds, or anything else), within bounds. */
  set(raw: Partial<Record<keyof SidebarOptions, unknown>>): void {
    const next: SidebarOptions = {
      memoryInterval: bounded(raw.memoryInterval, MIN_INTERVAL, MAX_INTERVAL, DEFAULT_OPTIONS.memoryInterval),
      historyShown: Math.round(bounded(raw.historyShown, 1, HISTORY_LIMIT, DEFAULT_OPTIONS.historyShown))
    };
    if (next.memoryInterval !== this._options.memoryInterval || next.historyShown !== this._options.historyShown) {
      this._options = next;
      this._changed.emit(next);
    }
  }

  dispose(): void {
    this._settings?.changed.disconnect(this._read, this);
    this._settings = null;
    Signal.clearData(this);
  }

  private _read(): void {
    const composite = this._settings?.composite ?? {};
    this.set({ memoryInterval: composite['memoryInterval'], historyShown: composite['historyShown'] });
  }
}

function bounded(value: unknown, low: number, high: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(high, Math.max(low, value)) : fallback;
}
