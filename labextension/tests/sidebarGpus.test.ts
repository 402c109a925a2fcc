import { nullTranslator } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { GPUS_VERSION, GpuKernelInfo, GpuServerView, OomKernelHolder } from '../src/protocol';
import { deviceLayout, heldBy, idleKernels } from '../src/sidebar/gpus/layout';
import { formatDuration } from '../src/shared/kernelUse';
import { GpuActions, GpuView } from '../src/sidebar/gpus/view';
import { kernelHolderItem } from '../src/oom/holder';
import { GpuResponse, ServerGpus } from '../src/sidebar/gpus/server';
import { DOMAIN } from '../src/sidebar/text';
import { chineseTranslation } from './translation';

const trans = nullTranslator.load(DOMAIN);
const GiB = 1024 ** 3;

function kernel(
  id: string,
  notebooks: string[],
  state = 'idle',
  idle: number | null = 3600,
  since: 'cell' | 'start' | 'watch' | null = 'cell',
  running: number | null = null
): GpuKernelInfo {
  return {
    id, name: 'python3', notebooks, execution_state: state, last_activity: null, idle_seconds: idle,
    idle_since: since, running_cell: running !== null, running_seconds: running, pid_known: true, cull_at: null
  };
}

/** As the server extension answers for three notebooks, a stranger and a kernel holding nothing. */
function serverView(): GpuServerView {
  return {
    v: GPUS_VERSION,
    state: 'ok',
    detail: null,
    simulated: true,
    simulation: 'three-notebooks',
    namespace: 'same',
    // k-mid: the server calls it busy (a chart's comm messages), but no cell has run for 10 min.
    kernels: [kernel('k-small', ['small.ipynb']), kernel('k-big', ['big.ipynb'], 'busy', null, null, 150),
      kernel('k-mid', ['sub/medium.ipynb'], 'busy', 600), kernel('k-none', [], 'idle', 90, 'start')],
    devices: [{
      index: 0, label: 'gpu0 (simulated)', name: 'NVIDIA A100-SXM4-40GB', total: 40 * GiB, used: 30 * GiB,
      shares: [
        { kernel_id: 'k-big', used: 20 * GiB, figure: 'nvml' },
        { kernel_id: 'k-mid', used: 4 * GiB, figure: 'nvml' },
        { kernel_id: 'k-small', used: GiB, figure: 'nvml' }
      ],
      others: [{ pid: 4242, user: 'alice', name: 'python', used: 5 * GiB - 512 * 1024 ** 2 }],
      unlisted: 512 * 1024 ** 2,
      problem: null
    }],
    read_at: 1700000000,
    culling: null,
    host: { hostname: 'gpu-node-1', id: null }
  };
}

function response(status: number, body: unknown): GpuResponse {
  return { status, ok: status >= 200 && status < 300, json: async () => body };
}

describe('the layout of a device', () => {
  it('orders kernels and other processes together by memory, the unlisted memory and the free memory last', () => {
    const layout = deviceLayout(serverView(), serverView().devices[0], trans);
    expect(layout.rows.map(row => row.key)).toEqual(['k:k-big', 'o:4242', 'k:k-mid', 'k:k-small', 'unlisted']);
    expect(layout.segments.map(segment => segment.key)).toEqual(['k:k-big', 'o:4242', 'k:k-mid', 'k:k-small', 'unlisted', 'free']);
    expect(layout.segments[0].fraction).toBeCloseTo(0.5);
    expect(layout.segments[layout.segments.length - 1].fraction).toBeCloseTo(0.25);
    expect(layout.segments.reduce((sum, s) => sum + s.fraction, 0)).toBeCloseTo(1);
    expect(layout.segments[0].title).toBe('big.ipynb: 20 GiB');
  });

  it('fills the bar and stops when the figures add up to more than the device', () => {
    const view = serverView();
    view.devices[0].used = 40 * GiB;
    view.devices[0].shares = [
      { kernel_id: 'k-big', used: 39.5 * GiB, figure: 'nvml' },
      { kernel_id: 'k-mid', used: 39 * GiB, figure: 'nvml' },
      { kernel_id: 'k-small', used: 38.5 * GiB, figure: 'nvml' }
    ];
    view.devices[0].others = [];
    view.devices[0].unlisted = 0;
    const layout = deviceLayout(view, view.devices[0], trans);
    expect(layout.segments.map(s => [s.key, +s.fraction.toFixed(4)])).toEqual([
      ['k:k-big', 0.9875], ['k:k-mid', 0.0125], ['k:k-small', 0], ['free', 0]
    ]);
    expect(layout.segments[1].title).toBe('sub/medium.ipynb: 39 GiB'); // each keeps its own figure
    expect(layout.rows.map(row => row.used)).toEqual([39.5 * GiB, 39 * GiB, 38.5 * GiB]);
  });

  it('lists the kernels holding nothing apart, and says what a kernel holds and where', () => {
    expect(idleKernels(serverView()).map(k => k.id)).toEqual(['k-none']);
    expect(heldBy(serverView(), 'k-big', trans)).toEqual({ memory: '20 GiB', devices: 'gpu0 (simulated)' });
    expect(formatDuration(59, trans)).toBe('59 s');
    expect(formatDuration(7200, trans)).toBe('2 h');
  });
});

