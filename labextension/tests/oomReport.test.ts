import type { NotebookPanel } from '@jupyterlab/notebook';
import { nullTranslator } from '@jupyterlab/translation';

import { RemedyChoice } from '../src/sidebar/client';
import { OomReportView, oomRendererFactory } from '../src/oom/report';
import { reportWatch } from '../src/sidebar/reportWatch';
import { EnvModel } from '../src/sidebar/model';
import { DOMAIN } from '../src/sidebar/text';
import { FreedReply, OOM_MIME, OOM_VERSION, OomReportData, STATUS_LABELS, StatusCode } from '../src/protocol';
import { flush } from './fakes';

const trans = nullTranslator.load(DOMAIN);

const REPORT: OomReportData = {
  v: OOM_VERSION,
  id: 'r1',
  language: 'en',
  headline: 'Out of memory on gpu0 (torch.OutOfMemoryError): 2 GiB asked for',
  sections: [['Verdict: fragmentation — <b>16 GiB</b> reserved'], ['Numbers:']],
  // No chart here: uPlot needs a canvas, which jsdom lacks (oomTimeline.test.ts draws one through a stand-in).
  timeline: { title: 'Timeline of gpu0 process', chart: null, lines: ['cell [3] went from 2 GiB to 38 GiB'] },
  remedies: [
    {
      id: 'r1-0', cause: 'fragmentation', assignments: [['PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True']],
      envset: '%envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True', restart: true, when: 'needs a restart',
      why: 'growable segments', caveat: null, try_cell: null
    },
    {
      id: 'r1-1', cause: 'cap', assignments: [['A', '1'], ['B', '2']], envset: '%envset A=1 B=2', restart: false,
      when: 'applies live', why: 'two at once', caveat: 'a caveat', try_cell: null
    }
  ],
  remedies_title: 'Remedies, best first',
  no_remedy: null,
  footer: 'Report made in 3 ms.'
};

function setUp(answer: (choice: RemedyChoice) => any) {
  const calls: RemedyChoice[] = [];
  const restarts: number[] = [];
  const panel = {} as any;
  const view = new OomReportView({
    trans,
    notebook: panel,
    apply: async (notebook, choice) => {
      expect(notebook).toBe(panel);
      calls.push(choice);
      return answer(choice);
    },
    restart: async () => restarts.push(1)
  });
  return { view, calls, restarts };
}

const model = (data: unknown) => ({ data: { [OOM_MIME]: data, 'text/plain': 'plain report' } }) as any;
/** The kernel's answer to a click: the change, and the kernel's verdict on it (status and restart), as it sends them. */
const result = (outcome: string, restart = false) => ({
  v: 1, type: 'result', reply_to: 'x',
  changes: [{ seq: 1, time: 1, name: 'A', old: null, new: '1', source: 'oom_report', outcome, message: '',
    effective: null, secret: false }],
  status: outcome, restart
});

