import { FREE_MIME, FREE_VERSION, FreedReply, FreeResultData, OomFreeOffer } from '../src/protocol';
import { FreeAnswer, freeOfferItem, freeRendererFactory } from '../src/oom/freeOffer';
import { flush } from './fakes';

const OFFER: OomFreeOffer = {
  title: 'Free what the failed cell holds',
  why: "the failed call's frames still hold big (in step) 2 GiB",
  magic: '%memfree',
  button: 'Free memory',
  note: 'never touches your variables'
};

const RESULT: FreeResultData = {
  v: FREE_VERSION,
  language: 'en',
  headline: 'Freed what the failed cell held: gpu0 (simulated) 38 GiB → 2 GiB',
  figures: [
    { label: 'gpu0 (simulated): this kernel (NVML)', before: 38 * 1024 ** 3, after: 2 * 1024 ** 3, change: 'gave back 36 GiB' },
    { label: 'host RSS (this kernel)', before: null, after: 300 * 1024 ** 2, change: '' }
  ],
  sections: [['Memory before → after:'], ['Cleared:', '  the frames <b>(3)</b>'], ['Your variables were not touched.']],
  footer: 'took 12 ms',
  time: 1700000000,
  simulated: true
};

function item(free: () => Promise<FreeAnswer>): HTMLElement {
  return freeOfferItem(OFFER, { free, noKernel: 'no kernel', busy: 'working…' });
}

test('the offer shows its button, title, magic and why, as text', () => {
  const node = item(() => Promise.resolve(null));
  expect(node.querySelector('button')!.textContent).toBe('Free memory');
  expect(node.querySelector('.mgenv-oom-free-title')!.textContent).toBe(OFFER.title);
  expect(node.querySelector('code')!.textContent).toBe('%memfree');
  expect(node.querySelector('.mgenv-oom-why')!.textContent).toContain('big (in step) 2 GiB');
});

test('a click asks the kernel once and shows the figures before and after it answered', async () => {
  const asked: number[] = [];
  const reply: FreedReply = { v: 1, type: 'freed', reply_to: 'r1', result: RESULT };
  const node = item(() => {
    asked.push(1);
    return Promise.resolve(reply);
  });
  const button = node.querySelector('button')!;
  button.click();
  expect(button.disabled).toBe(true);
  expect(node.querySelector('.mgenv-oom-outcome')!.textContent).toBe('working…');
  await flush();
  expect(asked).toEqual([1]);
  const rows = [...node.querySelectorAll('.mgenv-free-figures tr')].map(row =>
    [...row.querySelectorAll('td')].map(cell => cell.textContent)
  );
  expect(rows).toEqual([
    ['gpu0 (simulated): this kernel (NVML)', '38 GiB', '→', '2 GiB', 'gave back 36 GiB'],
    ['host RSS (this kernel)', '?', '→', '300 MiB', '']
  ]);
  expect(node.querySelector('.mgenv-free-headline')!.textContent).toBe(RESULT.headline);
  // The kernel's words are text, never markup.
  expect(node.querySelector('.mgenv-free b')).toBeNull();
  expect(node.textContent).toContain('the frames <b>(3)</b>');
  expect(button.disabled).toBe(true);
});

test('a refusal or no kernel is said, and the button can be used again', async () => {
  const refused = item(() => Promise.resolve({ type: 'error', message: "'outputs' must be true or false" }));
  refused.querySelector('button')!.click();
  await flush();
  expect(refused.querySelector('.mgenv-oom-outcome')!.textContent).toBe("'outputs' must be true or false");
  expect(refused.querySelector<HTMLElement>('.mgenv-oom-outcome')!.dataset.state).toBe('error');
  expect(refused.querySelector('button')!.disabled).toBe(false);
  const none = item(() => Promise.resolve(null));
  none.querySelector('button')!.click();
  await flush();
  expect(none.querySelector('.mgenv-oom-outcome')!.textContent).toBe('no kernel');
});

