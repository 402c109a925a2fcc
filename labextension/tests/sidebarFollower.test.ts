import { Signal } from '@lumino/signaling';

import { NotebookFollower, NotebookSource, profileKey } from '../src/sidebar/follower';
import { EnvModel } from '../src/sidebar/model';
import { ProfileQuestionArgs } from '../src/sidebar/profile/review';
import { ProfileItemInfo } from '../src/protocol';
import { FakeComm, FakeKernel, flush } from './fakes';

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
  kernel.comms[comm].bodies().map((b: any) =>
    b.type === 'set'
      ? `set ${b.source} ${Object.keys(b.assignments)}`
      : b.type === 'profile'
        ? `profile ${Object.keys(b.profile)}${b.approve ? ' approve' : ''}${b.apply ? ' apply' : ''}`
        : b.type
  );

/** The person in front of the screen: records each question and answers when the test says so. */
class User {
  questions: ProfileQuestionArgs[] = [];
  private _answers: ((yes: boolean) => void)[] = [];

  readonly ask = (args: ProfileQuestionArgs): Promise<boolean> => {
    this.questions.push(args);
    return new Promise(resolve => this._answers.push(resolve));
  };

  async answer(yes: boolean): Promise<void> {
    this._answers.shift()?.(yes);
    await flush();
  }
}

const review = (profile: Record<string, string>): ProfileItemInfo[] =>
  Object.entries(profile).map(([name, value]) =>
    name.startsWith('LD_')
      ? { name, value, size: null, current: null, current_size: null, action: 'refused', reason: `${name} is never taken from a notebook profile` }
      : { name, value, size: null, current: null, current_size: null, action: 'set', reason: null }
  );

/** The kernel answers the last "profile" request on this comm, as a kernel with (or without) that approval would. */
async function answerProfile(comm: FakeComm, approved: boolean): Promise<any> {
  const request = [...comm.sent].reverse().find(m => m.type === 'profile');
  const isApproved = approved || request.approve;
  comm.deliver({
    v: 1, type: 'profile', reply_to: request.id, digest: 'd', approved: isApproved, stored: true,
    applied: isApproved && request.apply, items: review(request.profile), changes: []
  });
  await flush();
  return request;
}

async function setUp(user = new User()) {
  const tracker = new FakeTracker();
  const model = new EnvModel('en');
  const follower = new NotebookFollower(tracker, model, user.ask);
  follower.setActive(true); // the panel is shown
  const a = new FakePanel('a.ipynb', new FakeKernel(), { MGB_ENABLE_DTR: '1' });
  const b = new FakePanel('b.ipynb', new FakeKernel());
  return { tracker, model, follower, a, b, user };
}

const change = (name: string, value: string, secret = false) => ({
  seq: 1, time: 1, name, old: null, new: value, source: 'sidebar', outcome: 'takes effect at import', message: '',
  effective: null, secret
});

