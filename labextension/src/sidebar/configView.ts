/**
 * The variables section of the sidebar, composed of parts with one role each, the way JupyterLab's debugger sidebar
 * composes its panels: which kernel it follows and how that went (config/connectionView.ts), the kernel's last
 * out-of-memory report (config/oomSection.ts) and its last cluster.verify() result (verifyView.ts), the notebook
 * profile (config/profileSection.ts), the catalog with its search box and one editor row per variable
 * (config/catalogView.ts), and the change history (config/historyView.ts). This widget owns their order on screen and
 * hands each model change to the parts it concerns; the parts render the model and forward the user's actions.
 * "Restart and apply" and "Refresh" are the panel's toolbar commands (commands.ts).
 */
import { Widget } from '@lumino/widgets';

import { Answer, RemedyChoice } from './client';
import { CatalogView } from './config/catalogView';
import { ConnectionView } from './config/connectionView';
import { HistoryView } from './config/historyView';
import { OomSection } from './config/oomSection';
import { ProfileSection } from './config/profileSection';
import { EnvModel, ModelChange } from './model';
import { VariableRow } from './rows';
import { Translation } from './text';
import { VerifyView } from './verifyView';

export { BUTTON_CLASS } from './config/buttons';

export interface ConfigActions {
  edit(name: string, value: string | null): Promise<Answer | null>;
  forget(name: string): void;
  reviewProfile(): Promise<void>;
  /** Ask the kernel for at most `limit` changes older than number `before`; they arrive through the model. */
  loadHistory(before: number, limit: number): Promise<void>;
  /** Set a remedy of the last out-of-memory report in the followed kernel, kept in the notebook profile. */
  applyRemedyToFollowed?(choice: RemedyChoice): Promise<Answer | null>;
  /** Run cluster.verify() in the followed kernel; the result arrives through the model. */
  verifyNodes?(): Promise<Answer | null>;
  /** "Try several values…": the followed kernel's %%envsweep cell for a variable, inserted below the active cell. */
  trySeveral?(name: string): Promise<Answer | null>;
}

export class ConfigView extends Widget {
  private _model: EnvModel;
  private _connection: ConnectionView;
  private _oom: OomSection;
  private _verify: VerifyView;
  private _profile: ProfileSection;
  private _catalog: CatalogView;
  private _history: HistoryView;

  constructor(model: EnvModel, actions: ConfigActions, trans: Translation) {
    super();
    this._model = model;
    this.addClass('mgenv-sb-config');
    this._connection = new ConnectionView(model, trans);
    this._oom = new OomSection(model, trans, choice =>
      actions.applyRemedyToFollowed?.(choice) ?? Promise.resolve(null));
    this._verify = new VerifyView(trans, () => actions.verifyNodes?.() ?? Promise.resolve(null));
    this._profile = new ProfileSection(model, actions, trans);
    this._catalog = new CatalogView(
      model,
      trans,
      (name, value) => actions.edit(name, value),
      actions.trySeveral ? name => void actions.trySeveral?.(name) : undefined
    );
    this._history = new HistoryView(model, trans, (before, limit) => actions.loadHistory(before, limit));
    const catalog = this._catalog;
    this.node.append(
      this._connection.status, this._connection.notice, this._oom.node, this._verify.node, this._profile.node,
      catalog.error, catalog.search, catalog.catalog, catalog.empty, this._history.node
    );
    model.changed.connect(this._onChange, this);
    this._renderAll();
  }

  /** The row of a variable (browser tests and benchmarks reach rows through the DOM; this is for jest). */
  row(name: string): VariableRow | undefined {
    return this._catalog.row(name);
  }

  /** How many of the latest changes the history shows (a setting); older pages stay shown once asked for. */
  setHistoryShown(count: number): void {
    this._history.setShown(count);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.changed.disconnect(this._onChange, this);
    super.dispose();
  }

  private _onChange(_: EnvModel, change: ModelChange): void {
    switch (change.kind) {
      case 'catalog':
        this._catalog.render();
        break;
      case 'variables':
        this._catalog.update(change.names);
        this._oom.markApplied();
        break;
      case 'history':
        this._history.render();
        void this._history.fill();
        break;
      case 'error':
        this._catalog.renderError();
        break;
      case 'connection':
        this._renderConnection();
        this._profile.render(); // its review button works only with a ready kernel
        break;
      case 'profile':
        this._profile.render();
        break;
      case 'filter':
        this._catalog.applyFilter();
        break;
      case 'oom':
        this._oom.render();
        break;
      case 'verify':
        this._verify.render(this._model.lastVerify);
        break;
    }
  }

  private _renderAll(): void {
    this._renderConnection();
    this._profile.render();
    this._catalog.renderError();
    this._oom.render();
    this._verify.render(this._model.lastVerify);
    this._catalog.render();
    this._history.render();
  }

  /** The status line and notice; rows are editable, and older changes can be asked for, only with a ready kernel. */
  private _renderConnection(): void {
    const state = this._model.connection.state;
    this._connection.render();
    this.node.dataset.connection = state;
    this._catalog.setEnabled(state === 'ready');
    this._history.renderFooter();
  }
}
