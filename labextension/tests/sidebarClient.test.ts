import { KernelClient, LOAD_CODE, ProfileReviewed } from '../src/sidebar/client';
import { EnvModel } from '../src/sidebar/model';
import { MemoryMessage } from '../src/protocol';
import { entry, FakeKernel, flush } from './fakes';

function start(profile: Record<string, string> = {}, language: 'en' | 'zh' = 'en') {
  const kernel = new FakeKernel();
  const model = new EnvModel(language);
  const client = new KernelClient(kernel.asKernel(), model, { language, profile });
  client.start();
  return { kernel, model, client };
}

const catalogReply = (replyTo: string) => ({
  v: 1, type: 'catalog', reply_to: replyTo, language: 'en', entries: [entry('MGB_ENABLE_DTR', 'switch')]
});

describe('KernelClient', () => {
  it('loads the extension with constant code, then opens the comm, says hello and sends the profile for review', () => {
    const { kernel } = start({ MGB_ENABLE_DTR: '1', MEGENGINE_DTR_EVICTION_THRESHOLD: '5368709120' }, 'zh');
    expect(kernel.executes).toEqual([
      { code: LOAD_CODE, silent: true, store_history: false, allow_stdin: false, stop_on_error: false }
    ]);
    expect(LOAD_CODE).toBe("__import__('mgenv_jupyter').load_ipython_extension(get_ipython())");
    const comm = kernel.comm;
    expect(comm.targetName).toBe('mgenv_jupyter');
    expect(comm.opened).toBe(true);
    // One request for the whole profile, never a "set": the kernel applies it only if the user approved it.
    expect(comm.bodies()).toEqual([
      { type: 'hello', language: 'zh' },
      {
        type: 'profile', profile: { MGB_ENABLE_DTR: '1', MEGENGINE_DTR_EVICTION_THRESHOLD: '5368709120' },
        approve: false, apply: true
      }
    ]);
    expect(comm.sent.every(m => m.v === 1 && typeof m.id === 'string')).toBe(true);
    expect(new Set(comm.sent.map(m => m.id)).size).toBe(2);
  });

  it('sends nothing about the profile when the notebook has none', () => {
    const { kernel } = start({});
    expect(kernel.comm.bodies()).toEqual([{ type: 'hello', language: 'en' }]);
  });

  it('hands the kernel’s review of the start-up profile to the follower, and answers profile requests', async () => {
    const { kernel, model, client } = start({ MGE_DEFAULT_DEVICE: 'cpu0' });
    const reviewed: ProfileReviewed[] = [];
    client.profileReviewed.connect((_, r) => reviewed.push(r));
    const comm = kernel.comm;
    const review = {
      v: 1, type: 'profile', reply_to: comm.sent[1].id, digest: 'd1', approved: false, stored: true, applied: false,
      items: [{ name: 'MGE_DEFAULT_DEVICE', value: 'cpu0', size: null, current: null, current_size: null, action: 'set', reason: null }], changes: []
    };
    comm.deliver(review);
    await flush();
    expect(reviewed).toEqual([{ profile: { MGE_DEFAULT_DEVICE: 'cpu0' }, answer: review }]);

    const approval = client.reviewProfile({ MGE_DEFAULT_DEVICE: 'cpu0' }, { approve: true, apply: true });
    const request = comm.sent[2];
    expect(request).toMatchObject({ type: 'profile', profile: { MGE_DEFAULT_DEVICE: 'cpu0' }, approve: true, apply: true });
    comm.deliver({ ...review, reply_to: request.id, approved: true, applied: true });
    await expect(approval).resolves.toMatchObject({ type: 'profile', approved: true, applied: true });
    expect(reviewed).toHaveLength(1); // only the start-up review goes to the signal
    expect(model.error).toBeNull();
  });

  it('reports the kernel refusing to review the profile, but not a comm that closed before it answered', async () => {
    const { kernel, client } = start({ A: '1' });
    const reviewed: ProfileReviewed[] = [];
    client.profileReviewed.connect((_, r) => reviewed.push(r));
    kernel.comm.closeFromKernel(); // refused before the target existed ...
    await kernel.reply({ status: 'ok' }); // ... so the comm is reopened and the profile sent again
    await flush();
    expect(reviewed).toEqual([]);
    const comm = kernel.comm;
    expect(comm.bodies().map(b => b.type)).toEqual(['hello', 'profile']);
    comm.deliver({ v: 1, type: 'error', reply_to: comm.sent[1].id, message: "unknown request type 'profile'" });
    await flush();
    expect(reviewed).toEqual([{ profile: { A: '1' }, answer: expect.objectContaining({ type: 'error' }) }]);
  });

  it('routes replies to the model and resolves the request they answer', async () => {
    const { kernel, model, client } = start();
    const comm = kernel.comm;
    comm.deliver(catalogReply(comm.sent[0].id));
    expect(model.connection.state).toBe('ready');
    const pending = client.set({ MGB_ENABLE_DTR: '1' });
    const id = comm.sent[1].id;
    expect(comm.bodies()[1]).toEqual({ type: 'set', assignments: { MGB_ENABLE_DTR: '1' }, source: 'sidebar', force: false, env_only: false });
    comm.deliver({ v: 1, type: 'result', reply_to: 'someone-else', changes: [] });
    comm.deliver({ v: 1, type: 'result', reply_to: id, changes: [] });
    await expect(pending).resolves.toMatchObject({ type: 'result', reply_to: id });

    const refused = client.unset(['NOPE']);
    comm.deliver({ v: 1, type: 'error', reply_to: comm.sent[2].id, message: "unknown variable 'NOPE'" });
    await expect(refused).resolves.toMatchObject({ type: 'error' });
    expect(model.error).toContain('NOPE');
  });

  it('sends memory on and off, and hands memory messages to the chart, not the model', () => {
    const { kernel, model, client } = start();
    const comm = kernel.comm;
    const received: MemoryMessage[] = [];
    client.memoryReceived.connect((_, m) => received.push(m));
    client.setMemory(true);
    client.setMemory(true); // no duplicate
    client.setMemory(false);
    expect(comm.bodies().slice(1)).toEqual([
      { type: 'memory', on: true, interval: 0.1 },
      { type: 'memory', on: false, interval: 0.1 }
    ]);
    const batch = { type: 'memory.batch', seq: 1, interval: 0.1, t: [1], columns: { 'gpu0 used': [5] }, cells: [] };
    comm.deliver(batch);
    expect(received).toEqual([batch]);
    expect(model.entries).toHaveLength(0);
  });

  it('tells a running stream a new sampling interval, and uses it for the next start', () => {
    const { kernel, client } = start();
    client.setMemoryInterval(0.5); // off: nothing to tell
    client.setMemory(true);
    client.setMemoryInterval(0.02);
    client.setMemoryInterval(0.02);
    expect(kernel.comm.bodies().slice(1)).toEqual([
      { type: 'memory', on: true, interval: 0.5 },
      { type: 'memory', on: true, interval: 0.02 }
    ]);
  });

  it('asks for a window of older changes and resolves with the kernel’s history reply, which the model keeps', async () => {
    const { kernel, model, client } = start();
    const comm = kernel.comm;
    const answer = client.history(40, 25);
    expect(comm.bodies()[1]).toEqual({ type: 'history', before: 40, limit: 25 });
    const change = {
      seq: 39, time: 1, name: 'A', old: null, new: '1', source: 'magic', outcome: 'effective', message: '',
      effective: null, secret: false
    };
    comm.deliver({ v: 1, type: 'history', reply_to: comm.sent[1].id, changes: [change], total: 60 });
    await expect(answer).resolves.toMatchObject({ type: 'history', total: 60 });
    expect(model.history).toEqual([change]);
  });

  it('asks for memory right after the profile when the panel was already visible', () => {
    const kernel = new FakeKernel();
    const client = new KernelClient(kernel.asKernel(), new EnvModel(), { language: 'en', profile: { A: '1' } });
    client.setMemory(true);
    client.start();
    expect(kernel.comm.bodies().map(b => b.type)).toEqual(['hello', 'profile', 'memory']);
  });

  it('asks for the state again after each executed cell (an import changes what values mean)', () => {
    const { kernel, client } = start();
    const comm = kernel.comm;
    kernel.idleAfter('execute_request'); // before the catalog: nothing to refresh yet
    comm.deliver(catalogReply(comm.sent[0].id));
    kernel.idleAfter('comm_msg'); // our own requests make the kernel busy too: no loop
    kernel.idleAfter('execute_request');
    expect(comm.bodies().map(b => b.type)).toEqual(['hello', 'refresh']);
    client.dispose();
    kernel.idleAfter('execute_request');
    expect(comm.sent).toHaveLength(2);
  });

  it('says how to install the package when the kernel has no mgenv_jupyter', async () => {
    const { kernel, model } = start();
    await kernel.reply({ status: 'error', ename: 'ModuleNotFoundError', evalue: "No module named 'mgenv_jupyter'", traceback: [] });
    kernel.comm.closeFromKernel(); // the target does not exist either
    expect(model.connection.state).toBe('not-installed');
    expect(kernel.comms).toHaveLength(1); // no retry
  });

  it('reports any other load failure', async () => {
    const { kernel, model } = start();
    await kernel.reply({ status: 'error', ename: 'SyntaxError', evalue: 'invalid syntax', traceback: [] });
    expect(model.connection).toMatchObject({ state: 'failed', detail: 'SyntaxError: invalid syntax' });
  });

  it('reopens the comm once if the kernel refused it before the extension was loaded', async () => {
    const { kernel, model } = start({ A: '1' });
    kernel.comm.closeFromKernel();
    await kernel.reply({ status: 'ok' });
    expect(kernel.comms).toHaveLength(2);
    expect(kernel.comm.bodies().map(b => b.type)).toEqual(['hello', 'profile']);
    kernel.comm.deliver(catalogReply(kernel.comm.sent[0].id));
    expect(model.connection.state).toBe('ready');
    kernel.comm.closeFromKernel();
    expect(kernel.comms).toHaveLength(2);
    expect(model.connection.state).toBe('closed');
  });

  it('stops the stream, closes the comm and answers waiting requests on dispose', async () => {
    const { kernel, client } = start();
    const comm = kernel.comm;
    client.setMemory(true);
    const pending = client.set({ A: '1' });
    client.dispose();
    expect(comm.bodies().pop()).toEqual({ type: 'memory', on: false, interval: 0.1 });
    expect(comm.closed).toBe(true);
    await expect(pending).resolves.toMatchObject({ type: 'error' });
    comm.deliver(catalogReply('late')); // ignored after dispose
    await expect(client.set({ A: '2' })).resolves.toMatchObject({ type: 'error', message: 'not connected to a kernel' });
  });
});
