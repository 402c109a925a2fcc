/**
 * The followed kernel's last cluster.verify() result (the kernel's "verify" notice, protocol/sidebar.py
 * VerifyNotice), node by node: each node's name, whether it is ok, differs or was lost, how many variables matched,
 * differed or were missing there, and per variable the session's value beside what that node's workers hold (a secret
 * only as "the same" or "another value": the kernel never sends it), and when it arrived: at worker start, so a
 * framework imported there reads it (Ray workers are new processes), or later, naming what was already imported.
 * "Verify nodes" asks the kernel to run verify() again with a JSON request; it never sends code.
 *
 * Plain DOM built with textContent, a block of the variables section (ConfigView), hidden until a result exists.
 */
import { VerifyNodeInfo, VerifyNodeState, VerifyNotice, VerifyVariableInfo, VerifyVerdict } from '../protocol';
import { Answer } from './client';
import { code, el } from './dom';
import { breakableName } from './rows';
import { TextKey, Translate } from './text';

/** Characters of a value shown; the whole value (as the kernel sent it) is the tooltip. */
export const SHOWN_VALUE = 80;

const STATE_WORD: Record<VerifyNodeState, TextKey> = { ok: 'verifyOk', mismatch: 'verifyMismatch', lost: 'verifyLost' };
const VERDICT_WORD: Record<VerifyVerdict, TextKey> = {
  ok: 'verifyMatches',
  differs: 'verifyDiffers',
  missing: 'verifyMissing'
};

export interface NodeCounts {
  nodes: number;
  ok: number;
  mismatch: number;
  lost: number;
}

/** How many nodes are ok, differ and were lost. */
export function nodeCounts(result: VerifyNotice): NodeCounts {
  const count = (state: VerifyNodeState) => result.nodes.filter(node => node.state === state).length;
  return { nodes: result.nodes.length, ok: count('ok'), mismatch: count('mismatch'), lost: count('lost') };
}

/** A value as the panel shows it: at most SHOWN_VALUE characters, "(unset)" for none. */
export function shownValue(value: string | null, t: Translate): { text: string; title: string } {
  if (value === null) {
    return { text: t('unsetValue'), title: '' };
  }
  return value.length <= SHOWN_VALUE
    ? { text: value, title: '' }
    : { text: `${value.slice(0, SHOWN_VALUE - 1)}…`, title: value };
}

export class VerifyView {
  readonly node: HTMLElement;
  private _t: Translate;
  private _run: () => Promise<Answer | null>;
  private _head: HTMLElement;
  private _button: HTMLButtonElement;
  private _outcome: HTMLElement;
  private _body: HTMLElement;

  /** `run` asks the followed kernel to verify the nodes (null: no kernel to ask). */
  constructor(t: Translate, run: () => Promise<Answer | null>) {
    this._t = t;
    this._run = run;
    this.node = el('section', 'mgenv-sb-verify');
    this.node.setAttribute('aria-label', t('verifyTitle'));
    this._head = el('div', 'mgenv-sb-verify-head');
    this._button = el('button', 'jp-Button mgenv-sb-verify-run') as HTMLButtonElement;
    this._button.type = 'button';
    this._button.textContent = t('verifyRun');
    this._button.title = t('verifyRunTitle');
    this._button.addEventListener('click', () => void this._verify());
    this._outcome = el('div', 'mgenv-sb-verify-outcome');
    this._outcome.setAttribute('role', 'status');
    this._body = el('div', 'mgenv-sb-verify-body');
    this.node.append(this._head, this._outcome, this._body);
    this.render(null);
  }

  /** Show `result` (null: none yet in this kernel process, and the block is hidden). */
  render(result: VerifyNotice | null): void {
    const t = this._t;
    this.node.hidden = result === null;
    this._head.replaceChildren();
    this._body.replaceChildren();
    if (result === null) {
      this._outcome.replaceChildren();
      return;
    }
    this.node.dataset.ok = String(result.ok);
    const titles = el('div', 'mgenv-sb-verify-titles');
    const title = el('div', 'mgenv-sb-verify-title');
    title.textContent = t('verifyTitle');
    const when = el('div', 'mgenv-sb-verify-when');
    when.textContent = t('verifyAt', new Date(result.time * 1000).toLocaleTimeString());
    titles.append(title, when);
    this._head.append(titles, this._button);
    const counts = nodeCounts(result);
    const summary = el('div', 'mgenv-sb-verify-summary');
    summary.dataset.ok = String(result.ok);
    summary.textContent = t(counts.nodes === 1 ? 'verifySummaryOne' : 'verifySummary', counts.nodes, counts.ok,
      counts.mismatch, counts.lost);
    const note = el('div', 'mgenv-sb-verify-note');
    note.textContent = t('verifyNote');
    this._body.append(summary, note, ...result.nodes.map(node => this._node(node)));
  }

