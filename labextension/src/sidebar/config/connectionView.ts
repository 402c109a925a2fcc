/**
 * Which kernel the panel follows and how that went (one status line), and, when the kernel cannot load the extension,
 * what to do about it (a notice). One part of the variables section (ConfigView).
 */
import { el } from '../../shared/dom';
import { EnvModel } from '../model';
import { Translation } from '../text';

export class ConnectionView {
  /** The status line. */
  readonly status: HTMLElement;
  /** Why the kernel has no extension, and how to install it. */
  readonly notice: HTMLElement;
  private _model: EnvModel;
  private _trans: Translation;

  constructor(model: EnvModel, trans: Translation) {
    this._model = model;
    this._trans = trans;
    this.status = el('div', 'mgenv-sb-status');
    this.status.setAttribute('role', 'status');
    this.notice = el('div', 'mgenv-sb-notice');
  }

  render(): void {
    const { state, notebook, kernel, detail } = this._model.connection;
    const trans = this._trans;
    const info = this._model.kernel;
    let line: string;
    switch (state) {
      case 'no-notebook':
        line = trans.__('Open a notebook to edit its kernel’s framework variables.');
        break;
      case 'no-kernel':
        line = `${notebook}: ${trans.__('This notebook has no kernel.')}`;
        break;
      case 'connecting':
      case 'standby':
        line = `${kernel} · ${trans.__('Loading mgenv_jupyter in the kernel…')}`;
        break;
      case 'restarting':
        line = `${kernel} · ${trans.__('The kernel is restarting…')}`;
        break;
      case 'ready':
        line = kernel + (info ? ` · Python ${info.version}` : '');
        if (info?.imported.length) {
          line += ` · ${trans.__('imported: %1', info.imported.join(', '))}`;
        }
        break;
      case 'dead':
        line = `${kernel} · ${trans.__('The kernel is dead.')}`;
        break;
      case 'closed':
        line = `${kernel} · ${trans.__('The kernel closed the connection to the sidebar.')}`;
        break;
      default:
        line = kernel;
    }
    this.status.textContent = state === 'no-notebook' || state === 'no-kernel' ? line : `${notebook} · ${line}`;
    // The ready line is cut to one line at the sidebar's default width: its tooltip gives it whole.
    this.status.title = info && state === 'ready' ? `${this.status.textContent}\n${info.python}` : '';
    this.status.dataset.state = state;

    this.notice.replaceChildren();
    this.notice.hidden = state !== 'not-installed' && state !== 'failed';
    if (state === 'not-installed') {
      const what = el('p', 'mgenv-sb-notice-title');
      what.textContent = trans.__('mgenv_jupyter is not installed in this kernel’s environment.');
      const how = el('p', '');
      how.textContent = trans.__('Install it there by running this in a cell of this notebook, then restart the kernel:');
      const code = el('pre', 'mgenv-sb-install');
      code.textContent = '%pip install mgenv_jupyter';
      const why = el('p', 'mgenv-sb-notice-detail');
      why.textContent = detail;
      this.notice.append(what, how, code, why);
    } else if (state === 'failed') {
      const what = el('p', 'mgenv-sb-notice-title');
      what.textContent = trans.__('Could not load mgenv_jupyter in this kernel:');
      const why = el('pre', 'mgenv-sb-notice-detail');
      why.textContent = detail;
      this.notice.append(what, why);
    }
  }
}
