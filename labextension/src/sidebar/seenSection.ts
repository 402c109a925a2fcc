/**
 * A sidebar section whose data is live — the memory chart's stream, the server's GPU view — and so is wanted only
 * while the section can be seen: the sidebar open, the section expanded (the accordion hides a collapsed section),
 * the browser tab visible. It follows the three (Lumino's show, hide, attach and detach messages and the page's
 * visibilitychange) and calls `onSeenChanged` each time the answer changes. A section starts unseen and ends unseen:
 * disposing of it says so first, so nothing keeps streaming or polling for it.
 */
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

export abstract class SeenSection extends Widget {
  private _seen = false;

  constructor(options?: Widget.IOptions) {
    super(options);
    document.addEventListener('visibilitychange', this._onVisibility);
  }

  /** Whether the section can be seen now. */
  get seen(): boolean {
    return this._seen;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    document.removeEventListener('visibilitychange', this._onVisibility);
    this._update(false);
    super.dispose();
  }

  /** Start or stop the section's live data: it came into view, or left it. */
  protected abstract onSeenChanged(seen: boolean): void;

  protected onAfterShow(msg: Message): void {
    this._update();
  }

  protected onBeforeHide(msg: Message): void {
    this._update(false);
  }

  protected onAfterAttach(msg: Message): void {
    this._update();
  }

  protected onBeforeDetach(msg: Message): void {
    this._update(false);
  }

  private _onVisibility = (): void => this._update();

  private _update(visible: boolean = this.isVisible): void {
    const seen = visible && document.visibilityState !== 'hidden';
    if (seen !== this._seen) {
      this._seen = seen;
      this.onSeenChanged(seen);
    }
  }
}
