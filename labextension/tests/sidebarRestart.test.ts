import { nullTranslator } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';
import { Signal } from '@lumino/signaling';

import { addSidebarCommands, COMMAND_IDS } from '../src/sidebar/commands';
import { EnvModel } from '../src/sidebar/model';
import { SidebarPanel } from '../src/sidebar/panel';
import {
  carriedValues, keptNames, RestartQuestionArgs, restartBody, restartCount, restartItems
} from '../src/sidebar/profile/restartReview';
import { DOMAIN } from '../src/sidebar/text';
import { MASK, VariableInfo } from '../src/protocol';
import { FakeKernel, flush, variable } from './fakes';

const trans = nullTranslator.load(DOMAIN);
const KERNEL = { python: 'python', version: '3.11', imported: [] };

function model(profile: Record<string, string>, variables: Record<string, VariableInfo> | null): EnvModel {
  const env = new EnvModel('en');
  env.setProfile(profile);
  if (variables) {
    env.receive({ v: 1, type: 'state', reply_to: null, variables, history: [], history_total: 0, last_report: null, kernel: KERNEL });
  }
  return env;
}

describe('what "Restart and apply" would do', () => {
  it('counts the profile’s variables only a restart brings into effect', () => {
    const env = model(
      { SAME: '1', OTHER: '2', LATE: '3', API_TOKEN: 'abc' },
      {
        SAME: variable('1', 'pending_import'), // the kernel has it and the framework will read it: no restart needed
        OTHER: variable('5', 'pending_import'), // a cell set something else since
        LATE: variable('3', 'already_read'), // the framework read an older value at import
        API_TOKEN: variable(MASK, 'effective')
      }
    );
    const items = restartItems(env);
    expect(items.map(i => [i.name, i.value, i.now, i.needed])).toEqual([
      ['SAME', '1', '1', false],
      ['OTHER', '2', '5', true],
      ['LATE', '3', '3', true],
      ['API_TOKEN', MASK, MASK, true] // a secret is never shown, even in the question
    ]);
    expect(restartCount(items)).toBe(3);
    // Before the kernel has said anything, every variable is one the restart brings.
    expect(restartCount(restartItems(model({ A: '1' }, null)))).toBe(1);
  });

  it('does not count a variable the kernel refuses from a profile: a new kernel refuses it again', () => {
    const env = model({ MGE_DEFAULT_DEVICE: 'cpu0', LD_PRELOAD: '/tmp/x.so' }, {
      MGE_DEFAULT_DEVICE: variable('cpu0', 'pending_import'),
      LD_PRELOAD: variable(null, 'unset')
    });
    env.setProfileReview({
      status: 'applied',
      items: [
        { name: 'MGE_DEFAULT_DEVICE', value: 'cpu0', size: null, current: null, current_size: null, action: 'set', reason: null },
        { name: 'LD_PRELOAD', value: '/tmp/x.so', size: null, current: null, current_size: null, action: 'refused', reason: 'code-loading' }
      ]
    });
    const items = restartItems(env);
    expect(items.map(i => [i.name, i.needed, i.refused])).toEqual([
      ['MGE_DEFAULT_DEVICE', false, false],
      ['LD_PRELOAD', false, true]
    ]);
    expect(restartCount(items)).toBe(0);
    const body = restartBody({ notebook: 'downloaded.ipynb', items, saved: true }, trans, 'en');
    expect(body.querySelector('tr[data-name="LD_PRELOAD"] td:nth-child(4)')?.textContent).toBe(
      'never taken from a profile: a restart does not set it'
    );
  });

  it('lists each variable with its new value, what the kernel holds and why it needs the restart', () => {
    const env = model({ OTHER: '2', LATE: '3', SAME: '1' }, {
      OTHER: variable(null, 'unset'), LATE: variable('3', 'already_read'), SAME: variable('1', 'effective')
    });
    const args: RestartQuestionArgs = { notebook: 'train.ipynb', items: restartItems(env), saved: false };
    const body = restartBody(args, trans, 'en');
    const rows = [...body.querySelectorAll('tbody tr')].map(r => [...r.children].map(c => c.textContent));
    expect(rows).toEqual([
      ['OTHER', '2', '(not set)', 'the kernel holds another value', 'kept'],
      ['LATE', '3', '3', 'already read, restart needed', 'kept'],
      ['SAME', '1', '1', 'effective', 'kept']
    ]);
    expect(body.querySelector('p')!.textContent).toContain('The kernel of train.ipynb restarts');
    expect(body.querySelector('.mgenv-restart-review-unsaved')!.textContent).toContain('unsaved changes');
    const saved = restartBody({ ...args, saved: true }, trans, 'en');
    expect(saved.querySelector('.mgenv-restart-review-saved')!.textContent).toContain('the notebook is saved');
    const empty = restartBody({ notebook: 'a.ipynb', items: [], saved: true }, trans, 'en');
    expect(empty.querySelector('table')).toBeNull();
    expect(empty.textContent).toContain('The notebook profile is empty and this kernel set nothing');
  });
});

