/**
 * Which kernel the panel follows and how that went (one status line), and, when the kernel cannot load the extension,
 * what to do about it (a notice). One part of the variables section (ConfigView).
 */
import { el } from '../dom';
import { EnvModel } from '../model';
import { Translate } from '../text';

export class ConnectionView {
  /** The status line. */
  readonly status: HTMLElement;
  /** Why the kernel has no extension, and how to install it. */
  readonly notice: HTMLElement;
  private _model: EnvModel;
  private _t: Translate;

  constructor(model: EnvModel, t: Translate) {
    this._model = model;
    this._t = t;
    this.status = el('div', 'mgenv-sb-status');
    this.status.setAttribute('role', 'status');
    this.notice = el('div', 'mgenv-sb-notice');
  }

  render(): void {
    const { state, notebook, kernel, detail } = this._model.connection;
    const t = this._t;
    const info = this._model.kernel;
    let line: string;
    switch (state) {
      case 'no-notebook':
        line = t('noNotebook');
        break;
      case 'no-kernel':
        line = `${notebook}: ${t('noKernel')}`;
        break;
      case 'connecting':
      case 'standby':
        line = `${kernel} · ${t('loading')}`;
        break;
      case 'restarting':
        line = `${kernel} · ${t('restarting')}`;
        break;
      case 'ready':
        line = kernel + (info ? ` · Python ${info.version}` : '');
        if (info?.imported.length) {
          line += ` · ${t('imported', info.imported.join(', '))}`;
        }
        break;
      case 'dead':
        line = `${kernel} · ${t('dead')}`;
        break;
      case 'closed':
        line = `${kernel} · ${t('closed')}`;
        break;
      default:
        line = kernel;
    }
    this.status.textContent = state === 'no-notebook' || state === 'no-kernel' ? line : `${notebook} · ${line}`;
    this.status.title = info && state === 'ready' ? info.python : '';
    this.status.dataset.state = state;

    this.notice.replaceChildren();
    this.notice.hidden = state !== 'not-installed' && state !== 'failed';
    if (state === 'not-installed') {
      const what = el('p', 'mgenv-sb-notice-title');
      what.textContent = t('notInstalled');
      const how = el('p', '');
      how.textContent = t('notInstalledHow');
      const code = el('pre', 'mgenv-sb-install');
      code.textContent = '%pip install mgenv_jupyter';
      const why = el('p', 'mgenv-sb-notice-detail');
      why.textContent = detail;
      this.notice.append(what, how, code, why);
    } else if (state === 'failed') {
      const what = el('p', 'mgenv-sb-notice-title');
      what.textContent = t('loadFailed');
      const why = el('pre', 'mgenv-sb-notice-detail');
      why.textContent = detail;
      this.notice.append(what, why);
    }
  }
}