/** A sidebar edit the kernel accepts; returns what the follower sent after the kernel's answer. */
async function acceptedEdit(follower: NotebookFollower, comm: FakeComm, name: string, value: string, secret = false) {
  const edit = follower.edit(name, value);
  const request = comm.sent[comm.sent.length - 1];
  const before = comm.sent.length;
  comm.deliver({ v: 1, type: 'result', reply_to: request.id, changes: [change(name, value, secret)] });
  await edit;
  return comm.bodies().slice(before);
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
    expect(types(configured.kernel!)).toEqual(['hello', 'profile MGB_ENABLE_DTR apply']);

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
    expect(types(a.kernel!)).toEqual(['hello', 'profile MGB_ENABLE_DTR apply']);
    expect(model.profile).toEqual({ MGB_ENABLE_DTR: '1' });
    expect(model.profileReview.status).toBe('checking');
    await answerProfile(a.kernel!.comm, true);
    expect(model.profileReview.status).toBe('applied');

    tracker.show(b as any);
    await flush();
    expect(a.kernel!.comms[0].closed).toBe(true);
    expect(model.profile).toEqual({});
    tracker.show(a as any); // back again: the running kernel keeps what the user did since
    await flush();
    expect(a.kernel!.comms).toHaveLength(2);
    expect(types(a.kernel!)).toEqual(['hello']);
    expect(model.profileReview.status).toBe('applied'); // what became of it in this process is remembered
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
    expect(types(kernel)).toEqual(['hello', 'profile MGB_ENABLE_DTR apply', 'memory']);
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
    expect(types(other)).toEqual(['hello', 'profile MGB_ENABLE_DTR apply']);
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
      v: 1, type: 'result', reply_to: request.id, changes: [change('MEGENGINE_DTR_EVICTION_THRESHOLD', '5368709120')]
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

describe('NotebookFollower and a remedy clicked in an out-of-memory report', () => {
  it('connects a kernel on standby, sends one "remedy" naming only the ids, and keeps the accepted values', async () => {
    const tracker = new FakeTracker();
    const model = new EnvModel('en');
    const follower = new NotebookFollower(tracker, model); // the panel was never shown
    const a = new FakePanel('a.ipynb', new FakeKernel());
    tracker.show(a as any);
    await flush();
    expect(model.connection.state).toBe('standby');
    const assignments = { MEGENGINE_ENABLE_DROP: '1', MEGENGINE_DTR_EVICTION_THRESHOLD: '16GB' };
    const applied = follower.applyRemedy(a as any, { reportId: 'r9', remedyId: 'r9-1', assignments });
    const comm = a.kernel!.comm;
    const request = comm.sent[comm.sent.length - 1];
    expect(types(a.kernel!)).toEqual(['hello', 'remedy']);
    // Only the kernel's ids travel: no names, values, source or force for the kernel to trust.
    expect(request).toEqual({ v: 1, id: request.id, type: 'remedy', report_id: 'r9', remedy_id: 'r9-1' });
    comm.deliver({
      v: 1, type: 'result', reply_to: request.id,
      changes: [change('MEGENGINE_ENABLE_DROP', '1'), change('MEGENGINE_DTR_EVICTION_THRESHOLD', '17179869184')]
    });
    expect((await applied)?.type).toBe('result');
    expect(a.metadata.mgenv_jupyter).toEqual({
      profile: { MEGENGINE_ENABLE_DROP: '1', MEGENGINE_DTR_EVICTION_THRESHOLD: '17179869184' }
    });
  });

  it('keeps nothing the kernel refused, and asks nothing of a notebook it does not follow', async () => {
    const { tracker, follower, a, b } = await setUp();
    tracker.show(a as any);
    await flush();
    const choice = (assignments: Record<string, string>) => ({ reportId: 'r9', remedyId: 'r9-0', assignments });
    expect(await follower.applyRemedy(b as any, choice({ MGB_ENABLE_DTR: '1' }))).toBeNull();
    const comm = a.kernel!.comm;
    const refused = follower.applyRemedy(a as any, choice({ MGE_DEFAULT_DEVICE: 'nowhere' }));
    comm.deliver({ v: 1, type: 'error', reply_to: comm.sent[comm.sent.length - 1].id, message: 'not a device' });
    expect((await refused)?.type).toBe('error');
    expect(a.metadata.mgenv_jupyter).toEqual({ profile: { MGB_ENABLE_DTR: '1' } });
  });
});

describe('NotebookFollower and a remedy a report under a cell set in its own notebook’s kernel', () => {
  it('keeps it in that notebook’s profile while the sidebar follows another, and asks nothing of the followed kernel', async () => {
    const { tracker, model, follower, a, b } = await setUp();
    tracker.show(a as any);
    await flush();
    const sentToA = a.kernel!.comm.sent.length;
    const reviewed: any[] = [];
    const ownKernel = { reviewProfile: async (profile: any, options: any) => void reviewed.push([profile, options]) };
    const choice = { reportId: 'r2', remedyId: 'r2-0', assignments: { MGB_ENABLE_DTR: '1' } };
    const accepted = { v: 1, type: 'result', reply_to: 'output-1', changes: [change('MGB_ENABLE_DTR', '1')] } as any;
    follower.keepRemedy(b as any, choice, accepted, ownKernel);
    await flush();
    expect(b.metadata.mgenv_jupyter).toEqual({ profile: { MGB_ENABLE_DTR: '1' } });
    // b's profile was empty: the new content is the user's own, recorded through b's kernel, not the followed one.
    expect(reviewed).toEqual([[{ MGB_ENABLE_DTR: '1' }, { approve: true, apply: false }]]);
    expect(a.kernel!.comm.sent.length).toBe(sentToA);
    expect(model.profile).toEqual({ MGB_ENABLE_DTR: '1' }); // a's own profile, unchanged by b's
    follower.keepRemedy(b as any, { ...choice, assignments: { MGE_DEFAULT_DEVICE: 'cpu0' } },
      { v: 1, type: 'error', reply_to: 'output-2', message: 'stale' } as any, ownKernel);
    await flush();
    expect(b.metadata.mgenv_jupyter).toEqual({ profile: { MGB_ENABLE_DTR: '1' } });
  });
});

describe('NotebookFollower and the profile’s approval', () => {
  const DEVICE = { MGE_DEFAULT_DEVICE: 'cpu0' };
  const HOSTILE = { LD_PRELOAD: '/tmp/evil.so', MGE_DEFAULT_DEVICE: 'cpu0' };

  it('applies an approved profile without asking', async () => {
    const { tracker, model, a, user } = await setUp();
    a.metadata.mgenv_jupyter = { profile: DEVICE };
    tracker.show(a as any);
    await flush();
    await answerProfile(a.kernel!.comm, true);
    expect(user.questions).toEqual([]);
    expect(model.profileReview).toMatchObject({ status: 'applied' });
    expect(types(a.kernel!)).toEqual(['hello', 'profile MGE_DEFAULT_DEVICE apply']);
  });

  it('asks before applying a profile the kernel has no approval for, and sends nothing until the user answers', async () => {
    const { tracker, model, a, user } = await setUp();
    a.metadata.mgenv_jupyter = { profile: HOSTILE };
    tracker.show(a as any);
    await flush();
    await answerProfile(a.kernel!.comm, false);
    expect(user.questions).toEqual([{ notebook: 'a.ipynb', items: review(HOSTILE) }]);
    expect(model.profileReview.status).toBe('asking');
    expect(types(a.kernel!)).toEqual(['hello', 'profile LD_PRELOAD,MGE_DEFAULT_DEVICE apply']);

    await user.answer(true);
    const approval = await answerProfile(a.kernel!.comm, false);
    expect(approval).toMatchObject({ type: 'profile', profile: HOSTILE, approve: true, apply: true });
    expect(model.profileReview.status).toBe('applied');
    expect(user.questions).toHaveLength(1);
  });

  it('changes nothing when the user declines, offers the review again, and asks again when the kernel restarts', async () => {
    const { tracker, model, follower, a, user } = await setUp();
    a.metadata.mgenv_jupyter = { profile: DEVICE };
    tracker.show(a as any);
    await flush();
    const kernel = a.kernel!;
    await answerProfile(kernel.comm, false);
    await user.answer(false);
    expect(model.profileReview.status).toBe('declined');
    expect(types(kernel)).toEqual(['hello', 'profile MGE_DEFAULT_DEVICE apply']); // no approval, no set

    const reviewed = follower.reviewProfile(); // the panel's "Review and apply…"
    await answerProfile(kernel.comm, false);
    expect(user.questions).toHaveLength(2);
    await user.answer(false);
    await reviewed;
    expect(model.profileReview.status).toBe('declined');

    a.sessionContext.statusChanged.emit('restarting');
    await flush();
    expect(types(kernel)).toEqual(['hello', 'profile MGE_DEFAULT_DEVICE apply']);
    await answerProfile(kernel.comm, false);
    expect(user.questions).toHaveLength(3);
    await user.answer(true);
    await answerProfile(kernel.comm, false);
    expect(model.profileReview.status).toBe('applied');
  });

  it('asks once when the kernel restarts while the question is open, and applies the answer to the new process', async () => {
    const { tracker, model, a, user } = await setUp();
    a.metadata.mgenv_jupyter = { profile: DEVICE };
    tracker.show(a as any);
    await flush();
    const kernel = a.kernel!;
    await answerProfile(kernel.comm, false);
    a.sessionContext.statusChanged.emit('restarting');
    await flush();
    await answerProfile(kernel.comm, false);
    expect(user.questions).toHaveLength(1);
    await user.answer(true);
    expect(kernel.comms[0].bodies().filter((b: any) => b.approve)).toEqual([]);
    expect(types(kernel)).toEqual(['hello', 'profile MGE_DEFAULT_DEVICE apply', 'profile MGE_DEFAULT_DEVICE approve apply']);
    await answerProfile(kernel.comm, false);
    expect(model.profileReview.status).toBe('applied');
  });

  it('records the user’s own edits as approved, so the next start does not ask', async () => {
    const { tracker, follower, a, user } = await setUp();
    delete a.metadata.mgenv_jupyter;
    tracker.show(a as any);
    await flush();
    const comm = a.kernel!.comm;
    expect(types(a.kernel!)).toEqual(['hello']); // no profile yet

    expect(await acceptedEdit(follower, comm, 'MGE_DEFAULT_DEVICE', 'cpu0')).toEqual([
      { type: 'profile', profile: { MGE_DEFAULT_DEVICE: 'cpu0' }, approve: true, apply: false }
    ]);
    expect(await acceptedEdit(follower, comm, 'MGB_ENABLE_DTR', '1')).toEqual([
      { type: 'profile', profile: { MGE_DEFAULT_DEVICE: 'cpu0', MGB_ENABLE_DTR: '1' }, approve: true, apply: false }
    ]);
    follower.forget('MGB_ENABLE_DTR');
    expect(comm.bodies().pop()).toEqual({ type: 'profile', profile: { MGE_DEFAULT_DEVICE: 'cpu0' }, approve: true, apply: false });
    expect(user.questions).toEqual([]);
  });

  it('never approves content the user declined by editing next to it', async () => {
    const { tracker, follower, a, user } = await setUp();
    a.metadata.mgenv_jupyter = { profile: HOSTILE };
    tracker.show(a as any);
    await flush();
    const comm = a.kernel!.comm;
    await answerProfile(comm, false);
    await user.answer(false);
    expect(await acceptedEdit(follower, comm, 'MGB_ENABLE_DTR', '1')).toEqual([]); // kept in the file, not approved
    expect(a.metadata.mgenv_jupyter).toEqual({ profile: { ...HOSTILE, MGB_ENABLE_DTR: '1' } });
  });

  it('applies a profile approved after the user accepted it, and then approves their edits to it', async () => {
    const { tracker, follower, a, user } = await setUp();
    a.metadata.mgenv_jupyter = { profile: DEVICE };
    tracker.show(a as any);
    await flush();
    const comm = a.kernel!.comm;
    await answerProfile(comm, false);
    await user.answer(true);
    await answerProfile(comm, false);
    expect(await acceptedEdit(follower, comm, 'MGB_ENABLE_DTR', '1')).toEqual([
      { type: 'profile', profile: { MGE_DEFAULT_DEVICE: 'cpu0', MGB_ENABLE_DTR: '1' }, approve: true, apply: false }
    ]);
  });

  it('never keeps a value the kernel reports as a secret', async () => {
    const { tracker, model, follower, a } = await setUp();
    delete a.metadata.mgenv_jupyter;
    tracker.show(a as any);
    await flush();
    const comm = a.kernel!.comm;
    await acceptedEdit(follower, comm, 'MGE_DEFAULT_DEVICE', 'cpu0');
    expect(await acceptedEdit(follower, comm, 'ASCEND_OPTION', 'ghp_0123456789abcdef0123456789abcdef0123', true)).toEqual([]);
    expect(model.profile).toEqual({ MGE_DEFAULT_DEVICE: 'cpu0' });
    expect(JSON.stringify(a.metadata)).not.toContain('ghp_');
  });

  it('reports a profile the kernel could not review', async () => {
    const { tracker, model, a, user } = await setUp();
    tracker.show(a as any);
    await flush();
    const comm = a.kernel!.comm;
    comm.deliver({ v: 1, type: 'error', reply_to: comm.sent[1].id, message: "unknown request type 'profile'" });
    await flush();
    expect(model.profileReview.status).toBe('failed');
    expect(model.error).toContain('profile');
    expect(user.questions).toEqual([]);
  });

  it('spells a profile the same whatever the order of its names', () => {
    expect(profileKey({ A: '1', B: '2' })).toBe(profileKey({ B: '2', A: '1' }));
    expect(profileKey({ A: '1' })).not.toBe(profileKey({ A: '2' }));
  });
});