describe('sizes in the restart question', () => {
  it('writes a size as the kernel split it: the profile’s, what the kernel holds, and the one a carried value replaces', () => {
    const env = model({ THRESHOLD: '3221225472', POOL: '2048' }, {
      THRESHOLD: variable('1610612736', 'already_read', { size: { number: '1.5', unit: 'GiB' } }),
      POOL: variable('4096', 'already_read', { carry: 'carry', size: { number: '4', unit: 'GiB' } })
    });
    env.setProfileReview({
      status: 'applied',
      items: [
        { name: 'THRESHOLD', value: '3221225472', size: { number: '3', unit: 'GiB' }, current: '1610612736',
          current_size: { number: '1.5', unit: 'GiB' }, action: 'set', reason: null },
        { name: 'POOL', value: '2048', size: { number: '2', unit: 'GiB' }, current: '4096',
          current_size: { number: '4', unit: 'GiB' }, action: 'set', reason: null }
      ]
    });
    const items = restartItems(env);
    // The split is the kernel's, whatever rule the sidebar might have used (1.5 GiB, not 1536 MiB).
    expect(items.map(i => [i.name, i.value, i.shown.value, i.shown.now, i.shown.profiled])).toEqual([
      ['THRESHOLD', '3221225472', '3 GiB', '1.5 GiB', null],
      ['POOL', '4096', '4 GiB', '4 GiB', '2 GiB']
    ]);
    expect(carriedValues(items)).toEqual({ POOL: '4096' }); // what is sent stays what the framework reads
    const body = restartBody({ notebook: 'train.ipynb', items, saved: true }, trans, 'en');
    const cells = [...body.querySelectorAll('tbody tr')].map(r => [...r.children].slice(0, 3).map(c => c.textContent));
    expect(cells).toEqual([['THRESHOLD', '3 GiB', '1.5 GiB'], ['POOL', '4 GiB', '4 GiB']]);
  });

  it('writes a profile’s size the kernel held earlier (set in the panel, then changed in a cell) as it split it then', () => {
    const env = model({}, { THRESHOLD: variable('3221225472', 'pending_import', { size: { number: '3', unit: 'GiB' } }) });
    env.setProfile({ THRESHOLD: '3221225472' }); // the panel kept the value the kernel took
    env.receive({ v: 1, type: 'changed', changes: [], variables: {
      THRESHOLD: variable('1073741824', 'already_read', { carry: 'carry', size: { number: '1', unit: 'GiB' } })
    } });
    const [item] = restartItems(env);
    expect([item.shown.value, item.shown.now, item.shown.profiled]).toEqual(['1 GiB', '1 GiB', '3 GiB']);
    expect(env.sizeOf('THRESHOLD', '5')).toBeNull(); // a value the kernel never split is shown as it is
  });
});

describe('what this session set that a restart carries over', () => {
  it('lists the kernel’s carried values beside the profile, the newer value standing in for the profile’s', () => {
    const env = model({ A: '1', B: '2' }, {
      A: variable('1', 'pending_import', { carry: 'carry' }), // set by the profile itself: listed once, as the profile's
      B: variable('5', 'already_read', { carry: 'carry' }), // a cell set another value after the framework read it
      C: variable('3', 'already_read', { carry: 'carry' }), // a cell's %envset, not in the profile
      D: variable('4', 'pending_import', { carry: 'carry' }),
      T: variable(MASK, 'already_read', { carry: 'secret' }),
      L: variable('/x.so', 'pending_import', { carry: 'loads_code' }),
      E: variable('9', 'effective') // read on every use: nothing to carry
    });
    const items = restartItems(env);
    expect(items.map(i => [i.name, i.origin, i.value, i.needed, i.refused, i.profiled])).toEqual([
      ['A', 'profile', '1', false, false, null],
      ['B', 'session', '5', true, false, '2'],
      ['C', 'session', '3', true, false, null],
      ['D', 'session', '4', false, false, null],
      ['T', 'session', MASK, false, true, null],
      ['L', 'session', '/x.so', false, true, null]
    ]);
    expect(restartCount(items)).toBe(2);
    expect(carriedValues(items)).toEqual({ B: '5', C: '3', D: '4' }); // never a secret, never code-loading
    const body = restartBody({ notebook: 'train.ipynb', items, saved: true }, trans, 'en');
    const boxes = [...body.querySelectorAll<HTMLInputElement>('input[data-keep]')];
    expect(boxes.map(box => [box.dataset.keep, box.checked, box.getAttribute('aria-label')])).toEqual([
      ['B', true, 'Keep B in the notebook'], ['C', true, 'Keep C in the notebook'], ['D', true, 'Keep D in the notebook']
    ]);
    boxes[1].checked = false;
    expect(keptNames(body)).toEqual(['B', 'D']);
    expect(body.querySelector('tr[data-name="T"] td:nth-child(4)')!.textContent).toContain('a secret never leaves');
    expect(body.querySelector('tr[data-name="L"] td:nth-child(4)')!.textContent).toContain('can load code');
    expect(body.querySelector('.mgenv-restart-review-carried')!.textContent).toContain('carried over this once');
  });
});