  private _node(info: VerifyNodeInfo): HTMLElement {
    const t = this._t;
    const box = el('div', 'mgenv-sb-verify-node');
    box.dataset.node = info.node;
    box.dataset.state = info.state;
    const head = el('div', 'mgenv-sb-verify-node-head');
    const name = el('span', 'mgenv-sb-verify-node-name');
    name.textContent = info.node;
    const state = el('span', `mgenv-sb-verify-state mgenv-sb-verify-state-${info.state}`);
    state.textContent = t(STATE_WORD[info.state] ?? 'verifyLost');
    head.append(name, state);
    if (info.state !== 'lost') {
      const counts = el('span', 'mgenv-sb-verify-counts');
      counts.textContent = t('verifyCounts', info.ok, info.mismatch, info.missing);
      head.append(counts);
    }
    box.append(head);
    if (info.state === 'lost') {
      const reason = el('div', 'mgenv-sb-verify-reason');
      reason.textContent = t('verifyNoAnswer', info.reason ?? '');
      box.append(reason);
      return box;
    }
    if (!info.variables.length) {
      const none = el('div', 'mgenv-sb-verify-line');
      none.textContent = t('verifyNoVariables');
      box.append(none);
    }
    const list = el('ul', 'mgenv-sb-verify-vars');
    list.append(...info.variables.map(variable => this._variable(variable)));
    box.append(list);
    return box;
  }

  private _variable(info: VerifyVariableInfo): HTMLElement {
    const t = this._t;
    const item = el('li', 'mgenv-sb-verify-var');
    item.dataset.name = info.name;
    item.dataset.matches = String(info.matches);
    item.dataset.arrived = info.arrived;
    const head = el('div', 'mgenv-sb-verify-var-head');
    const name = el('code', 'mgenv-sb-verify-name');
    name.append(...breakableName(info.name)); // long names break after an underscore, as in the rows
    const verdict = el('span', `mgenv-sb-verify-verdict mgenv-sb-verify-${info.matches ? 'ok' : 'differs'}`);
    // The kernel's verdict (cluster/seen.py), labelled with the same three words as the node's counts.
    verdict.textContent = t(VERDICT_WORD[info.verdict] ?? 'verifyDiffers');
    head.append(name, verdict);
    item.append(head);
    if (info.secret) {
      const secret = el('div', 'mgenv-sb-verify-line');
      secret.textContent = info.matches ? t('verifySecretSame') : t('verifySecretOther');
      item.append(secret);
    } else {
      item.append(this._value('verifySession', info.expected), this._value('verifyWorkers', info.seen));
    }
    const arrived = el('div', 'mgenv-sb-verify-line mgenv-sb-verify-arrived');
    if (info.arrived === 'missing') {
      arrived.textContent = t('verifyMissingThere');
    } else if (info.arrived === 'at_start') {
      arrived.textContent = t('verifyAtStart');
    } else {
      arrived.textContent = t('verifyAfterStart');
    }
    item.append(arrived);
    if (info.arrived === 'after_start' && info.imported_before.length) {
      const imported = el('div', 'mgenv-sb-verify-line mgenv-sb-verify-arrived');
      imported.textContent = t('verifyImportedBefore', info.imported_before.join(', '));
      item.append(imported);
    }
    return item;
  }

  private _value(key: 'verifySession' | 'verifyWorkers', value: string | null): HTMLElement {
    const line = el('div', 'mgenv-sb-verify-line mgenv-sb-verify-value');
    const shown = shownValue(value, this._t);
    const [before, after] = this._t(key, '\u0000').split('\u0000');
    const text = value === null ? document.createTextNode(shown.text) : code(shown.text);
    line.append(before ?? '', text, after ?? '');
    if (shown.title) {
      line.title = shown.title;
    }
    return line;
  }

  private async _verify(): Promise<void> {
    const t = this._t;
    this._button.disabled = true;
    this._outcome.dataset.state = 'busy';
    this._outcome.textContent = t('verifyRunning');
    let answer: Answer | null = null;
    try {
      answer = await this._run();
    } catch (reason) {
      console.warn('mgenv_jupyter: verify could not be asked for', reason);
    }
    this._button.disabled = false;
    if (answer?.type === 'result') {
      this._outcome.replaceChildren(); // the new result has arrived as a "verify" notice and is shown
      delete this._outcome.dataset.state;
      return;
    }
    this._outcome.dataset.state = 'error';
    this._outcome.textContent =
      answer?.type === 'error' ? t('error', answer.message) : t('error', t('noKernel'));
  }
}