describe('ServerGpus', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('asks once a second while active and never while inactive', async () => {
    const fetch = jest.fn(async () => response(200, serverView()));
    const model = new ServerGpus(fetch);
    await jest.advanceTimersByTimeAsync(5000);
    expect(fetch).not.toHaveBeenCalled();
    model.setActive(true);
    await jest.advanceTimersByTimeAsync(3050);
    expect(fetch).toHaveBeenCalledTimes(4);
    expect(model.connection).toBe('ready');
    model.setActive(false);
    await jest.advanceTimersByTimeAsync(5000);
    expect(fetch).toHaveBeenCalledTimes(4);
    model.dispose();
  });

  it('says when the extension is missing, forbidden, or answers another version', async () => {
    for (const [status, body, connection] of [
      [404, {}, 'absent'], [403, {}, 'forbidden'], [200, { ...serverView(), v: 99 }, 'unreachable'], [500, {}, 'unreachable']
    ] as const) {
      const model = new ServerGpus(async () => response(status, body));
      await model.refresh();
      expect(model.connection).toBe(connection);
      expect(model.view).toBeNull();
    }
  });
});

describe('GpuView', () => {
  function setUp(answer: () => GpuServerView = serverView, confirmed = true) {
    const calls: string[] = [];
    const actions: GpuActions = {
      open: path => void calls.push(`open ${path}`),
      confirm: async (action, notebook, memory, devices) => {
        calls.push(`confirm ${action} ${notebook} ${memory} ${devices}`);
        return confirmed;
      },
      shutdown: async id => void calls.push(`shutdown ${id}`),
      interrupt: async id => void calls.push(`interrupt ${id}`)
    };
    const model = new ServerGpus(async () => response(200, answer()));
    const view = new GpuView(model, trans, actions);
    Widget.attach(view, document.body);
    return { view, model, calls };
  }

  it('shows one row per holder, largest first, and a bar of the same order', async () => {
    const { view, model } = setUp();
    await model.refresh();
    const rows = [...view.node.querySelectorAll<HTMLElement>('.mgenv-gpu-device .mgenv-gpu-row')];
    expect(rows.map(row => row.dataset.key)).toEqual(['k:k-big', 'o:4242', 'k:k-mid', 'k:k-small', 'unlisted']);
    expect(rows[0].querySelector('.mgenv-gpu-open')!.textContent).toBe('big.ipynb');
    expect(rows[0].querySelector('.mgenv-gpu-size')!.textContent).toBe('20 GiB');
    expect(rows[0].querySelector('.mgenv-gpu-state')!.textContent).toBe('running a cell (2 min) · python3');
    expect(rows[2].querySelector('.mgenv-gpu-state')!.textContent).toBe('idle 10 min since its last cell · python3');
    expect(rows[3].querySelector('.mgenv-gpu-state')!.textContent).toBe('idle 1 h since its last cell · python3');
    expect(rows[3].querySelector<HTMLElement>('.mgenv-gpu-state')!.title).toContain('end of the last cell a user ran');
    // Other processes: pid, name and user, and no action at all.
    expect(rows[1].querySelector('.mgenv-gpu-meta')!.textContent).toBe('pid 4242 · python · alice');
    expect(rows[1].querySelectorAll('button')).toHaveLength(0);
    expect(rows[4].querySelectorAll('button')).toHaveLength(0);
    const segments = [...view.node.querySelectorAll<HTMLElement>('.mgenv-gpu-bar .mgenv-gpu-seg')];
    expect(segments.map(s => s.dataset.key)).toEqual(['k:k-big', 'o:4242', 'k:k-mid', 'k:k-small', 'unlisted', 'free']);
    expect(segments[0].style.width).toBe('50.000%');
    expect(view.node.querySelector('.mgenv-gpu-status')!.textContent).toBe('simulated GPU (three-notebooks)');
    expect(view.node.querySelector('.mgenv-gpu-idle .mgenv-gpu-open')!.textContent).toBe('kernel python3 k-none (no notebook)');
    expect(view.node.querySelector('.mgenv-gpu-idle .mgenv-gpu-state')!.textContent).toBe(
      'idle 1 min, no cell run yet · python3'
    );
    view.dispose();
  });

  it('keeps each row the same element while its figures change, and moves it when the order changes', async () => {
    let big = 20 * GiB;
    const { view, model } = setUp(() => {
      const v = serverView();
      v.devices[0].shares[0].used = big;
      v.devices[0].shares.sort((a, b) => (b.used ?? 0) - (a.used ?? 0));
      return v;
    });
    await model.refresh();
    const before = view.node.querySelector('.mgenv-gpu-row[data-key="k:k-big"]');
    big = 21 * GiB;
    await model.refresh();
    expect(view.node.querySelector('.mgenv-gpu-row[data-key="k:k-big"]')).toBe(before);
    expect(before!.querySelector('.mgenv-gpu-size')!.textContent).toBe('21 GiB');
    big = 2 * GiB;
    await model.refresh();
    const keys = [...view.node.querySelectorAll<HTMLElement>('.mgenv-gpu-device .mgenv-gpu-row')].map(r => r.dataset.key);
    expect(keys).toEqual(['o:4242', 'k:k-mid', 'k:k-big', 'k:k-small', 'unlisted']);
    view.dispose();
  });

  it('asks before a shutdown, naming the notebook and its memory, and acts only when the user agrees', async () => {
    const agreed = setUp();
    await agreed.model.refresh();
    agreed.view.node.querySelector<HTMLButtonElement>('.mgenv-gpu-row[data-key="k:k-big"] .mgenv-gpu-shutdown')!.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(agreed.calls).toEqual(['confirm shutdown big.ipynb 20 GiB gpu0 (simulated)', 'shutdown k-big']);
    agreed.view.node.querySelector<HTMLButtonElement>('.mgenv-gpu-row[data-key="k:k-mid"] .mgenv-gpu-open')!.click();
    expect(agreed.calls[agreed.calls.length - 1]).toBe('open sub/medium.ipynb');
    agreed.view.dispose();

    const refused = setUp(serverView, false);
    await refused.model.refresh();
    refused.view.node.querySelector<HTMLButtonElement>('.mgenv-gpu-row[data-key="k:k-small"] .mgenv-gpu-interrupt')!.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(refused.calls).toEqual(['confirm interrupt small.ipynb 1 GiB gpu0 (simulated)']);
    refused.view.dispose();
  });

  it('says what an interrupt or a shutdown did: an interrupt changes nothing in the list', async () => {
    const { view, model, calls } = setUp();
    await model.refresh();
    const outcome = () => view.node.querySelector('.mgenv-gpu-outcome')!.textContent;
    expect(outcome()).toBe('');
    view.node.querySelector<HTMLButtonElement>('.mgenv-gpu-row[data-key="k:k-small"] .mgenv-gpu-interrupt')!.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(calls).toContain('interrupt k-small');
    expect(outcome()).toBe(
      'Interrupted the kernel of small.ipynb: the cell it was running stops; its variables and memory stay.'
    );
    expect(view.node.querySelector('.mgenv-gpu-outcome')!.getAttribute('role')).toBe('status'); // read out too
    view.node.querySelector<HTMLButtonElement>('.mgenv-gpu-row[data-key="k:k-big"] .mgenv-gpu-shutdown')!.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(outcome()).toBe('Shut down the kernel of big.ipynb.');
    view.dispose();
  });

  it('says when the server has no extension, and inside a container that nothing can be attributed', async () => {
    const absent = new GpuView(new ServerGpus(async () => response(404, {})), trans, {} as GpuActions);
    await absent.model.refresh();
    expect(absent.node.querySelector('.mgenv-gpu-status')!.textContent).toContain('jupyter server extension enable mgenv_jupyter.server');
    const foreign = setUp(() => ({ ...serverView(), namespace: 'foreign' }));
    await foreign.model.refresh();
    expect(foreign.view.node.querySelector('.mgenv-gpu-status')!.textContent).toContain('its own pid namespace');
    foreign.view.dispose();
  });

  it('speaks Chinese with JupyterLab’s Chinese catalog', async () => {
    const zh = await chineseTranslation();
    const view = new GpuView(new ServerGpus(async () => response(200, serverView())), zh, {} as GpuActions);
    await view.model.refresh();
    expect(view.node.querySelector('.mgenv-gpu-interrupt')!.textContent).toBe('中断');
    expect(view.node.querySelector('.mgenv-gpu-shutdown')!.textContent).toBe('关闭');
    expect(view.node.querySelector('.mgenv-gpu-device-usage')!.textContent).toBe('已用 30 GiB / 共 40 GiB');
  });
});

