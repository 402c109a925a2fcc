import { nullTranslator } from '@jupyterlab/translation';

import { KernelClient, RemedyChoice } from '../src/sidebar/client';
import { ConfigView } from '../src/sidebar/configView';
import { EnvModel } from '../src/sidebar/model';
import { DOMAIN } from '../src/sidebar/text';
import { OomReportData } from '../src/protocol';
import { FakeKernel, flush, variable } from './fakes';

const trans = nullTranslator.load(DOMAIN);

const REPORT: OomReportData = {
  v: 1,
  id: 'k7',
  language: 'en',
  headline: 'Out of memory on gpu0 (torch.OutOfMemoryError): 2 GiB asked for',
  sections: [['Verdict: fragmentation — 16.3 GiB reserved but unallocated'], ['Numbers:']],
  timeline: { title: 'Timeline of gpu0 process', chart: null, lines: [] },
  remedies: [{
    id: 'k7-0', cause: 'fragmentation', assignments: [['PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True']],
    envset: '%envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True', restart: true, when: 'needs a restart',
    why: 'growable segments', caveat: null, try_cell: null
  }],
  remedies_title: 'Remedies, best first',
  no_remedy: null,
  footer: ''
};

describe('The panel’s copy of the last out-of-memory report', () => {
  beforeEach(() => window.localStorage.clear());

  it('appears when the kernel says a cell ran out of memory, sets a remedy, and goes with the kernel', async () => {
    const model = new EnvModel('en');
    const applied: RemedyChoice[] = [];
    const actions = {
      edit: async () => null,
      forget: jest.fn(),
      reviewProfile: jest.fn(async () => undefined),
      loadHistory: jest.fn(async () => undefined),
      applyRemedyToFollowed: async (choice: RemedyChoice) => {
        applied.push(choice);
        return { v: 1, type: 'result' as const, reply_to: 'x', changes: [], status: null, restart: false };
      }
    };
    const view = new ConfigView(model, actions, trans);
    const section = view.node.querySelector<HTMLElement>('.mgenv-sb-oom')!;
    expect(section.hidden).toBe(true);

    const client = new KernelClient(new FakeKernel().asKernel(), model, { language: 'en' });
    client.handle({ v: 1, type: 'oom', report: REPORT });
    expect(model.lastOom).toEqual(REPORT);
    expect(section.hidden).toBe(false);
    expect(section.querySelector('.mgenv-sb-oom-title')!.textContent).toBe('Last out of memory in this kernel');
    expect(section.querySelector('.mgenv-oom-headline')!.textContent).toBe(REPORT.headline);
    expect(section.querySelector('.mgenv-sb-oom-verdict')!.textContent).toBe(REPORT.sections[0][0]);

    section.querySelector<HTMLButtonElement>('.mgenv-oom-apply')!.click();
    await flush();
    expect(applied).toEqual([
      { reportId: 'k7', remedyId: 'k7-0', assignments: { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' } }
    ]);
    const outcome = section.querySelector<HTMLElement>('.mgenv-oom-outcome')!;
    expect(outcome.dataset.state).toBe('restart');
    expect(outcome.textContent).toBe('Set and kept in the notebook profile; it takes effect after a restart.'); // the toolbar's Restart and apply is right above
    expect(outcome.querySelector('button')).toBeNull();

    expect(section.querySelector('.mgenv-oom-why')!.textContent).toBe('needs a restart'); // brief: why in the tooltip
    expect(section.querySelector<HTMLElement>('.mgenv-oom-why')!.title).toBe('growable segments');

    // Set from the notebook's report (or %envset): the panel's button says so.
    const button = section.querySelector<HTMLButtonElement>('.mgenv-oom-apply')!;
    const hold = (value: string | null) =>
      model.receive({
        v: 1, type: 'changed', changes: [],
        variables: { PYTORCH_CUDA_ALLOC_CONF: variable(value, value === null ? 'unset' : 'pending_first_use') }
      });
    hold(null);
    expect([button.textContent, button.disabled]).toEqual(['Apply', false]);
    hold('expandable_segments:True');
    expect([button.textContent, button.disabled]).toEqual(['Applied', true]);

    model.resetKernelState(); // a restart: the new process has no report
    expect(model.lastOom).toBeNull();
    expect(section.hidden).toBe(true);
  });

  it('says what was given back, and can be dismissed until the next report (issue 29, point 6)', () => {
    const model = new EnvModel('en');
    const view = new ConfigView(model, {
      edit: async () => null, forget: jest.fn(), reviewProfile: jest.fn(async () => undefined),
      loadHistory: jest.fn(async () => undefined)
    }, trans);
    const section = view.node.querySelector<HTMLElement>('.mgenv-sb-oom')!;
    model.setLastOom(REPORT);
    expect(section.querySelector('.mgenv-sb-oom-freed')).toBeNull();
    const summary = 'Given back at 14:03:05: gpu0: this kernel (NVML) 38 GiB → 2 GiB';
    model.setLastOom({ ...REPORT, freed: { time: 1, summary, figures: [] } }); // %memfree: the kernel tells again
    expect(section.querySelector('.mgenv-sb-oom-freed')!.textContent).toBe(summary);
    const dismiss = section.querySelector<HTMLButtonElement>('.mgenv-sb-oom-dismiss')!;
    expect(dismiss.getAttribute('aria-label')).toBe('Dismiss the out-of-memory report');
    expect(dismiss.textContent).toBe(''); // its × is drawn, the card's text is the report's
    dismiss.click();
    expect(section.hidden).toBe(true);
    model.setLastOom({ ...REPORT }); // the same report again (a panel that connects later): still dismissed
    expect(section.hidden).toBe(true);
    model.setLastOom({ ...REPORT, id: 'k8' }); // the next failure
    expect(section.hidden).toBe(false);
  });

  const cardOf = (model: EnvModel): HTMLElement =>
    new ConfigView(model, {
      edit: async () => null, forget: jest.fn(), reviewProfile: jest.fn(async () => undefined),
      loadHistory: jest.fn(async () => undefined)
    }, trans).node.querySelector<HTMLElement>('.mgenv-sb-oom')!;

  it('stays dismissed when the page is loaded again: the browser keeps the ids dismissed', () => {
    const first = new EnvModel('en');
    const card = cardOf(first);
    first.setLastOom(REPORT);
    card.querySelector<HTMLButtonElement>('.mgenv-sb-oom-dismiss')!.click();
    expect(card.hidden).toBe(true);
    expect(JSON.parse(window.localStorage.getItem('mgenv-jupyter:dismissed-oom-reports')!)).toEqual(['k7']);
    const again = new EnvModel('en'); // the page loaded again: a new panel, the kernel's same report
    const reloaded = cardOf(again);
    again.setLastOom(REPORT);
    expect(reloaded.hidden).toBe(true);
    expect(reloaded.dataset.report).toBe('k7'); // there, and hidden
    again.setLastOom({ ...REPORT, id: 'k8' });
    expect(reloaded.hidden).toBe(false);
  });

  it('keeps the latest 50 ids, and ignores what it did not write', () => {
    const model = new EnvModel('en');
    const card = cardOf(model);
    for (let i = 0; i < 60; i++) {
      model.setLastOom({ ...REPORT, id: `r${i}` });
      card.querySelector<HTMLButtonElement>('.mgenv-sb-oom-dismiss')!.click();
    }
    const kept = JSON.parse(window.localStorage.getItem('mgenv-jupyter:dismissed-oom-reports')!);
    expect(kept.length).toBe(50);
    expect(kept[49]).toBe('r59');
    for (const stored of ['not json', '{"k7": true}', '[7, null]', JSON.stringify(['x'.repeat(65)]),
      JSON.stringify(['k7', 'y'.repeat(5000)])]) {
      window.localStorage.setItem('mgenv-jupyter:dismissed-oom-reports', stored);
      const fresh = new EnvModel('en');
      const shown = cardOf(fresh);
      fresh.setLastOom(REPORT);
      expect(shown.hidden).toBe(false);
    }
  });

  it('is dismissed on the page where the browser refuses to keep it', () => {
    const setItem = jest.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('quota', 'QuotaExceededError');
    });
    try {
      const model = new EnvModel('en');
      const card = cardOf(model);
      model.setLastOom(REPORT);
      card.querySelector<HTMLButtonElement>('.mgenv-sb-oom-dismiss')!.click();
      model.setLastOom({ ...REPORT });
      expect(card.hidden).toBe(true);
    } finally {
      setItem.mockRestore();
    }
  });
});
