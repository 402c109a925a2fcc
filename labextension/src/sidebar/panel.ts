/**
 * The "Framework Env" sidebar: owns the model, the notebook follower and the two views, wires them together and to
 * the user's settings, and tears everything down in dispose() (comm closed, memory stream stopped).
 */
import { Message } from '@lumino/messaging';
import { Panel, Widget } from '@lumino/widgets';

import { MemoryMessage } from '../protocol';
import { KernelClient } from './client';
import { ConfigView } from './configView';
import { NotebookFollower, NotebookSource } from './follower';
import { MemoryView } from './memoryView';
import { EnvModel } from './model';
import { ProfileQuestion } from './profileReview';
import { SidebarOptions, SidebarSettings } from './settings';
import { Language, Translate } from './text';

export const SIDEBAR_ID = 'mgenv-jupyter-sidebar';

export interface SidebarPanelOptions {
  /** The panel's words in the user's language (JupyterLab's translator). */
  t: Translate;
  /** The language of the kernel's catalog and of the status labels. */
  language: Language;
  settings?: SidebarSettings;
  /** How to ask before a notebook profile is applied (JupyterLab's dialog; without one, it never is). */
  ask?: ProfileQuestion;
}

export class SidebarPanel extends Panel {
  readonly model: EnvModel;
  readonly follower: NotebookFollower;
  readonly config: ConfigView;
  readonly memory: MemoryView;
  readonly settings: SidebarSettings;

  constructor(notebooks: NotebookSource, { t, language, settings, ask }: SidebarPanelOptions) {
    super();
    this.id = SIDEBAR_ID;
    this.title.caption = t('title');
    this.addClass('mgenv-sb');
    this.settings = settings ?? new SidebarSettings();
    this.model = new EnvModel(language);
    this.follower = new NotebookFollower(notebooks, this.model, ask);
    this.config = new ConfigView(this.model, this.follower, t);
    this.memory = new MemoryView(t);
    const heading = new Widget({ node: document.createElement('h2') });
    heading.addClass('mgenv-sb-heading');
    heading.node.textContent = t('title');
    this.addWidget(heading);
    this.addWidget(this.config);
    this.addWidget(this.memory);
    this.memory.wantedChanged.connect(this._onMemoryWanted, this);
    this.follower.memoryReceived.connect(this._onMemory, this);
    this.follower.clientChanged.connect(this._onClientChanged, this);
    this.settings.changed.connect(this._onSettings, this);
    this._onSettings(this.settings, this.settings.options);
    this.follower.setMemory(this.memory.wanted);
  }

  protected onAfterShow(msg: Message): void {
    this.follower.setActive(true);
  }

  protected onBeforeHide(msg: Message): void {
    this.follower.setActive(false);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.settings.changed.disconnect(this._onSettings, this);
    this.follower.dispose();
    super.dispose();
  }

  private _onSettings(_: SidebarSettings, options: SidebarOptions): void {
    this.follower.setMemoryInterval(options.memoryInterval);
    this.config.setHistoryShown(options.historyShown);
  }

  private _onMemoryWanted(_: MemoryView, wanted: boolean): void {
    this.follower.setMemory(wanted);
  }

  private _onMemory(_: NotebookFollower, message: MemoryMessage): void {
    this.memory.receive(message);
  }

  private _onClientChanged(_: NotebookFollower, client: KernelClient | null): void {
    this.memory.reset();
  }
}