/** A notebook with a kernel and a profile in its metadata, as the follower and the commands use one. */
function notebook(profile: Record<string, string>) {
  const kernel = new FakeKernel();
  const calls: string[] = [];
  let metadata: any = { profile };
  const panel: any = {
    disposed: new Signal<any, void>({}),
    isDisposed: false,
    sessionContext: {
      kernelChanged: new Signal<any, any>({}),
      statusChanged: new Signal<any, any>({}),
      session: { kernel },
      kernelDisplayName: 'Python 3',
      restartKernel: async () => {
        calls.push('restart');
        panel.sessionContext.statusChanged.emit('restarting');
      }
    },
    context: {
      localPath: 'train.ipynb',
      isReady: true,
      ready: Promise.resolve(),
      save: async () => {
        calls.push('save');
      },
      model: {
        dirty: true,
        metadataChanged: new Signal<any, any>({}),
        getMetadata: () => metadata,
        setMetadata: (_: string, value: any) => {
          metadata = value;
          calls.push(`profile ${JSON.stringify(value.profile)}`);
        },
        deleteMetadata: () => undefined
      }
    }
  };
  return { panel, calls, kernel };
}

describe('the "Restart and apply" command', () => {
  it('counts down once the profile is in effect, asks first, and saves the notebook when the user agrees', async () => {
    const { panel: notebookPanel, calls } = notebook({ A: '1' });
    const source = { currentWidget: notebookPanel, currentChanged: new Signal<any, any>({}) };
    const sidebar = new SidebarPanel(source, { trans, language: 'en' });
    await flush();
    const commands = new CommandRegistry();
    const asked: RestartQuestionArgs[] = [];
    let answer = { restart: false, save: false, keep: [] as string[] };
    addSidebarCommands({
      commands, shell: { activateById: () => undefined }, panel: sidebar, trans,
      askToRestart: async args => {
        asked.push(args);
        return answer;
      }
    });
    const label = () => commands.label(COMMAND_IDS.restart);
    sidebar.model.receive({
      v: 1, type: 'state', reply_to: null, history: [], history_total: 0, last_report: null, kernel: KERNEL,
      variables: { A: variable('2', 'pending_import') }
    });
    expect(label()).toBe('Restart and apply (1)');
    expect(commands.isEnabled(COMMAND_IDS.restart)).toBe(true);

    await commands.execute(COMMAND_IDS.restart); // the user cancels: nothing happens
    expect(calls).toEqual([]);
    expect(asked[0]).toMatchObject({ notebook: 'train.ipynb', saved: false });
    expect(asked[0].items.map(i => [i.name, i.value, i.now])).toEqual([['A', '1', '2']]);

    answer = { restart: true, save: true, keep: [] };
    await commands.execute(COMMAND_IDS.restart);
    expect(calls).toEqual(['save', 'restart']); // saved first: the profile lives in the notebook

    // The new kernel reports the profile's value: nothing left that needs a restart.
    sidebar.model.receive({ v: 1, type: 'changed', changes: [], variables: { A: variable('1', 'pending_import') } });
    expect(label()).toBe('Restart and apply');
    sidebar.dispose();
  });

  it('keeps the ticked carried values in the profile, then hands every carried value to the restarted kernel', async () => {
    const { panel: notebookPanel, calls, kernel } = notebook({ A: '1' });
    const source = { currentWidget: notebookPanel, currentChanged: new Signal<any, any>({}) };
    const sidebar = new SidebarPanel(source, { trans, language: 'en' });
    await flush();
    const commands = new CommandRegistry();
    addSidebarCommands({
      commands, shell: { activateById: () => undefined }, panel: sidebar, trans,
      askToRestart: async () => ({ restart: true, save: true, keep: ['TORCH_SHOW_CPP_STACKTRACES'] })
    });
    sidebar.model.receive({
      v: 1, type: 'state', reply_to: null, history: [], history_total: 0, last_report: null, kernel: KERNEL,
      variables: {
        A: variable('1', 'effective'),
        TORCH_SHOW_CPP_STACKTRACES: variable('1', 'already_read', { carry: 'carry' }),
        PYTORCH_CUDA_ALLOC_CONF: variable('expandable_segments:True', 'pending_first_use', { carry: 'carry' })
      }
    });
    expect(commands.label(COMMAND_IDS.restart)).toBe('Restart and apply (1)');
    const before = kernel.comms.length;
    await commands.execute(COMMAND_IDS.restart);
    await flush();
    // Kept in the profile before the notebook is saved, then the restart.
    expect(calls).toEqual(['profile {"A":"1","TORCH_SHOW_CPP_STACKTRACES":"1"}', 'save', 'restart']);
    const fresh = kernel.comms.slice(before).pop()!;
    expect(fresh.bodies().map(body => body.type)).toEqual(['hello', 'profile', 'set']);
    expect(fresh.bodies()[2]).toEqual({
      type: 'set', source: 'restart', force: false, env_only: false,
      assignments: { TORCH_SHOW_CPP_STACKTRACES: '1', PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' }
    });
    sidebar.dispose();
  });
});
