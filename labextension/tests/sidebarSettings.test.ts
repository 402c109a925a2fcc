import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import { Signal } from '@lumino/signaling';

import { MAX_INTERVAL, MIN_INTERVAL } from '../src/protocol';
import { DEFAULT_OPTIONS, SidebarSettings } from '../src/sidebar/settings';

/** What SidebarSettings reads of JupyterLab's ISettings: the composite values and their `changed` signal. */
class Settings {
  composite: Record<string, unknown> = {};
  readonly changed = new Signal<this, void>(this);

  edit(values: Record<string, unknown>): void {
    this.composite = values;
    this.changed.emit();
  }

  asSettings(): ISettingRegistry.ISettings {
    return this as unknown as ISettingRegistry.ISettings;
  }
}

describe('the sidebar’s settings', () => {
  it('hold the defaults until the registry answers, then follow the user’s edits', () => {
    const settings = new SidebarSettings();
    const seen: number[] = [];
    settings.changed.connect((_, options) => seen.push(options.memoryInterval));
    expect(settings.options).toEqual({ memoryInterval: 0.1, historyShown: 100 });
    const registry = new Settings();
    registry.composite = { memoryInterval: 0.5, historyShown: 20 };
    settings.follow(registry.asSettings());
    expect(settings.options).toEqual({ memoryInterval: 0.5, historyShown: 20 });
    registry.edit({ memoryInterval: 0.25, historyShown: 20 });
    registry.edit({ memoryInterval: 0.25, historyShown: 20 }); // unchanged: no signal
    expect(seen).toEqual([0.5, 0.25]);
    settings.dispose();
    registry.edit({ memoryInterval: 2, historyShown: 20 });
    expect(settings.options.memoryInterval).toBe(0.25);
  });

  it('keep what the kernel accepts whatever a hand-edited setting says', () => {
    const settings = new SidebarSettings();
    settings.set({ memoryInterval: 0.001, historyShown: 10_000 });
    expect(settings.options).toEqual({ memoryInterval: MIN_INTERVAL, historyShown: 500 });
    settings.set({ memoryInterval: 3600, historyShown: 0 });
    expect(settings.options).toEqual({ memoryInterval: MAX_INTERVAL, historyShown: 1 });
    settings.set({ memoryInterval: 'fast', historyShown: null });
    expect(settings.options).toEqual(DEFAULT_OPTIONS);
  });
});
