/**
 * The "GPUs on this server" section of the sidebar: per GPU a stacked bar of each notebook's share, the other
 * processes, the memory no process accounts for and the free memory, then one row per holder, largest first. A
 * notebook's name opens it; Interrupt and Shut down ask first (naming the notebook and the memory it holds) and then
 * go through the server's own kernel API, never a signal to a pid; other processes are shown, never acted on.
 *
 * The server's view is polled only while this section can be seen (the sidebar open, the section expanded, the
 * browser tab visible), at least once a second. Rows are kept by key and updated in place, so a button under the
 * pointer stays the same element while figures change every second.
 */
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { GpuKernelInfo, GpuServerView } from '../protocol';
import { el, withCode } from './dom';
import { DeviceLayout, GpuRow, deviceLayout, heldBy, idleKernels, kernelState, kernelTitle, size } from './gpuLayout';
import { ServerGpus } from './serverGpus';
import { Translate } from './text';

export type GpuAction = 'shutdown' | 'interrupt';

/** What the section asks of JupyterLab (index.ts wires them: the document manager, a dialog, the kernel API). */
export interface GpuActions {
  open(path: string): void;
  /** Ask the user; true to go on. */
  confirm(action: GpuAction, notebook: string, memory: string, devices: string): Promise<boolean>;
  shutdown(kernelId: string): Promise<void>;
  interrupt(kernelId: string): Promise<void>;
}

interface Keyed {
  node: HTMLElement;
  update(row: GpuRow | GpuKernelInfo): void;
}

export class GpuView extends Widget {
  readonly model: ServerGpus;
  private _t: Translate;
  private _actions: GpuActions;
  private _status: HTMLElement;
  private _devices: HTMLElement;
  private _idle: HTMLElement;
  private _idleList: HTMLElement;
  private _note: HTMLElement;
  private _outcome: HTMLElement;
  private _deviceNodes = new Map<number, { node: HTMLElement; rows: Map<string, Keyed> }>();
  private _idleRows = new Map<string, Keyed>();

  constructor(model: ServerGpus, t: Translate, actions: GpuActions) {
    super();
    this.model = model;
    this._t = t;
    this._actions = actions;
    this.addClass('mgenv-gpu');
    this.node.setAttribute('aria-label', t('gpusTitle'));
    this._status = el('div', 'mgenv-gpu-status');
    this._devices = el('div', 'mgenv-gpu-devices');
    this._idle = el('div', 'mgenv-gpu-idle');
    const idleTitle = el('div', 'mgenv-gpu-idle-title');
    idleTitle.textContent = t('gpusIdleKernels');
    this._idleList = el('ul', 'mgenv-gpu-rows');
    this._idle.append(idleTitle, this._idleList);
    this._note = el('div', 'mgenv-gpu-note');
    this._outcome = el('div', 'mgenv-gpu-outcome');
    this._outcome.setAttribute('role', 'status');
    this.node.append(this._status, this._outcome, this._devices, this._idle, this._note);
    this.model.changed.connect(this._render, this);
    document.addEventListener('visibilitychange', this._onVisibility);
    this._render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    document.removeEventListener('visibilitychange', this._onVisibility);
    this.model.dispose();
    super.dispose();
  }

  protected onAfterShow(msg: Message): void {
    this._update();
  }

  protected onBeforeHide(msg: Message): void {
    this._update(false);
  }

  protected onAfterAttach(msg: Message): void {
    this._update();
  }

  protected onBeforeDetach(msg: Message): void {
    this._update(false);
  }

  private _onVisibility = (): void => this._update();

  private _update(visible: boolean = this.isVisible): void {
    this.model.setActive(visible && document.visibilityState !== 'hidden');
  }

  private _render(): void {
    const t = this._t;
    const { view, connection } = this.model;
    this.node.dataset.connection = connection;
    const status: (string | HTMLElement)[] = [];
    if (connection === 'loading') {
      status.push(t('gpusLoading'));
    } else if (connection === 'absent') {
      status.push(...withCode(t('gpusAbsent')));
    } else if (connection === 'forbidden') {
      status.push(t('gpusForbidden'));
    } else if (connection === 'unreachable') {
      status.push(t('gpusUnreachable', this.model.error));
    } else if (view) {
      status.push(...viewStatus(view, t));
    }
    this._status.replaceChildren(
      ...(view && connection === 'ready'
        ? status.map(line => {
            const block = el('div', 'mgenv-gpu-status-line');
            block.append(line);
            return block;
          })
        : status)
    );
    this._status.hidden = status.length === 0;
    this._renderDevices(view);
    this._renderIdle(view);
    this._note.textContent = view && view.devices.length && view.namespace !== 'foreign' ? t('gpusFigures') : '';
  }