test("%memfree's output renders the same view, and an unknown version its text", async () => {
  const renderer = freeRendererFactory.createRenderer({} as never);
  await renderer.renderModel({ data: { [FREE_MIME]: RESULT }, metadata: {}, trusted: false } as never);
  expect(renderer.node.querySelectorAll('.mgenv-free-figures tr').length).toBe(2);
  await renderer.renderModel({ data: { [FREE_MIME]: { ...RESULT, v: 99 }, 'text/plain': 'plain' }, metadata: {}, trusted: false } as never);
  expect(renderer.node.textContent).toBe('plain');
});

test("the report lists the kernel's offer first and sends its click to that notebook's kernel", async () => {
  const { nullTranslator } = await import('@jupyterlab/translation');
  const { OomReportView } = await import('../src/oom/report');
  const { DOMAIN } = await import('../src/sidebar/text');
  const { OOM_MIME, OOM_VERSION } = await import('../src/protocol');
  const panel = {} as never;
  const freed: unknown[] = [];
  const view = new OomReportView({
    trans: nullTranslator.load(DOMAIN),
    notebook: panel,
    apply: () => Promise.resolve(null),
    restart: () => Promise.resolve(),
    free: notebook => {
      freed.push(notebook);
      return Promise.resolve({ v: 1, type: 'freed', reply_to: 'x', result: RESULT });
    }
  });
  const report = {
    v: OOM_VERSION, language: 'en', headline: 'Out of memory', sections: [],
    timeline: { title: 't', chart: null, lines: [] },
    remedies: [{ cause: 'cap', assignments: [['A', '1']], envset: '%envset A=1', restart: false, when: 'now', why: 'w', caveat: null }],
    remedies_title: 'Remedies', no_remedy: null, footer: 'f', free: OFFER
  };
  await view.renderModel({ data: { [OOM_MIME]: report }, metadata: {}, trusted: true } as never);
  // First, above the numbered settings (it sets nothing); the settings' list and buttons are as before.
  const offer = view.node.querySelector('.mgenv-oom-free')!;
  const list = view.node.querySelector('.mgenv-oom-remedies')!;
  expect(offer.compareDocumentPosition(list) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  expect([...list.querySelectorAll('li')].length).toBe(1);
  expect([...view.node.querySelectorAll('.mgenv-oom-apply')].map(b => b.textContent)).toEqual(['Apply']);
  offer.querySelector('button')!.click();
  await flush();
  expect(freed).toEqual([panel]);
  expect(offer.querySelector('.mgenv-free-headline')!.textContent).toBe(RESULT.headline);
  // A report without the offer (made before it existed, or nothing to give back) has none.
  await view.renderModel({ data: { [OOM_MIME]: { ...report, free: null } }, metadata: {}, trusted: true } as never);
  expect(view.node.querySelector('.mgenv-oom-free')).toBeNull();
});

test('what holds memory is a table of the kernel rows, or its reason for none, then its notes', async () => {
  const { holdersView } = await import('../src/oom/freeOffer');
  const node = holdersView({
    title: 'What holds memory now, largest first',
    rows: [
      { name: 'weights', what: 'numpy.ndarray', bytes: 64 * 1024 ** 2, devices: 'host 64 MiB', note: '' },
      { name: 'view', what: 'torch.Tensor', bytes: 0, devices: '', note: 'shares 8 MiB with b' }
    ],
    empty: null,
    notes: ['total: host 64 MiB']
  });
  const rows = [...node.querySelectorAll('tr')].map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent));
  expect(rows).toEqual([
    ['weights', '64 MiB', 'numpy.ndarray', 'host 64 MiB'],
    ['view', '0', 'torch.Tensor', 'shares 8 MiB with b']
  ]);
  expect(node.querySelector('.mgenv-oom-footer')!.textContent).toBe('total: host 64 MiB');
  const empty = holdersView({ title: 'What holds memory now', rows: [], empty: 'no framework or NumPy is loaded', notes: [] });
  expect(empty.querySelector('table')).toBeNull();
  expect(empty.textContent).toContain('no framework or NumPy is loaded');
});
