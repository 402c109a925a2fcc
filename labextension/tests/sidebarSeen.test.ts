/**
 * The sidebar's live sections — the kernel's memory chart and the server's GPUs — stream or poll only while they can
 * be seen (sidebar/seenSection.ts): attached and shown, in a visible browser tab; and they stop when disposed of.
 */
import { nullTranslator } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { GpuActions, GpuView } from '../src/sidebar/gpus/view';
import { MemoryView } from '../src/sidebar/memoryView';
import { ServerGpus } from '../src/sidebar/gpus/server';
import { DOMAIN } from '../src/sidebar/text';

const trans = nullTranslator.load(DOMAIN);

let tabState: DocumentVisibilityState = 'visible';

/** The browser tab shown or hidden, as the page's visibilitychange tells it. */
function tab(state: DocumentVisibilityState): void {
  tabState = state;
  document.dispatchEvent(new Event('visibilitychange'));
}

beforeAll(() => {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => tabState });
});

afterEach(() => {
  tabState = 'visible';
  document.body.replaceChildren();
});

describe('a live section is seen only while it can be', () => {
  it('the memory chart wants the stream while shown in a visible tab, and says when that changes', () => {
    const view = new MemoryView(trans);
    const said: boolean[] = [];
    view.wantedChanged.connect((_, wanted) => said.push(wanted));
    expect(view.wanted).toBe(false); // not on the page yet
    Widget.attach(view, document.body);
    expect(view.wanted).toBe(true);
    view.hide(); // the accordion collapses the section
    view.show();
    tab('hidden');
    tab('hidden'); // the same answer again says nothing
    tab('visible');
    Widget.detach(view);
    expect(said).toEqual([true, false, true, false, true, false]);
    Widget.attach(view, document.body);
    view.dispose();
    expect(said).toEqual([true, false, true, false, true, false, true, false]); // disposed: no longer wanted
    tab('visible');
    tab('hidden');
    expect(said.length).toBe(8); // a disposed section no longer listens
  });

  it('the server’s GPUs are polled while the section is seen, and no more once it is disposed of', () => {
    const model = new ServerGpus(() => new Promise(() => undefined)); // a server that never answers
    const view = new GpuView(model, trans, {} as GpuActions);
    expect(model.active).toBe(false);
    Widget.attach(view, document.body);
    expect(model.active).toBe(true);
    view.hide();
    expect(model.active).toBe(false);
    view.show();
    expect(model.active).toBe(true);
    tab('hidden');
    expect(model.active).toBe(false);
    tab('visible');
    expect(model.active).toBe(true);
    view.dispose();
    expect(model.active).toBe(false);
    tab('hidden');
    tab('visible');
    expect(model.active).toBe(false);
  });
});