  private _renderDevices(view: GpuServerView | null): void {
    const layouts = view ? view.devices.map(device => deviceLayout(view, device, this._t)) : [];
    const wanted = new Set(layouts.map(layout => layout.index));
    for (const [index, device] of this._deviceNodes) {
      if (!wanted.has(index)) {
        device.node.remove();
        this._deviceNodes.delete(index);
      }
    }
    const nodes = layouts.map(layout => this._device(layout));
    placeInOrder(this._devices, nodes);
  }

  private _device(layout: DeviceLayout): HTMLElement {
    const t = this._t;
    let device = this._deviceNodes.get(layout.index);
    if (!device) {
      const node = el('section', 'mgenv-gpu-device');
      node.dataset.index = String(layout.index);
      const head = el('div', 'mgenv-gpu-device-head');
      head.append(el('span', 'mgenv-gpu-device-label'), el('span', 'mgenv-gpu-device-usage'));
      const bar = el('div', 'mgenv-gpu-bar');
      bar.setAttribute('role', 'img');
      node.append(head, el('div', 'mgenv-gpu-device-name'), bar, el('div', 'mgenv-gpu-problem'), el('ul', 'mgenv-gpu-rows'));
      device = { node, rows: new Map() };
      this._deviceNodes.set(layout.index, device);
    }
    const node = device.node;
    setText(node.querySelector('.mgenv-gpu-device-label')!, layout.label);
    setText(node.querySelector('.mgenv-gpu-device-usage')!, t('gpusUsedOf', size(layout.used, t), size(layout.total, t)));
    setText(node.querySelector('.mgenv-gpu-device-name')!, layout.name);
    const problem = node.querySelector<HTMLElement>('.mgenv-gpu-problem')!;
    setText(problem, layout.problem ?? '');
    problem.hidden = !layout.problem;
    const bar = node.querySelector<HTMLElement>('.mgenv-gpu-bar')!;
    bar.setAttribute('aria-label', layout.segments.map(segment => segment.title).join('; '));
    bar.replaceChildren(
      ...layout.segments.map(segment => {
        const part = el('span', `mgenv-gpu-seg mgenv-gpu-seg-${segment.kind}`);
        if (segment.kind === 'kernel') {
          part.classList.add(`mgenv-gpu-c${segment.colour}`);
        }
        part.dataset.key = segment.key;
        part.style.width = `${(segment.fraction * 100).toFixed(3)}%`;
        part.title = segment.title;
        return part;
      })
    );
    const rows = layout.rows.map(row => this._keyed(device!.rows, row.key, row, () => this._row(row)).node);
    const keys = new Set(layout.rows.map(row => row.key));
    for (const [key, keyed] of device.rows) {
      if (!keys.has(key)) {
        keyed.node.remove();
        device.rows.delete(key);
      }
    }
    placeInOrder(node.querySelector('.mgenv-gpu-rows')!, rows);
    return node;
  }

  private _renderIdle(view: GpuServerView | null): void {
    const kernels = view ? idleKernels(view) : [];
    const ids = new Set(kernels.map(kernel => kernel.id));
    for (const [key, keyed] of this._idleRows) {
      if (!ids.has(key)) {
        keyed.node.remove();
        this._idleRows.delete(key);
      }
    }
    const nodes = kernels.map(kernel => this._keyed(this._idleRows, kernel.id, kernel, () => this._kernelRow(null)).node);
    placeInOrder(this._idleList, nodes);
    this._idle.hidden = kernels.length === 0;
  }

  private _keyed(map: Map<string, Keyed>, key: string, data: GpuRow | GpuKernelInfo, make: () => Keyed): Keyed {
    let keyed = map.get(key);
    if (!keyed) {
      keyed = make();
      map.set(key, keyed);
    }
    keyed.update(data);
    return keyed;
  }

  private _row(row: GpuRow): Keyed {
    if (row.kind === 'kernel') {
      return this._kernelRow(row.colour);
    }
    const t = this._t;
    const node = el('li', `mgenv-gpu-row mgenv-gpu-row-${row.kind}`);
    const swatch = el('span', `mgenv-gpu-swatch mgenv-gpu-seg-${row.kind}`);
    const name = el('span', 'mgenv-gpu-name');
    const bytes = el('span', 'mgenv-gpu-size');
    const meta = el('div', 'mgenv-gpu-meta');
    node.append(swatch, name, bytes, meta);
    if (row.kind === 'other') {
      node.title = t('gpusOtherTitle');
    }
    return {
      node,
      update: data => {
        const current = data as GpuRow;
        node.dataset.key = current.key;
        setText(bytes, size(current.used, t));
        if (current.kind === 'other') {
          setText(name, t('gpusOther'));
          setText(
            meta,
            current.name === null && current.user === null
              ? t('gpusOtherHidden', current.pid)
              : t('gpusOtherMeta', current.pid, current.name ?? '?', current.user ?? '?')
          );
        } else if (current.kind === 'unlisted') {
          setText(name, t('gpusUnlisted'));
          name.title = t('gpusUnlisted');
          meta.hidden = true;
        }
      }
    };
  }

