/**
 * The cells' memory setting (schema/cellmemory.json, plugin "mgenv-jupyter:cell-memory"): whether each cell's memory
 * is written into the notebook. Without the setting registry the default (on) holds.
 */
import type { ISettingRegistry } from '@jupyterlab/settingregistry';

export class CellMemorySettings {
  private _keep = true;

  get keep(): boolean {
    return this._keep;
  }

  follow(settings: ISettingRegistry.ISettings): void {
    const read = (): void => {
      this._keep = settings.composite['keepInNotebook'] !== false;
    };
    settings.changed.connect(read);
    read();
  }
}