describe('the out-of-memory report’s offer to shut the holding kernel down', () => {
  it('offers nothing for a kernel the server no longer runs (shut down since, the notebook reopened)', async () => {
    const gone: OomKernelHolder = {
      kernel_id: 'k-gone', notebooks: ['old.ipynb'], bytes: GiB, gpu: 0, idle_seconds: null, idle_since: null,
      running_cell: false
    };
    const item = kernelHolderItem(gone, trans, async () => ({ state: 'done', message: '' }), async () => false);
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(item.querySelector<HTMLButtonElement>('.mgenv-oom-holder-shutdown')!.hidden).toBe(true);
    expect(item.querySelector('.mgenv-oom-outcome')!.textContent).toBe('That kernel is no longer running on this server.');
    const alive = kernelHolderItem(gone, trans, async () => ({ state: 'done', message: '' }), async () => true);
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(alive.querySelector<HTMLButtonElement>('.mgenv-oom-holder-shutdown')!.hidden).toBe(false);
  });

  const holder: OomKernelHolder = {
    kernel_id: 'k-big', notebooks: ['big.ipynb'], bytes: 30 * GiB, gpu: 0, idle_seconds: 7200, idle_since: 'cell',
    running_cell: false
  };

  it('names the notebook, its memory and idle time, and says what the click came to', async () => {
    const asked: string[] = [];
    const item = kernelHolderItem(holder, trans, async h => {
      asked.push(h.kernel_id);
      return { state: 'done', message: 'The kernel of big.ipynb is shut down: its memory is free. Run the cell again.' };
    });
    expect(item.querySelector('.mgenv-oom-holder-text')!.textContent).toBe(
      'Shut down the kernel of big.ipynb on this server: it holds 30 GiB of this GPU (idle 2 h since its last cell)'
    );
    const button = item.querySelector<HTMLButtonElement>('.mgenv-oom-holder-shutdown')!;
    button.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(asked).toEqual(['k-big']);
    expect(item.querySelector<HTMLElement>('.mgenv-oom-outcome')!.dataset.state).toBe('done');
    expect(button.disabled).toBe(true);
  });

  it('can be clicked again after a no, and says so when the server fails', async () => {
    const answers = [{ state: 'declined' as const, message: '' }];
    const item = kernelHolderItem(holder, trans, async () => {
      const answer = answers.shift();
      if (!answer) {
        throw new Error('HTTP 500');
      }
      return answer;
    });
    const button = item.querySelector<HTMLButtonElement>('.mgenv-oom-holder-shutdown')!;
    button.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(button.disabled).toBe(false);
    button.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(item.querySelector('.mgenv-oom-outcome')!.textContent).toBe('The server could not be asked: HTTP 500');
  });
});