  /** A kernel's row: its notebook (a link that opens it), its memory on this GPU, its state, and its two actions. */
  private _kernelRow(colour: number | null): Keyed {
    const t = this._t;
    const node = el('li', 'mgenv-gpu-row mgenv-gpu-row-kernel');
    const swatch = el('span', 'mgenv-gpu-swatch');
    if (colour === null) {
      swatch.classList.add('mgenv-gpu-swatch-none');
    } else {
      swatch.classList.add(`mgenv-gpu-c${colour}`);
    }
    const open = el('button', 'mgenv-gpu-open') as HTMLButtonElement;
    open.type = 'button';
    const bytes = el('span', 'mgenv-gpu-size');
    const meta = el('div', 'mgenv-gpu-meta');
    const state = el('span', 'mgenv-gpu-state');
    const actions = el('span', 'mgenv-gpu-actions');
    const interrupt = button('mgenv-gpu-interrupt', t('gpusInterrupt'));
    const shutdown = button('mgenv-gpu-shutdown', t('gpusShutDown'));
    actions.append(interrupt, shutdown);
    meta.append(state, actions);
    node.append(swatch, open, bytes, meta);
    let kernel: GpuKernelInfo | null = null;
    open.addEventListener('click', () => {
      if (kernel?.notebooks.length) {
        this._actions.open(kernel.notebooks[0]);
      }
    });
    interrupt.addEventListener('click', () => kernel && void this._act('interrupt', kernel));
    shutdown.addEventListener('click', () => kernel && void this._act('shutdown', kernel));
    return {
      node,
      update: data => {
        const row = 'kind' in data ? data : null;
        kernel = row?.kind === 'kernel' ? row.kernel : (data as GpuKernelInfo);
        const title = kernelTitle(kernel, t);
        node.dataset.key = row ? row.key : kernel.id;
        node.dataset.kernel = kernel.id;
        setText(open, title);
        open.title = kernel.notebooks.length ? t('gpusOpenTitle', kernel.notebooks[0]) : title;
        open.disabled = kernel.notebooks.length === 0;
        const own = row?.kind === 'kernel' && row.figure === 'kernel_report';
        setText(bytes, row && row.kind === 'kernel' ? size(row.used, t) + (own ? ` (${t('gpusOwnReport')})` : '') : '');
        bytes.title = own ? t('gpusOwnReportTitle') : '';
        setText(state, `${kernelState(kernel, t)} · ${kernel.name}`);
      }
    };
  }

  private async _act(action: GpuAction, kernel: GpuKernelInfo): Promise<void> {
    const view = this.model.view;
    if (!view) {
      return;
    }
    const t = this._t;
    const { memory, devices } = heldBy(view, kernel.id, t);
    if (!(await this._actions.confirm(action, kernelTitle(kernel, t), memory, devices))) {
      return;
    }
    this._outcome.textContent = '';
    try {
      await (action === 'shutdown' ? this._actions.shutdown(kernel.id) : this._actions.interrupt(kernel.id));
    } catch (reason) {
      this._outcome.textContent = t('gpusActionFailed', reason instanceof Error ? reason.message : String(reason));
    }
    await this.model.refresh();
  }
}

/** The view's own line: the simulated GPU, the driver's state, the pid-namespace verdict. */
function viewStatus(view: GpuServerView, t: Translate): string[] {
  const lines: string[] = [];
  if (view.state === 'no_driver') {
    lines.push(t('gpusNoDriver', view.detail ?? ''));
  } else if (view.state === 'no_gpu') {
    lines.push(t('gpusNoGpu'));
  } else if (view.state === 'error') {
    lines.push(t('gpusError', view.detail ?? ''));
  }
  if (view.namespace === 'foreign') {
    lines.push(t('gpusForeign'));
  }
  if (view.simulated && view.simulation) {
    lines.push(t('gpusSimulated', view.simulation));
  }
  return lines;
}

function button(className: string, label: string): HTMLButtonElement {
  const node = el('button', `mgenv-gpu-action ${className}`) as HTMLButtonElement;
  node.type = 'button';
  node.textContent = label;
  return node;
}

function setText(node: Element, text: string): void {
  if (node.textContent !== text) {
    node.textContent = text;
  }
}

/** Put `nodes` into `parent` in this order, moving only what is out of place (a moved node loses a click under way). */
function placeInOrder(parent: Element, nodes: HTMLElement[]): void {
  nodes.forEach((node, index) => {
    if (parent.children[index] !== node) {
      parent.insertBefore(node, parent.children[index] ?? null);
    }
  });
  while (parent.children.length > nodes.length) {
    parent.lastElementChild!.remove();
  }
}
