/**
 * The output host: how JupyterLab and Notebook 7 show a chart or widget output of ours, live or saved.
 *
 * The kernel displays each chart and widget with a bundle that carries, beside the widget's view, a static view (text,
 * HTML, and for the memory chart a picture of it) and OUTPUT_MIME (protocol/_output.py). This renderer is ranked
 * before the widget view's, so a notebook's outputs of ours come here: the host shows the static view, and renders
 * the widget view inside itself through the notebook's own widget renderer (jupyterlab-manager's, bound to the
 * notebook's kernel); once the widget is there (its model lives in the kernel) the live view replaces the static one.
 * A notebook reopened without its kernel, or after a restart, has no model: the widget renderer says "model not
 * found" out of sight and the static view stays. Until the notebook's kernel is there, its registry holds
 * jupyterlab-manager's placeholder, whose renderer waits for a manager that is only ever given to the renderers
 * directly in output areas: the host watches for the renderer bound to the kernel's manager and renders again with it. When the kernel updates the output's static view (display_id), the
 * host renders the new static view and leaves the live one as it is, so nothing flickers.
 *
 * An untrusted output shows the static view only (HTML sanitised, as JupyterLab does for any untrusted output), as
 * JupyterLab shows no widget in one.
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Panel, Widget } from '@lumino/widgets';

import { OUTPUT_MIME } from '../protocol';
import { OUTPUT_HOST_CLASS } from './names';

export const WIDGET_VIEW_MIME = 'application/vnd.jupyter.widget-view+json';

/** Before the widget view's renderer (jupyterlab-manager ranks it -10), so our outputs come to the host. */
export const OUTPUT_HOST_RANK = -20;

/** What the host needs of a notebook's rendermime registry: the renderers for the other types of the bundle. */
export interface Renderers {
  createRenderer(mimeType: string): IRenderMime.IRenderer;
  getFactory(mimeType: string): IRenderMime.IRendererFactory | undefined;
}

/** How often, and how many times, the host looks for the widget renderer bound to the kernel (see _watchForRebind). */
const REBIND_MS = 500;
const REBIND_CHECKS = 120;

/** The static types, best first: the HTML view (figures and the picture), the picture alone, the text. */
const STATIC_TYPES = ['text/html', 'image/svg+xml', 'text/plain'];

/** The host's factory for one notebook's registry (each notebook's widget renderer is bound to its kernel). */
export function outputHostFactory(renderers: Renderers): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [OUTPUT_MIME],
    defaultRank: OUTPUT_HOST_RANK,
    createRenderer: () => new OutputHost(renderers)
  };
}

export class OutputHost extends Panel implements IRenderMime.IRenderer {
  private _static: IRenderMime.IRenderer | null = null;
  private _staticType: string | null = null;
  private _live: IRenderMime.IRenderer | null = null;
  private _liveModel: string | null = null;
  private _watch: MutationObserver | null = null;
  private _liveFactory: IRenderMime.IRendererFactory | undefined;
  private _rebind: ReturnType<typeof setInterval> | null = null;

  constructor(private _renderers: Renderers) {
    super();
    this.addClass(OUTPUT_HOST_CLASS);
  }

  /** Whether the live widget is shown (its view is there), rather than the static view. */
  get live(): boolean {
    const live = this._live as (IRenderMime.IRenderer & { widgets?: readonly Widget[] }) | null;
    return !!live && !live.isHidden && (live.widgets?.length ?? 0) > 0;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    await this._renderStatic(model);
    const view = model.data[WIDGET_VIEW_MIME] as { model_id?: string } | undefined;
    const modelId = view?.model_id ?? null;
    if (model.trusted && modelId && modelId !== this._liveModel && this._renderers.getFactory(WIDGET_VIEW_MIME)) {
      this._renderLive(model, modelId);
    }
    this._sync();
  }

  dispose(): void {
    this._watch?.disconnect();
    this._watch = null;
    this._stopRebind();
    super.dispose();
  }

  private async _renderStatic(model: IRenderMime.IMimeModel): Promise<void> {
    const type = STATIC_TYPES.find(t => model.data[t] !== undefined && this._renderers.getFactory(t)) ?? null;
    if (type === null) {
      return;
    }
    if (type !== this._staticType) {
      this._static?.dispose();
      this._static = this._renderers.createRenderer(type);
      this._static.addClass('mgenv-output-static');
      this._staticType = type;
      this.insertWidget(0, this._static);
    }
    await this._static!.renderModel(model);
  }

  /** The widget view, through the notebook's own renderer; shown in place of the static view once it is there. */
  private _renderLive(model: IRenderMime.IMimeModel, modelId: string): void {
    this._watch?.disconnect();
    this._live?.dispose();
    this._liveFactory = this._renderers.getFactory(WIDGET_VIEW_MIME);
    const live = this._renderers.createRenderer(WIDGET_VIEW_MIME);
    live.addClass('mgenv-output-live');
    this._live = live;
    this._liveModel = modelId;
    this.addWidget(live);
    this._watchForRebind(model, modelId);
    // The widget renderer adds the view when the kernel's model answers, writes "Loading widget…" or "Error
    // displaying widget: model not found" otherwise, and hides itself when the widget is closed.
    this._watch = new MutationObserver(() => this._sync());
    this._watch.observe(live.node, { childList: true, attributes: true, attributeFilter: ['class'] });
    void live.renderModel(model).then(
      () => this._sync(),
      () => this._sync()
    );
  }

  /**
   * While the widget is not shown, look (twice a second, for a minute at most) for the notebook's widget renderer to
   * change: jupyterlab-manager replaces its placeholder with one bound to the kernel's manager once the kernel is
   * there, and a renderer made from the placeholder would wait for ever.
   */
  private _watchForRebind(model: IRenderMime.IMimeModel, modelId: string): void {
    this._stopRebind();
    let checks = 0;
    this._rebind = setInterval(() => {
      checks++;
      if (this.isDisposed || this.live || checks > REBIND_CHECKS) {
        this._stopRebind();
      } else if (this._renderers.getFactory(WIDGET_VIEW_MIME) !== this._liveFactory) {
        this._liveModel = null;
        this._renderLive(model, modelId);
      }
    }, REBIND_MS);
  }

  private _stopRebind(): void {
    if (this._rebind !== null) {
      clearInterval(this._rebind);
      this._rebind = null;
    }
  }

  /** Show the live view where it is there, else the static view. */
  private _sync(): void {
    const live = this.live;
    this.toggleClass('mgenv-output-is-live', live);
    if (this._static) {
      this._static.setHidden(live);
    }
    if (this._live) {
      // Hidden until its view is there (no "Loading widget…" or "model not found" beside the static view), and hidden
      // by the widget renderer itself once the widget is closed.
      this._live.node.style.display = live ? '' : 'none';
    }
  }
}