describe('inside a container', () => {
  it('marks a kernel’s own report as such and an unknown figure as unknown, never 0', async () => {
    const view = serverView();
    view.namespace = 'foreign';
    view.devices[0].shares = [
      { kernel_id: 'k-big', used: 3 * GiB, figure: 'kernel_report' },
      { kernel_id: 'k-mid', used: null, figure: 'unknown' }
    ];
    const section = new GpuView(new ServerGpus(async () => response(200, view)), trans, {} as GpuActions);
    await section.model.refresh();
    const size = (key: string) => section.node.querySelector(`.mgenv-gpu-row[data-key="${key}"] .mgenv-gpu-size`)!;
    expect(size('k:k-big').textContent).toBe('3 GiB (own report)');
    expect((size('k:k-big') as HTMLElement).title).toContain('framework’s allocator reserved');
    expect(size('k:k-mid').textContent).toBe('unknown');
    expect(section.node.querySelector('.mgenv-gpu-status')!.textContent).toContain('marked “own report”');
  });
});

describe('the bar inside a container', () => {
  it('keeps to NVML’s figures: a kernel’s own report is not drawn beside the unattributed processes', () => {
    const view = serverView();
    view.namespace = 'foreign';
    view.devices[0].shares = [{ kernel_id: 'k-big', used: 3 * GiB, figure: 'kernel_report' }];
    view.devices[0].others = [{ pid: 4206097, user: null, name: null, used: 5 * GiB }];
    const layout = deviceLayout(view, view.devices[0], trans);
    expect(layout.rows.map(r => r.key)).toEqual(['o:4206097', 'k:k-big', 'unlisted']);
    expect(layout.segments.map(s => s.key)).toEqual(['o:4206097', 'unlisted', 'free']);
  });
});
