/**
 * The "Framework Env" sidebar: owns the model, the notebook follower and the two views, wires them together, and
 * tears everything down in dispose() (comm closed, memory stream stopped).
 */
import { Message } from '@lumino/messaging';
import { Panel, Widget } from '@lumino/widgets';

import { MemoryMessage } from '../protocol';
import { KernelClient } from './client';
import { ConfigView } from './configView';
import { NotebookFollower, NotebookSource } from './follower';
import { MemoryView } from './memoryView';
import { askToApplyProfile } from './profileDialog';
import { EnvModel } from './model';
import { Language } from './text';

export const SIDEBAR_ID = 'mgenv-jupyter-sidebar';
export const SIDEBAR_CAPTION = 'Framework Env';

export class SidebarPanel extends Panel {
  readonly model: EnvModel;
  readonly follower: NotebookFollower;
  readonly config: ConfigView;
  readonly memory: MemoryView;

  constructor(notebooks: NotebookSource, language: Language) {
    super();
    this.id = SIDEBAR_ID;
    this.title.caption = SIDEBAR_CAPTION;
    this.addClass('mgenv-sb');
    this.model = new EnvModel(language);
    this.follower = new NotebookFollower(notebooks, this.model, askToApplyProfile);
    this.config = new ConfigView(this.model, this.follower);
    this.memory = new MemoryView(language);
    const heading = new Widget({ node: document.createElement('h2') });
    heading.addClass('mgenv-sb-heading');
    heading.node.textContent = SIDEBAR_CAPTION;
    this.addWidget(heading);
    this.addWidget(this.config);
    this.addWidget(this.memory);
    this.memory.wantedChanged.connect(this._onMemoryWanted, this);
    this.follower.memoryReceived.connect(this._onMemory, this);
    this.follower.clientChanged.connect(this._onClientChanged, this);
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
    this.follower.dispose();
    super.dispose();
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
