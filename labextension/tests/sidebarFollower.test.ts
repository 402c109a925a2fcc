import { Signal } from '@lumino/signaling';

import { NotebookFollower, NotebookSource } from '../src/sidebar/follower';
import { EnvModel } from '../src/sidebar/model';
import { FakeKernel, flush } from './fakes';

/** Just enough of a NotebookPanel: its session context, its document context and model metadata. */
class FakePanel {
  readonly disposed = new Signal<this, void>(this);
  isDisposed = false;
  readonly metadata: Record<string, unknown> = {};
  readonly sessionContext: any;
  readonly context: any;
  restarts = 0;

  constructor(name: string, public kernel: FakeKernel | null, profile: Record<string, string> = {}) {
    if (Object.keys(profile).length) {
      this.metadata.mgenv_jupyter = { profile };
    }
    const panel = this;
    this.sessionContext = {
      kernelChanged: new Signal<any, any>(this),
      statusChanged: new Signal<any, any>(this),
      get session() {
        return panel.kernel ? { kernel: panel.kernel } : null;
      },
      kernelDisplayName: 'Python 3',
      restartKernel: async () => {
        this.restarts++;
      }
    };
    const metadataChanged = new Signal<any, any>(this);
    this.context = {
      localPath: name,
      isReady: true,
      ready: Promise.resolve(),
      model: {
        metadataChanged,
        getMetadata: (key: string) => this.metadata[key],
        setMetadata: (key: string, value: unknown) => {
          this.metadata[key] = value;
          metadataChanged.emit({});
        },
        deleteMetadata: (key: string) => {
          delete this.metadata[key];
          metadataChanged.emit({});
        }
      }
    };
  }

  changeKernel(kernel: FakeKernel | null): void {
    const old = this.kernel;
    this.kernel = kernel;
    this.sessionContext.kernelChanged.emit({ name: 'kernel', oldValue: old, newValue: kernel });
  }

  dispose(): void {
    this.isDisposed = true;
    this.disposed.emit();
  }
}

class FakeTracker implements NotebookSource {
  currentWidget: any = null;
  readonly currentChanged = new Signal<this, any>(this);

  show(panel: FakePanel | null): void {
    this.currentWidget = panel;
    this.currentChanged.emit(panel);
  }
}

const types = (kernel: FakeKernel, comm = kernel.comms.length - 1) =>
  kernel.comms[comm].bodies().map((b: any) => (b.type === 'set' ? `set ${b.source} ${Object.keys(b.assignments)}` : b.type));

async function setUp() {
  const tracker = new FakeTracker();
  const model = new EnvModel('en');
  const follower = new NotebookFollower(tracker, model);
  follower.setActive(true); // the panel is shown
  const a = new FakePanel('a.ipynb', new FakeKernel(), { MGB_ENABLE_DTR: '1' });
  const b = new FakePanel('b.ipynb', new FakeKernel());
  return { tracker, model, follower, a, b };
}

