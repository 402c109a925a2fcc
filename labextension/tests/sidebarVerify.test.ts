import { nullTranslator } from '@jupyterlab/translation';

import { KernelClient } from '../src/sidebar/client';
import { ConfigView } from '../src/sidebar/configView';
import { EnvModel } from '../src/sidebar/model';
import { DOMAIN } from '../src/sidebar/text';
import { nodeCounts, SHOWN_VALUE, shownValue } from '../src/sidebar/verifyView';
import { VerifyNotice } from '../src/protocol';
import { FakeKernel, flush } from './fakes';

const trans = nullTranslator.load(DOMAIN);
const DTR = 'MEGENGINE_DTR_EVICTION_THRESHOLD';

/** As comm.py sends it for three nodes: one ok, one whose workers differ, one that did not answer. */
const RESULT: VerifyNotice = {
  v: 1,
  type: 'verify',
  time: 1700000000,
  ok: false,
  nodes: [
    {
      node: 'node_a', state: 'ok', reason: null, ok: 2, mismatch: 0, missing: 0,
      variables: [
        { name: DTR, secret: false, expected: '5368709120', seen: '5368709120', matches: true, verdict: 'ok',
          arrived: 'at_start',
          imported_before: [] },
        { name: 'WANDB_API_KEY', secret: true, expected: null, seen: null, matches: true, verdict: 'ok', arrived: 'at_start',
          imported_before: [] }
      ]
    },
    {
      node: 'node_b', state: 'mismatch', reason: null, ok: 0, mismatch: 2, missing: 1,
      variables: [
        { name: DTR, secret: false, expected: '5368709120', seen: '5', matches: false, verdict: 'differs',
          arrived: 'after_start',
          imported_before: ['megengine'] },
        { name: 'WANDB_API_KEY', secret: true, expected: null, seen: null, matches: false, verdict: 'differs',
          arrived: 'at_start',
          imported_before: [] },
        { name: 'FLAGS_fraction_of_gpu_memory_to_use', secret: false, expected: '0.5', seen: null, matches: false,
          verdict: 'missing', arrived: 'missing', imported_before: [] }
      ]
    },
    { node: 'node_c', state: 'lost', reason: 'ActorDiedError: the actor died', ok: 0, mismatch: 0, missing: 0,
      variables: [] }
  ]
};

function setUp() {
  const model = new EnvModel('en');
  const asked: number[] = [];
  let answer: any = { v: 1, type: 'result', reply_to: 'x', changes: [] };
  const actions = {
    edit: async () => null,
    forget: jest.fn(),
    reviewProfile: jest.fn(async () => undefined),
    loadHistory: jest.fn(async () => undefined),
    verifyNodes: async () => {
      asked.push(1);
      return answer;
    }
  };
  const view = new ConfigView(model, actions, trans);
  const section = view.node.querySelector<HTMLElement>('.mgenv-sb-verify')!;
  return { model, view, section, asked, answerWith: (next: any) => (answer = next) };
}

