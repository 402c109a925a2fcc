/**
 * The "Framework Env" sidebar, laid out as JupyterLab's own side panels are (the debugger's): a SidePanel whose
 * header names it, whose toolbar holds the commands (commands.ts adds them) and whose content is an accordion of two
 * sections, the variables and the live memory chart, each collapsible and resizable against the other. It owns the
 * model, the notebook follower and the two views, wires them together and to the user's settings, and tears
 * everything down in dispose() (comm closed, memory stream stopped). Tested in a real browser
 * (@jupyterlab/ui-components does not load under jest): tests/browser/test_layout_sidebar.py.
 */
import { SidePanel } from '@jupyterlab/ui-components';
import type { ITranslator } from '@jupyterlab/translation';
import { Message } from '@lumino/messaging';
import type { ISignal } from '@lumino/signaling';
import { AccordionPanel, Widget } from '@lumino/widgets';

import { MemoryMessage } from '../protocol';
import { KernelClient } from './client';
import { ConfigView } from './configView';
import { NotebookFollower, NotebookSource } from './follower';
import { MemoryView } from './memoryView';
import { EnvModel } from './model';
import { ProfileQuestion } from './profile/review';
import { SidebarOptions, SidebarSettings } from './settings';
import { Language, Translation } from './text';

export const SIDEBAR_ID = 'mgenv-jupyter-sidebar';

/**
 * The sections' first sizes: the variables get 70% of the height (at 1280×800 and the sidebar's default width,
 * the status line, an out-of-memory card, the profile, the search box and at least three rows), the chart the rest
 * (its plot gives way before its legend does). The server's GPUs (a third section, added by gpus/section.ts) open
 * folded; unfolded, they take half of the variables' height, never the chart's, so the chart keeps its legend in
 * view (README, "The sidebar at its default width").
 */
const VARIABLES_SHARE = 0.7;
const FIRST_SIZES: Record<number, number[]> = { 2: [VARIABLES_SHARE, 1 - VARIABLES_SHARE], 3: [VARIABLES_SHARE, 1 - VARIABLES_SHARE, 0] };
/** Below this (px, beyond the titles) the accordion is not laid out yet: the sections would share nothing. */
const MIN_HEIGHT_TO_SHARE = 100;

export interface SidebarPanelOptions {
  /** The panel's words in the user's language (JupyterLab's translator). */
  trans: Translation;
  /** The language of the kernel's catalog and of the status labels. */
  language: Language;
  settings?: SidebarSettings;
  /** How to ask before a notebook profile is applied (JupyterLab's dialog; without one, it never is). */
  ask?: ProfileQuestion;
  /** JupyterLab's translator, for the words SidePanel itself shows. */
  translator?: ITranslator;
}

export class SidebarPanel extends SidePanel {
  readonly model: EnvModel;
  readonly follower: NotebookFollower;
  readonly config: ConfigView;
  readonly memory: MemoryView;
  readonly settings: SidebarSettings;
  readonly language: Language;
  private _sized = false;
  /** The variables' and the chart's shares (summing to 1) as first given or as the user last dragged them. */
  private _shares: [number, number] = [VARIABLES_SHARE, 1 - VARIABLES_SHARE];

  constructor(notebooks: NotebookSource, { trans, language, settings, ask, translator }: SidebarPanelOptions) {
    super({ translator });
    this.id = SIDEBAR_ID;
    this.title.caption = trans.__('Framework Env');
    this.addClass('mgenv-sb');
    this.language = language;
    this.settings = settings ?? new SidebarSettings();
    this.model = new EnvModel(language);
    this.follower = new NotebookFollower(notebooks, this.model, ask);
    this.config = new ConfigView(this.model, this.follower, trans);
    this.config.title.label = trans.__('Variables');
    this.memory = new MemoryView(trans);
    this.memory.title.label = trans.__('Live GPU memory');
    const heading = new Widget({ node: document.createElement('h2') });
    heading.addClass('mgenv-sb-heading');
    heading.node.textContent = trans.__('Framework Env');
    this.header.addWidget(heading);
    this.addWidget(this.config);
    this.addWidget(this.memory);
    this.memory.wantedChanged.connect(this._onMemoryWanted, this);
    this.follower.memoryReceived.connect(this._onMemory, this);
    this.follower.clientChanged.connect(this._onClientChanged, this);
    this.settings.changed.connect(this._onSettings, this);
    this._onSettings(this.settings, this.settings.options);
    this.follower.setMemory(this.memory.wanted);
    // Lumino's accordion says when a section is unfolded from JupyterLab 4.1 on; 4.0's does not (the GPUs then open
    // at the size the accordion gives them).
    (this.accordion as unknown as { expansionToggled?: ISignal<AccordionPanel, number> }).expansionToggled?.connect(
      this._onToggled,
      this
    );
    this.accordion.handleMoved.connect(this._onMoved, this);
  }

  get accordion(): AccordionPanel {
    return this.content as AccordionPanel;
  }

  protected onAfterShow(msg: Message): void {
    this.follower.setActive(true);
    this._sizeSections();
  }

  protected onResize(msg: Widget.ResizeMessage): void {
    super.onResize(msg);
    this._sizeSections();
  }

  /**
   * The sections' first sizes, given once the accordion has a height to share: Notebook 7 shows the panel while its
   * accordion is still about as tall as the two titles, and sizes given then come out half and half. Once only:
   * afterwards the sections keep the sizes the user gives them.
   */
  private _sizeSections(): void {
    const titles = this.accordion.titles.reduce((sum, title) => sum + title.offsetHeight, 0);
    if (this._sized || !this.isVisible || this.accordion.node.clientHeight - titles < MIN_HEIGHT_TO_SHARE) {
      return;
    }
    this._sized = true;
    this.accordion.setRelativeSizes(FIRST_SIZES[this.accordion.widgets.length] ?? []);
  }

  /** The server's GPUs unfolded take half of the variables' share; folded, they give it back; the chart keeps its own. */
  private _onToggled(_: AccordionPanel, index: number): void {
    const widgets = this.accordion.widgets;
    if (!this._sized || widgets.length !== 3 || index !== 2 || widgets[1].isHidden || widgets[0].isHidden) {
      return;
    }
    const [variables, chart] = this._shares;
    this.accordion.setRelativeSizes(
      widgets[2].isHidden ? [variables, chart, 0] : [variables / 2, chart, variables / 2]
    );
  }

  /** A drag between sections: the shares the variables (with the GPUs taken from them) and the chart have now. */
  private _onMoved(): void {
    const widgets = this.accordion.widgets;
    if (widgets.length < 2 || widgets[0].isHidden || widgets[1].isHidden) {
      return;
    }
    const [variables, chart, gpus] = this.accordion.relativeSizes();
    const mine = variables + (widgets.length === 3 && !widgets[2].isHidden ? gpus : 0);
    if (mine + chart > 0) {
      this._shares = [mine / (mine + chart), chart / (mine + chart)];
    }
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
