import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Panel, Widget } from '@lumino/widgets';

import { OutputHost, Renderers, WIDGET_VIEW_MIME } from '../src/output/host';
import { OUTPUT_MIME } from '../src/protocol';

/** A renderer of one type that writes what it was given (the static types) into its node. */
class TextRenderer extends Widget implements IRenderMime.IRenderer {
  rendered = 0;
  constructor(private _type: string) {
    super();
  }
  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.rendered++;
    this.node.textContent = String(model.data[this._type]);
  }
}

/** jupyterlab-manager's widget renderer as the host sees it: a Panel that gets the widget's view when the kernel
 * has the model, and writes "model not found" otherwise. */
class WidgetRendererStandIn extends Panel implements IRenderMime.IRenderer {
  rendered = 0;
  constructor(private _models: Set<string>) {
    super();
  }
  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.rendered++;
    const id = (model.data[WIDGET_VIEW_MIME] as { model_id: string }).model_id;
    this.node.textContent = 'Loading widget...';
    await Promise.resolve();
    if (!this._models.has(id)) {
      this.node.textContent = 'Error displaying widget: model not found';
      return;
    }
    this.node.textContent = '';
    const view = new Widget();
    view.node.textContent = 'the live chart';
    this.addWidget(view);
  }
}

function renderers(models: Set<string>): Renderers & { made: IRenderMime.IRenderer[] } {
  const made: IRenderMime.IRenderer[] = [];
  return {
    made,
    getFactory: (type: string) => ({ safe: true, mimeTypes: [type], createRenderer: () => null as any }),
    createRenderer: (type: string) => {
      const renderer = type === WIDGET_VIEW_MIME ? new WidgetRendererStandIn(models) : new TextRenderer(type);
      made.push(renderer);
      return renderer;
    }
  };
}

function model(html: string, trusted = true, id = 'chart-1'): IRenderMime.IMimeModel {
  return {
    trusted,
    data: {
      [WIDGET_VIEW_MIME]: { model_id: id, version_major: 2, version_minor: 1 },
      [OUTPUT_MIME]: { v: 1 },
      'text/html': html,
      'text/plain': 'Memory of this kernel'
    },
    metadata: {},
    setData: () => undefined
  } as unknown as IRenderMime.IMimeModel;
}

const tick = () => new Promise(resolve => setTimeout(resolve, 0));
const shownText = (host: OutputHost) =>
  [...host.node.children]
    .filter(child => (child as HTMLElement).style.display !== 'none' && !child.classList.contains('lm-mod-hidden'))
    .map(child => child.textContent)
    .join('|');

describe('the output host', () => {
  it('shows the live widget in place of the static view while the kernel has its model', async () => {
    const host = new OutputHost(renderers(new Set(['chart-1'])));
    Widget.attach(host, document.body);
    await host.renderModel(model('<svg>picture at 10:00</svg>'));
    await tick();
    expect(host.live).toBe(true);
    expect(shownText(host)).toBe('the live chart');
    host.dispose();
  });

  it('keeps the static view of a notebook reopened without its kernel: no "model not found" on screen', async () => {
    const host = new OutputHost(renderers(new Set()));
    Widget.attach(host, document.body);
    await host.renderModel(model('<svg>picture at 10:00</svg>'));
    await tick();
    expect(host.live).toBe(false);
    expect(shownText(host)).toBe('<svg>picture at 10:00</svg>');
    expect(host.node.textContent).toContain('model not found'); // said out of sight, by jupyterlab-manager
    host.dispose();
  });

  it('takes a newer static view without drawing the live widget again', async () => {
    const made = renderers(new Set(['chart-1']));
    const host = new OutputHost(made);
    Widget.attach(host, document.body);
    await host.renderModel(model('<svg>picture at 10:00</svg>'));
    await tick();
    await host.renderModel(model('<svg>picture at 10:05</svg>')); // the kernel updated the output (display id)
    await tick();
    const live = made.made.filter(r => r instanceof WidgetRendererStandIn) as WidgetRendererStandIn[];
    expect(live).toHaveLength(1);
    expect(live[0].rendered).toBe(1);
    expect(host.live).toBe(true);
    const picture = made.made.find(r => r instanceof TextRenderer) as TextRenderer;
    expect(picture.rendered).toBe(2);
    expect(picture.node.textContent).toBe('<svg>picture at 10:05</svg>'); // what the notebook saves is current
    host.dispose();
  });

  it('shows an untrusted output’s static view only, as JupyterLab shows no widget in one', async () => {
    const made = renderers(new Set(['chart-1']));
    const host = new OutputHost(made);
    await host.renderModel(model('<svg>picture</svg>', false));
    expect(made.made.some(r => r instanceof WidgetRendererStandIn)).toBe(false);
    expect(host.live).toBe(false);
  });

  it('renders again with the renderer bound to the kernel once the notebook has one (a placeholder waits for ever)', async () => {
    const models = new Set(['chart-1']);
    let bound = false;
    const placeholder = { safe: false, mimeTypes: [WIDGET_VIEW_MIME], createRenderer: () => null as any };
    const kernels = { safe: false, mimeTypes: [WIDGET_VIEW_MIME], createRenderer: () => null as any };
    const made = renderers(models);
    const host = new OutputHost({
      getFactory: (type: string) => (type === WIDGET_VIEW_MIME ? (bound ? kernels : placeholder) : made.getFactory(type)),
      createRenderer: (type: string) => {
        if (type === WIDGET_VIEW_MIME && !bound) {
          const waiting = new Panel() as Panel & IRenderMime.IRenderer;
          waiting.renderModel = async () => void (waiting.node.textContent = 'Loading widget...');
          return waiting;
        }
        return made.createRenderer(type);
      }
    });
    Widget.attach(host, document.body);
    await host.renderModel(model('<svg>picture</svg>'));
    await tick();
    expect(host.live).toBe(false);
    bound = true; // jupyterlab-manager replaced its placeholder when the kernel came
    await new Promise(resolve => setTimeout(resolve, 700));
    expect(host.live).toBe(true);
    expect(shownText(host)).toBe('the live chart');
    host.dispose();
  });

  it('goes back to the static view when the widget is closed', async () => {
    const made = renderers(new Set(['chart-1']));
    const host = new OutputHost(made);
    Widget.attach(host, document.body);
    await host.renderModel(model('<svg>picture</svg>'));
    await tick();
    expect(host.live).toBe(true);
    (made.made.find(r => r instanceof WidgetRendererStandIn) as Widget).hide(); // what it does on close
    await tick();
    expect(host.live).toBe(false);
    expect(shownText(host)).toBe('<svg>picture</svg>');
    host.dispose();
  });
});
