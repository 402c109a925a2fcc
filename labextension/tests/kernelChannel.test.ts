/** An output's own channel to its notebook's kernel (shared/kernelChannel.ts): each notebook's kernel, no other. */
import { KernelChannel } from '../src/shared/kernelChannel';
import { FakeKernel, flush } from './fakes';

describe('KernelChannel', () => {
  it('asks its own notebook’s kernel over a comm of its own, and resolves with that kernel’s answer', async () => {
    const a = new FakeKernel();
    const b = new FakeKernel();
    const channelA = new KernelChannel(() => a.asKernel());
    const channelB = new KernelChannel(() => b.asKernel());
    const freed = channelA.free('r1');
    const recording = channelB.memtrace(true);
    expect(a.comms.map(c => [c.targetName, c.opened])).toEqual([['mgenv_jupyter', true]]);
    expect(a.comm.bodies()).toEqual([{ type: 'free', report_id: 'r1' }]); // no hello, no stream: only the request
    expect(b.comm.bodies()).toEqual([{ type: 'memtrace', on: true }]);
    b.comm.deliver({ v: 1, type: 'result', reply_to: b.comm.sent[0].id, changes: [] });
    a.comm.deliver({ v: 1, type: 'changed', changes: [] }); // a notice answers nothing
    a.comm.deliver({ v: 1, type: 'error', reply_to: a.comm.sent[0].id, message: 'not the last failure' });
    expect(await freed).toMatchObject({ type: 'error', message: 'not the last failure' });
    expect(await recording).toMatchObject({ type: 'result' });
    void channelA.applyRemedy('r1', 'r1-0');
    expect(a.comms.length).toBe(1); // the same comm for the next request
  });

  it('answers null where the notebook has no running kernel', async () => {
    const dead = new FakeKernel();
    dead.status = 'dead';
    expect(await new KernelChannel(() => null).free('r1')).toBeNull();
    expect(await new KernelChannel(() => dead.asKernel()).free('r1')).toBeNull();
    expect(dead.comms).toEqual([]);
  });

  it('answers what is waiting when the kernel restarts or closes the comm, and opens a new one for the next', async () => {
    let kernel = new FakeKernel();
    const channel = new KernelChannel(() => kernel.asKernel());
    const waiting = channel.applyRemedy('r1', 'r1-0');
    kernel.setStatus('restarting');
    expect(await waiting).toMatchObject({ type: 'error', code: 'not_connected', reply_to: null });
    const again = channel.free('r1');
    expect(kernel.comms.length).toBe(2);
    kernel.comm.closeFromKernel(); // a kernel without the extension's comm target
    expect(await again).toMatchObject({ type: 'error', code: 'not_connected' });
    kernel = new FakeKernel(); // the notebook's kernel changed
    void channel.free('r2');
    await flush();
    expect(kernel.comm.bodies()).toEqual([{ type: 'free', report_id: 'r2' }]);
    channel.dispose();
    expect(kernel.comm.closed).toBe(true);
    expect(await channel.free('r3')).toBeNull();
  });
});