describe('NotebookFollower', () => {
  it('leaves a kernel alone until the panel is shown, unless its notebook has a profile to apply', async () => {
    const tracker = new FakeTracker();
    const model = new EnvModel('en');
    const follower = new NotebookFollower(tracker, model);
    const plain = new FakePanel('plain.ipynb', new FakeKernel());
    tracker.show(plain as any);
    await flush();
    expect(model.connection.state).toBe('standby');
    expect(plain.kernel!.executes).toHaveLength(0);
    plain.sessionContext.statusChanged.emit('restarting');
    await flush();
    expect(plain.kernel!.comms).toHaveLength(0);

    const configured = new FakePanel('configured.ipynb', new FakeKernel(), { MGB_ENABLE_DTR: '1' });
    tracker.show(configured as any);
    await flush();
    expect(types(configured.kernel!)).toEqual(['hello', 'set profile MGB_ENABLE_DTR']);

    tracker.show(plain as any);
    await flush();
    follower.setActive(true);
    expect(types(plain.kernel!)).toEqual(['hello']);
    expect(model.connection.state).toBe('connecting');
  });

  it('attaches to the current notebook’s kernel and applies its profile once per kernel process', async () => {
    const { tracker, model, a, b } = await setUp();
    expect(model.connection.state).toBe('no-notebook');
    tracker.show(a as any);
    await flush();
    expect(model.connection).toMatchObject({ state: 'connecting', notebook: 'a.ipynb', kernel: 'Python 3' });
    expect(a.kernel!.executes).toHaveLength(1);
    expect(types(a.kernel!)).toEqual(['hello', 'set profile MGB_ENABLE_DTR']);
    expect(model.profile).toEqual({ MGB_ENABLE_DTR: '1' });

    tracker.show(b as any);
    await flush();
    expect(a.kernel!.comms[0].closed).toBe(true);
    expect(model.profile).toEqual({});
    tracker.show(a as any); // back again: the running kernel keeps what the user did since
    await flush();
    expect(a.kernel!.comms).toHaveLength(2);
    expect(types(a.kernel!)).toEqual(['hello']);
  });

  it('re-attaches on restart, applying the profile to the new process, without a second attach', async () => {
    const { tracker, follower, a } = await setUp();
    tracker.show(a as any);
    await flush();
    const kernel = a.kernel!;
    follower.setMemory(true);
    await follower.restartAndApply();
    expect(a.restarts).toBe(1);
    a.sessionContext.statusChanged.emit('restarting'); // from the session context ...
    a.sessionContext.statusChanged.emit('restarting'); // ... and again from the kernel
    await flush();
    expect(kernel.comms).toHaveLength(2);
    expect(kernel.comms[0].closed).toBe(true);
    expect(types(kernel)).toEqual(['hello', 'set profile MGB_ENABLE_DTR', 'memory']);
    a.changeKernel(kernel); // SessionContext.restartKernel announces the same kernel afterwards
    await flush();
    expect(kernel.comms).toHaveLength(2);
  });

  it('follows a kernel change, a dead kernel and a closed notebook', async () => {
    const { tracker, model, a } = await setUp();
    tracker.show(a as any);
    await flush();
    const other = new FakeKernel();
    a.changeKernel(other);
    await flush();
    expect(types(other)).toEqual(['hello', 'set profile MGB_ENABLE_DTR']);
    a.sessionContext.statusChanged.emit('dead');
    expect(model.connection.state).toBe('dead');
    expect(other.comm.closed).toBe(true);
    a.changeKernel(null);
    expect(model.connection.state).toBe('no-kernel');
    a.dispose();
    expect(model.connection.state).toBe('no-notebook');
  });

  it('keeps accepted sidebar edits in the notebook profile, and only those', async () => {
    const { tracker, model, follower, a } = await setUp();
    tracker.show(a as any);
    await flush();
    const comm = a.kernel!.comm;
    const accepted = follower.edit('MEGENGINE_DTR_EVICTION_THRESHOLD', '5GB');
    const request = comm.sent[comm.sent.length - 1];
    expect(request).toMatchObject({ type: 'set', source: 'sidebar', assignments: { MEGENGINE_DTR_EVICTION_THRESHOLD: '5GB' } });
    comm.deliver({
      v: 1, type: 'result', reply_to: request.id,
      changes: [{ time: 1, name: 'MEGENGINE_DTR_EVICTION_THRESHOLD', old: null, new: '5368709120', source: 'sidebar',
                  outcome: 'takes effect at import', message: '', effective: null }]
    });
    await accepted;
    expect(a.metadata.mgenv_jupyter).toEqual({ profile: { MGB_ENABLE_DTR: '1', MEGENGINE_DTR_EVICTION_THRESHOLD: '5368709120' } });

    const refused = follower.edit('MGB_ENABLE_DTR', 'maybe');
    comm.deliver({ v: 1, type: 'error', reply_to: comm.sent[comm.sent.length - 1].id, message: "'maybe' is not allowed" });
    await refused;
    expect(model.profile.MGB_ENABLE_DTR).toBe('1');

    const unset = follower.edit('MGB_ENABLE_DTR', null);
    const unsetRequest = comm.sent[comm.sent.length - 1];
    expect(unsetRequest).toMatchObject({ type: 'unset', names: ['MGB_ENABLE_DTR'], source: 'sidebar' });
    comm.deliver({ v: 1, type: 'result', reply_to: unsetRequest.id, changes: [] });
    await unset;
    expect(model.profile).toEqual({ MEGENGINE_DTR_EVICTION_THRESHOLD: '5368709120' });

    follower.forget('MEGENGINE_DTR_EVICTION_THRESHOLD');
    expect(a.metadata).toEqual({});
  });
});