describe('OomReportView', () => {
  it('shows the report as text, never as markup, with one button per remedy', async () => {
    const { view } = setUp(() => null);
    await view.renderModel(model(REPORT));
    const node = view.node;
    expect(node.querySelector('.mgenv-oom-headline')!.textContent).toBe(REPORT.headline);
    expect(node.querySelector('b')?.textContent).not.toBe('16 GiB'); // the section's "<b>" stays text
    expect(node.textContent).toContain('<b>16 GiB</b>');
    expect([...node.querySelectorAll('.mgenv-oom-apply')].map(b => b.textContent)).toEqual(['Apply', 'Apply']);
    expect(node.querySelector('.mgenv-oom-caveat')!.textContent).toBe('a caveat');
    const timeline = node.querySelector('.mgenv-oom-timeline')!;
    expect(timeline.textContent).toBe('Timeline of gpu0 processcell [3] went from 2 GiB to 38 GiB');
    expect(timeline.querySelector('.mgenv-oom-chart')).toBeNull(); // nothing recorded: no empty chart
  });

  it('names the kernel’s report and remedy ids (the variables only for the profile), then offers Restart and apply when it needs a restart', async () => {
    const { view, calls, restarts } = setUp(() => result('pending_first_use'));
    await view.renderModel(model(REPORT));
    const [first] = view.node.querySelectorAll<HTMLButtonElement>('.mgenv-oom-apply');
    first.click();
    expect(first.disabled).toBe(true);
    await flush();
    expect(calls).toEqual([
      { reportId: 'r1', remedyId: 'r1-0', assignments: { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' } }
    ]);
    const outcome = view.node.querySelector<HTMLElement>('.mgenv-oom-remedy .mgenv-oom-outcome')!;
    expect(outcome.dataset.state).toBe('restart');
    expect(first.textContent).toBe('Applied');
    outcome.querySelector<HTMLButtonElement>('.mgenv-oom-restart')!.click();
    await flush();
    expect(restarts).toEqual([1]);
  });

  it('says what the kernel says of the change (live, at first use), or offers a restart when it was already read', async () => {
    for (const [status, state] of [['applied_live', 'applied'], ['pending_first_use', 'applied'],
                                   ['already_read', 'restart']]) {
      const { view } = setUp(() => result(status, state === 'restart'));
      await view.renderModel(model(REPORT));
      view.node.querySelectorAll<HTMLButtonElement>('.mgenv-oom-apply')[1].click();
      await flush();
      const outcome = view.node.querySelectorAll<HTMLElement>('.mgenv-oom-outcome')[1];
      expect(outcome.dataset.state).toBe(state);
      expect(!!outcome.querySelector('.mgenv-oom-restart')).toBe(state === 'restart');
      expect(outcome.querySelector('.mgenv-oom-said')!.textContent).toBe(
        state === 'restart' ? 'Set and kept in the notebook profile; it takes effect after a restart.' : trans.__('Set in this kernel and kept in the notebook profile: %1.', STATUS_LABELS[status as StatusCode].en));
    }
  });

  it('shows the kernel’s refusal, or that no kernel is there, and lets the user try again', async () => {
    for (const answer of [{ v: 1, type: 'error', reply_to: 'x', message: 'not allowed' }, null]) {
      const { view } = setUp(() => answer);
      await view.renderModel(model(REPORT));
      const button = view.node.querySelector<HTMLButtonElement>('.mgenv-oom-apply')!;
      button.click();
      await flush();
      const outcome = view.node.querySelector<HTMLElement>('.mgenv-oom-outcome')!;
      expect(outcome.dataset.state).toBe('error');
      expect(outcome.textContent).toBe(answer ? 'The kernel refused it: not allowed' : 'This report’s notebook has no running kernel to set it in.');
      expect(button.disabled).toBe(false);
    }
  });

  it('falls back to the plain text for a report of another version', async () => {
    const { view } = setUp(() => null);
    await view.renderModel(model({ ...REPORT, v: OOM_VERSION + 1 }));
    expect(view.node.textContent).toBe('plain report');
    expect(view.node.querySelector('button')).toBeNull();
  });

  it('is a renderer JupyterLab prefers to the HTML fallback, and only for trusted output', () => {
    const factory = oomRendererFactory({ trans, notebook: null, apply: async () => null, restart: async () => 0 });
    expect(factory.mimeTypes).toEqual([OOM_MIME]);
    expect(factory.safe).toBe(false);
    expect(factory.defaultRank).toBeLessThan(50);
  });
});

describe('the report’s "Record allocation sites" button', () => {
  const withOffer = { ...REPORT, memtrace_button: 'Record allocation sites' };

  function recording(answer: any) {
    const asked: unknown[] = [];
    const panel = {} as any;
    const view = new OomReportView({
      trans,
      notebook: panel,
      apply: async () => null,
      restart: async () => undefined,
      startMemtrace: async notebook => {
        asked.push(notebook);
        return answer;
      }
    });
    return { view, asked, panel };
  }

  it('is shown only where the kernel offers it, and one click asks that notebook’s kernel', async () => {
    const { view, asked, panel } = recording({ v: 1, type: 'result', reply_to: 'x', changes: [], status: null, restart: false });
    await view.renderModel(model(REPORT));
    expect(view.node.querySelector('.mgenv-oom-memtrace')).toBeNull();
    await view.renderModel(model(withOffer));
    const button = view.node.querySelector<HTMLButtonElement>('.mgenv-oom-memtrace button')!;
    expect(button.textContent).toBe('Record allocation sites');
    button.click();
    await flush();
    expect(asked).toEqual([panel]);
    expect(button.disabled).toBe(true);
    expect(view.node.querySelector('.mgenv-oom-memtrace-said')!.textContent).toBe(
      'Recording from the next cell on: run the cell again to see its lines.'
    );
  });

  it('says the kernel’s refusal, and can be clicked again', async () => {
    const { view } = recording({ v: 1, type: 'error', reply_to: 'x', message: 'this kernel has no IPython shell' });
    await view.renderModel(model(withOffer));
    const button = view.node.querySelector<HTMLButtonElement>('.mgenv-oom-memtrace button')!;
    button.click();
    await flush();
    expect(button.disabled).toBe(false);
    expect(view.node.querySelector('.mgenv-oom-memtrace-said')!.textContent).toBe('this kernel has no IPython shell');
  });
});

describe('the report under a cell after what was done about it (issue 29, point 6)', () => {
  const OFFER = { title: 'Free what the failed cell holds', why: 'the frames hold 256 MiB', magic: '%memfree',
    button: 'Free memory', note: 'never touches your variables' };
  const FREED = {
    time: 1700000000, summary: 'Given back at 14:03:05: host RSS (this kernel) 1.2 GiB → 960 MiB',
    figures: [{ label: 'host RSS (this kernel)', before: 1288490188, after: 1006632960, change: 'gave back 268 MiB' }]
  };

  function watched(latest: OomReportData | null, held: Record<string, string>, answer: FreedReply | null = null) {
    const callbacks: (() => void)[] = [];
    const state = { latest, held, staleIds: [] as string[] };
    const watch = {
      latest: (id: string) => (state.latest?.id === id ? state.latest : null),
      holds: (name: string, value: string) => state.held[name] === value,
      stale: (_notebook: unknown, id: string) => state.staleIds.includes(id),
      changed: (callback: () => void) => {
        callbacks.push(callback);
        return () => callbacks.splice(callbacks.indexOf(callback), 1);
      }
    };
    const frees: string[] = [];
    const view = new OomReportView({
      trans, notebook: ({}) as any, apply: async () => null, restart: async () => undefined,
      free: async (_panel, reportId) => {
        frees.push(reportId);
        return answer;
      },
      watch
    });
    const tell = (next: Partial<typeof state>) => {
      Object.assign(state, next);
      callbacks.forEach(callback => callback());
    };
    return { view, frees, tell, callbacks };
  }

  it('offers to free until the kernel says it was given back, then says what came back and what was left', async () => {
    const { view, frees, tell } = watched(null, {});
    await view.renderModel(model({ ...REPORT, free: OFFER }));
    const button = view.node.querySelector<HTMLButtonElement>('.mgenv-oom-free-button')!;
    expect(button.textContent).toBe('Free memory');
    tell({ latest: { ...REPORT, free: null, freed: FREED } }); // %memfree in another cell
    expect(view.node.querySelector('.mgenv-oom-free-button')).toBeNull();
    expect(view.node.querySelector('.mgenv-oom-freed-summary')!.textContent).toBe(FREED.summary);
    expect(view.node.querySelector('.mgenv-oom-freed .mgenv-free-figures')!.textContent).toContain('960 MiB');
    expect(frees).toEqual([]);
  });

  it('shows a report given back before it was drawn (a notebook reopened) without the offer', async () => {
    const { view } = watched({ ...REPORT, free: null, freed: FREED }, {});
    await view.renderModel(model({ ...REPORT, free: OFFER }));
    expect(view.node.querySelector('.mgenv-oom-free-button')).toBeNull();
    expect(view.node.querySelector('.mgenv-oom-freed-summary')!.textContent).toBe(FREED.summary);
  });

  it('names its own report when its button asks the kernel to free', async () => {
    const { view, frees } = watched(null, {});
    await view.renderModel(model({ ...REPORT, free: OFFER }));
    view.node.querySelector<HTMLButtonElement>('.mgenv-oom-free-button')!.click();
    await flush();
    expect(frees).toEqual(['r1']);
  });

  it('reads Applied for a remedy the kernel holds, and only for its own report', async () => {
    const { view, tell } = watched(null, {});
    await view.renderModel(model(REPORT));
    const first = view.node.querySelector<HTMLButtonElement>('.mgenv-oom-remedy:first-child .mgenv-oom-apply')!;
    tell({ latest: { ...REPORT, id: 'another report' }, held: { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' } });
    expect([first.textContent, first.disabled]).toEqual(['Apply', false]); // another kernel's variables
    tell({ latest: REPORT });
    expect([first.textContent, first.disabled]).toEqual(['Applied', true]); // set from the sidebar's card
  });

  it('offers nothing once its kernel says its last report is another, and says why', async () => {
    const { view, frees, tell } = watched(null, {});
    await view.renderModel(model({ ...REPORT, free: OFFER }));
    expect(view.node.querySelector('.mgenv-oom-free-button')).not.toBeNull();
    tell({ staleIds: ['r1'] }); // the kernel restarted (its state: no report), or a later cell failed
    expect(view.node.querySelector('.mgenv-oom-free-button')).toBeNull();
    const said = view.node.querySelector<HTMLElement>('.mgenv-oom-free-stale')!;
    expect(said.getAttribute('role')).toBe('status');
    expect(said.textContent).toBe(
      'Nothing to free from this report: its kernel has restarted, or a later cell ran out of memory since. ' +
        'Run %memfree in a cell to give back what the kernel holds now.'
    );
    expect(frees).toEqual([]);
    await view.renderModel(model({ ...REPORT, free: OFFER })); // drawn again (a notebook reopened): the same
    expect(view.node.querySelector('.mgenv-oom-free-button')).toBeNull();
  });

  it('keeps what a report said it gave back, and the answer to its own click, when it goes stale', async () => {
    const given = watched({ ...REPORT, free: null, freed: FREED }, {});
    await given.view.renderModel(model({ ...REPORT, free: OFFER }));
    given.tell({ staleIds: ['r1'] });
    expect(given.view.node.querySelector('.mgenv-oom-freed-summary')!.textContent).toBe(FREED.summary);
    expect(given.view.node.querySelector('.mgenv-oom-free-stale')).toBeNull();
    const result = { v: 1, language: 'en', headline: 'Given back at 14:03:05', figures: [], sections: [], footer: '',
      time: 1700000000, simulated: false };
    const clicked = watched(null, {}, { v: 1, type: 'freed', reply_to: 'x', result });
    await clicked.view.renderModel(model({ ...REPORT, free: OFFER }));
    clicked.view.node.querySelector<HTMLButtonElement>('.mgenv-oom-free-button')!.click();
    await flush();
    clicked.tell({ staleIds: ['r1'] }); // the restart that follows: what this click gave back is still said
    expect(clicked.view.node.querySelector('.mgenv-oom-free-stale')).toBeNull();
    expect(clicked.view.node.querySelector('.mgenv-free-headline')!.textContent).toBe('Given back at 14:03:05');
  });

  it('stops listening when it is disposed or drawn again', async () => {
    const { view, callbacks } = watched(null, {});
    await view.renderModel(model(REPORT));
    await view.renderModel(model(REPORT));
    expect(callbacks).toHaveLength(1);
    view.dispose();
    expect(callbacks).toHaveLength(0);
  });
});

describe('whether a report is its kernel’s last (reportWatch over the sidebar’s model)', () => {
  const STATE = { v: 1, type: 'state' as const, reply_to: null, variables: {}, history: [], history_total: 0,
    kernel: { python: 'python', version: '3.11', imported: [] } };
  const notebook = {} as NotebookPanel;

  it('knows only what the followed kernel said, about that kernel’s notebook', () => {
    const env = new EnvModel('en');
    let followed: NotebookPanel | null = notebook;
    const watch = reportWatch(env, shown => shown === followed);
    expect(watch.stale(notebook, 'r1')).toBe(false); // the kernel has not said yet
    env.receive({ ...STATE, last_report: 'r1' });
    expect(watch.stale(notebook, 'r1')).toBe(false);
    expect(watch.stale(notebook, 'r0')).toBe(true); // an earlier failure's
    env.setLastOom({ ...REPORT, id: 'r2' }); // a later cell failed
    expect(watch.stale(notebook, 'r1')).toBe(true);
    expect(watch.stale(notebook, 'r2')).toBe(false);
    env.resetKernelState(); // restarting, or another notebook followed: unknown again
    expect(watch.stale(notebook, 'r1')).toBe(false);
    env.receive({ ...STATE, last_report: null }); // the new kernel has none
    expect(watch.stale(notebook, 'r2')).toBe(true);
    followed = null; // another notebook's kernel is followed: nothing said of this one
    expect(watch.stale(notebook, 'r2')).toBe(false);
    followed = notebook;
    env.receive({ ...STATE } as unknown as Parameters<EnvModel['receive']>[0]); // a kernel that does not say
    expect(watch.stale(notebook, 'r2')).toBe(false);
  });
});
