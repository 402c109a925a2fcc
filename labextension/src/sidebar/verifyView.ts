/**
 * The followed kernel's last cluster.verify() result (the kernel's "verify" notice, protocol/_sidebar.py
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
import { code, el } from '../shared/dom';
import { breakableName } from './rows';
import { Translation } from './text';

/** Characters of a value shown; the whole value (as the kernel sent it) is the tooltip. */
export const SHOWN_VALUE = 80;

/** A node's state and a variable's verdict (the kernel's codes) in the user's language. */
const STATE_WORD: Record<VerifyNodeState, (trans: Translation) => string> = {
  ok: trans => trans.__('ok'),
  mismatch: trans => trans.__('mismatch'),
  lost: trans => trans.__('lost')
};
const VERDICT_WORD: Record<VerifyVerdict, (trans: Translation) => string> = {
  ok: trans => trans.__('✓ matches'),
  differs: trans => trans.__('✗ differs'),
  missing: trans => trans.__('✗ missing')
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
export function shownValue(value: string | null, trans: Translation): { text: string; title: string } {
  if (value === null) {
    return { text: trans.__('(unset)'), title: '' };
  }
  return value.length <= SHOWN_VALUE
    ? { text: value, title: '' }
    : { text: `${value.slice(0, SHOWN_VALUE - 1)}…`, title: value };
}

export class VerifyView {
  readonly node: HTMLElement;
  private _trans: Translation;
  private _run: () => Promise<Answer | null>;
  private _head: HTMLElement;
  private _button: HTMLButtonElement;
  private _outcome: HTMLElement;
  private _body: HTMLElement;

  /** `run` asks the followed kernel to verify the nodes (null: no kernel to ask). */
  constructor(trans: Translation, run: () => Promise<Answer | null>) {
    this._trans = trans;
    this._run = run;
    this.node = el('section', 'mgenv-sb-verify');
    this.node.setAttribute('aria-label', trans.__('Cluster nodes: what their workers see'));
    this._head = el('div', 'mgenv-sb-verify-head');
    this._button = el('button', 'jp-Button mgenv-sb-verify-run') as HTMLButtonElement;
    this._button.type = 'button';
    this._button.textContent = trans.__('Verify nodes');
    this._button.title = trans.__(
      'Run mgenv_jupyter.cluster.verify() in the kernel: a small Ray task on each node reads the session’s variables ' +
        'in a worker there (Ray must be initialised in the kernel)'
    );
    this._button.addEventListener('click', () => void this._verify());
    this._outcome = el('div', 'mgenv-sb-verify-outcome');
    this._outcome.setAttribute('role', 'status');
    this._body = el('div', 'mgenv-sb-verify-body');
    this.node.append(this._head, this._outcome, this._body);
    this.render(null);
  }

  /** Show `result` (null: none yet in this kernel process, and the block is hidden). */
  render(result: VerifyNotice | null): void {
    const trans = this._trans;
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
    title.textContent = trans.__('Cluster nodes: what their workers see');
    const when = el('div', 'mgenv-sb-verify-when');
    when.textContent = trans.__('cluster.verify() at %1', new Date(result.time * 1000).toLocaleTimeString());
    titles.append(title, when);
    this._head.append(titles, this._button);
    const counts = nodeCounts(result);
    const summary = el('div', 'mgenv-sb-verify-summary');
    summary.dataset.ok = String(result.ok);
    summary.textContent =
      counts.nodes === 1
        ? trans.__('1 node: %2 ok, %3 mismatch, %4 lost', counts.nodes, counts.ok, counts.mismatch, counts.lost)
        : trans.__('%1 nodes: %2 ok, %3 mismatch, %4 lost', counts.nodes, counts.ok, counts.mismatch, counts.lost);
    const note = el('div', 'mgenv-sb-verify-note');
    note.textContent = trans.__(
      'Ray workers are new processes: a value they started with takes effect there, import-time variables included.'
    );
    this._body.append(summary, note, ...result.nodes.map(node => this._node(node)));
  }

  private _node(info: VerifyNodeInfo): HTMLElement {
    const trans = this._trans;
    const box = el('div', 'mgenv-sb-verify-node');
    box.dataset.node = info.node;
    box.dataset.state = info.state;
    const head = el('div', 'mgenv-sb-verify-node-head');
    const name = el('span', 'mgenv-sb-verify-node-name');
    name.textContent = info.node;
    const state = el('span', `mgenv-sb-verify-state mgenv-sb-verify-state-${info.state}`);
    state.textContent = (STATE_WORD[info.state] ?? STATE_WORD.lost)(trans);
    head.append(name, state);
    if (info.state !== 'lost') {
      const counts = el('span', 'mgenv-sb-verify-counts');
      counts.textContent = trans.__('%1 ok · %2 mismatch · %3 missing', info.ok, info.mismatch, info.missing);
      head.append(counts);
    }
    box.append(head);
    if (info.state === 'lost') {
      const reason = el('div', 'mgenv-sb-verify-reason');
      reason.textContent = trans.__('no answer: %1', info.reason ?? '');
      box.append(reason);
      return box;
    }
    if (!info.variables.length) {
      const none = el('div', 'mgenv-sb-verify-line');
      none.textContent = trans.__('no variables to verify');
      box.append(none);
    }
    const list = el('ul', 'mgenv-sb-verify-vars');
    list.append(...info.variables.map(variable => this._variable(variable)));
    box.append(list);
    return box;
  }

  private _variable(info: VerifyVariableInfo): HTMLElement {
    const trans = this._trans;
    const item = el('li', 'mgenv-sb-verify-var');
    item.dataset.name = info.name;
    item.dataset.matches = String(info.matches);
    item.dataset.arrived = info.arrived;
    const head = el('div', 'mgenv-sb-verify-var-head');
    const name = el('code', 'mgenv-sb-verify-name');
    name.append(...breakableName(info.name)); // long names break after an underscore, as in the rows
    const verdict = el('span', `mgenv-sb-verify-verdict mgenv-sb-verify-${info.matches ? 'ok' : 'differs'}`);
    // The kernel's verdict (cluster/_seen.py), labelled with the same three words as the node's counts.
    verdict.textContent = (VERDICT_WORD[info.verdict] ?? VERDICT_WORD.differs)(trans);
    head.append(name, verdict);
    item.append(head);
    if (info.secret) {
      const secret = el('div', 'mgenv-sb-verify-line');
      secret.textContent = info.matches
        ? trans.__('secret: the workers hold the session’s value')
        : trans.__('secret: the workers hold another value');
      item.append(secret);
    } else {
      // The value goes where %1 is, as code: the label is translated around a marker that splits it.
      item.append(
        this._value(trans.__('session: %1', '\u0000'), info.expected),
        this._value(trans.__('workers: %1', '\u0000'), info.seen)
      );
    }
    const arrived = el('div', 'mgenv-sb-verify-line mgenv-sb-verify-arrived');
    if (info.arrived === 'missing') {
      arrived.textContent = trans.__('missing in this node’s workers');
    } else if (info.arrived === 'at_start') {
      arrived.textContent = trans.__('there at worker start: imports there read it');
    } else {
      arrived.textContent = trans.__('arrived after worker start: a framework imported before did not read it');
    }
    item.append(arrived);
    if (info.arrived === 'after_start' && info.imported_before.length) {
      const imported = el('div', 'mgenv-sb-verify-line mgenv-sb-verify-arrived');
      imported.textContent = trans.__('already imported there: %1', info.imported_before.join(', '));
      item.append(imported);
    }
    return item;
  }

  private _value(label: string, value: string | null): HTMLElement {
    const line = el('div', 'mgenv-sb-verify-line mgenv-sb-verify-value');
    const shown = shownValue(value, this._trans);
    const [before, after] = label.split('\u0000');
    const text = value === null ? document.createTextNode(shown.text) : code(shown.text);
    line.append(before ?? '', text, after ?? '');
    if (shown.title) {
      line.title = shown.title;
    }
    return line;
  }

  private async _verify(): Promise<void> {
    const trans = this._trans;
    this._button.disabled = true;
    this._outcome.dataset.state = 'busy';
    this._outcome.textContent = trans.__('Verifying the nodes…');
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
      answer?.type === 'error' ? trans.__('Error: %1', answer.message) : trans.__('Error: %1', trans.__('This notebook has no kernel.'));
  }
}