describe('The panel’s copy of the last cluster.verify() result', () => {
  it('counts the nodes by state and shortens a long value, the whole of it kept for the tooltip', () => {
    expect(nodeCounts(RESULT)).toEqual({ nodes: 3, ok: 1, mismatch: 1, lost: 1 });
    expect(shownValue(null, trans)).toEqual({ text: '(unset)', title: '' });
    const long = 'x'.repeat(SHOWN_VALUE + 1);
    const shown = shownValue(long, trans);
    expect(shown.text.length).toBe(SHOWN_VALUE);
    expect(shown.text.endsWith('…') && shown.title === long).toBe(true);
    expect(shownValue('x'.repeat(SHOWN_VALUE), trans).title).toBe('');
  });

  it('shows each node with its state, counts and variables, secrets only as same or other, and goes with the kernel',
    () => {
      const { model, section } = setUp();
      expect(section.hidden).toBe(true);
      const client = new KernelClient(new FakeKernel().asKernel(), model, { language: 'en' });
      client.handle(RESULT);
      expect(model.lastVerify).toEqual(RESULT);
      expect(section.hidden).toBe(false);
      expect(section.querySelector('.mgenv-sb-verify-summary')!.textContent).toBe(
        '3 nodes: 1 ok, 1 mismatch, 1 lost');
      expect(section.querySelector('.mgenv-sb-verify-note')!.textContent).toContain('Ray workers are new processes');
      const nodes = [...section.querySelectorAll<HTMLElement>('.mgenv-sb-verify-node')];
      expect(nodes.map(n => [n.dataset.node, n.dataset.state])).toEqual(
        [['node_a', 'ok'], ['node_b', 'mismatch'], ['node_c', 'lost']]);
      expect(nodes[1].querySelector('.mgenv-sb-verify-node-head')!.textContent).toBe(
        'node_bmismatch0 ok · 2 mismatch · 1 missing');
      expect(nodes[2].textContent).toBe('node_clostno answer: ActorDiedError: the actor died');

      const lines = (node: HTMLElement, name: string) =>
        [...node.querySelectorAll<HTMLElement>(`[data-name='${name}'] .mgenv-sb-verify-line`)].map(l => l.textContent);
      expect(lines(nodes[0], DTR)).toEqual(
        ['session: 5368709120', 'workers: 5368709120', 'there at worker start: imports there read it']);
      expect(lines(nodes[1], DTR)).toEqual(['session: 5368709120', 'workers: 5',
        'arrived after worker start: a framework imported before did not read it', 'already imported there: megengine']);
      expect(nodes[1].querySelector(`[data-name='${DTR}'] .mgenv-sb-verify-verdict`)!.textContent).toBe('✗ differs');
      expect(lines(nodes[1], 'WANDB_API_KEY')).toEqual(
        ['secret: the workers hold another value', 'there at worker start: imports there read it']);
      expect(lines(nodes[0], 'WANDB_API_KEY')[0]).toBe('secret: the workers hold the session’s value');
      expect(lines(nodes[1], 'FLAGS_fraction_of_gpu_memory_to_use')).toEqual(
        ['session: 0.5', 'workers: (unset)', 'missing in this node’s workers']);
      expect(nodes[1].querySelector(
        "[data-name='FLAGS_fraction_of_gpu_memory_to_use'] .mgenv-sb-verify-verdict")!.textContent).toBe('✗ missing');
      expect(section.querySelector(`[data-name='${DTR}'] code`)!.textContent).toBe(DTR); // names and values as code

      model.resetKernelState(); // a restart: the new process has verified nothing
      expect(model.lastVerify).toBeNull();
      expect(section.hidden).toBe(true);
    });

  it('"Verify nodes" asks the kernel and shows its refusal; a result replaces the old one', async () => {
    const { model, section, asked, answerWith } = setUp();
    model.setLastVerify(RESULT);
    const button = section.querySelector<HTMLButtonElement>('.mgenv-sb-verify-run')!;
    const outcome = section.querySelector<HTMLElement>('.mgenv-sb-verify-outcome')!;
    answerWith({ v: 1, type: 'error', reply_to: 'x', message: 'Ray is not initialised in this kernel' });
    button.click();
    expect(outcome.textContent).toBe('Verifying the nodes…');
    expect(button.disabled).toBe(true);
    await flush();
    expect(asked.length).toBe(1);
    expect([outcome.dataset.state, outcome.textContent]).toEqual(
      ['error', 'Error: Ray is not initialised in this kernel']);
    expect(button.disabled).toBe(false);

    answerWith({ v: 1, type: 'result', reply_to: 'y', changes: [] });
    button.click();
    await flush();
    expect(outcome.textContent).toBe('');
    model.setLastVerify({ ...RESULT, ok: true, nodes: [RESULT.nodes[0]] });
    expect(section.querySelectorAll('.mgenv-sb-verify-node').length).toBe(1);
    expect(section.querySelector('.mgenv-sb-verify-summary')!.textContent).toBe('1 node: 1 ok, 0 mismatch, 0 lost');
  });

  it('the client sends the verify request as JSON data', async () => {
    const kernel = new FakeKernel();
    const client = new KernelClient(kernel.asKernel(), new EnvModel('en'), { language: 'en' });
    client.start();
    const pending = client.verify();
    expect(kernel.comm.bodies().slice(-1)).toEqual([{ type: 'verify' }]);
    const id = kernel.comm.sent[kernel.comm.sent.length - 1].id;
    kernel.comm.deliver({ v: 1, type: 'result', reply_to: id, changes: [] });
    await flush();
    await expect(pending).resolves.toMatchObject({ type: 'result', reply_to: id });
  });
});
