/**
 * The "GPUs on this server" section of the sidebar: per GPU a stacked bar of each notebook's share, the other
 * processes, the memory no process accounts for and the free memory, then one row per holder, largest first. A
 * notebook's name opens it; Interrupt and Shut down ask first (naming the notebook and the memory it holds) and then
 * go through the server's own kernel API, never a signal to a pid; other processes are shown, never acted on.
 *
 * The server's view is polled only while this section can be seen (SeenSection), at least once a second. Rows are
 * kept by key and updated in place, so a button under the pointer stays the same element while figures change every
 * second.
 */
import { GpuKernelInfo, GpuServerView } from '../../protocol';
import { el, withCode } from '../../shared/dom';
import {
  DeviceLayout,
  GpuRow,
  deviceLayout,
  heldBy,
  cullNote,
  idleKernels,
  kernelTitle,
  size
} from './layout';
import { idleMeaning, kernelState } from '../../shared/kernelUse';
import { SeenSection } from '../seenSection';
import { ServerGpus } from './server';
import { Translation } from '../text';

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

export class GpuView extends SeenSection {
  readonly model: ServerGpus;
  private _trans: Translation;
  private _actions: GpuActions;
  private _status: HTMLElement;
  private _devices: HTMLElement;
  private _idle: HTMLElement;
  private _idleList: HTMLElement;
  private _note: HTMLElement;
  private _outcome: HTMLElement;
  private _deviceNodes = new Map<number, { node: HTMLElement; rows: Map<string, Keyed> }>();
  private _idleRows = new Map<string, Keyed>();

  constructor(model: ServerGpus, trans: Translation, actions: GpuActions) {
    super();
    this.model = model;
    this._trans = trans;
    this._actions = actions;
    this.addClass('mgenv-gpu');
    this.node.setAttribute('aria-label', trans.__('GPUs on this server'));
    this._status = el('div', 'mgenv-gpu-status');
    this._devices = el('div', 'mgenv-gpu-devices');
    this._idle = el('div', 'mgenv-gpu-idle');
    const idleTitle = el('div', 'mgenv-gpu-idle-title');
    idleTitle.textContent = trans.__('Kernels holding no GPU memory');
    this._idleList = el('ul', 'mgenv-gpu-rows');
    this._idle.append(idleTitle, this._idleList);
    this._note = el('div', 'mgenv-gpu-note');
    this._outcome = el('div', 'mgenv-gpu-outcome');
    this._outcome.setAttribute('role', 'status');
    this.node.append(this._status, this._outcome, this._devices, this._idle, this._note);
    this.model.changed.connect(this._render, this);
    this._render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    super.dispose(); // stops the polling first
    this.model.dispose();
  }

  protected onSeenChanged(seen: boolean): void {
    this.model.setActive(seen);
  }

  private _render(): void {
    const trans = this._trans;
    const { view, connection } = this.model;
    this.node.dataset.connection = connection;
    const status: (string | HTMLElement)[] = [];
    if (connection === 'loading') {
      status.push(trans.__('Reading the server’s GPUs…'));
    } else if (connection === 'absent') {
      status.push(
        ...withCode(
          trans.__(
            'The mgenv_jupyter server extension is not running on this server: enable it with ' +
              '`jupyter server extension enable mgenv_jupyter.server` and restart the server.'
          )
        )
      );
    } else if (connection === 'forbidden') {
      status.push(trans.__('The server does not let this page see its kernels.'));
    } else if (connection === 'unreachable') {
      status.push(trans.__('The server does not answer: %1', this.model.error));
    } else if (view) {
      status.push(...viewStatus(view, trans));
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
    this._note.textContent =
      view && view.devices.length && view.namespace !== 'foreign'
        ? trans.__(
            'Each notebook’s figure is NVML’s memory of its kernel’s processes; the device’s used and total are NVML’s own.'
          )
        : '';
  }

  private _renderDevices(view: GpuServerView | null): void {
    const layouts = view ? view.devices.map(device => deviceLayout(view, device, this._trans)) : [];
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
    const trans = this._trans;
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
    setText(node.querySelector('.mgenv-gpu-device-usage')!, trans.__('%1 of %2 used', size(layout.used, trans), size(layout.total, trans)));
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
    const trans = this._trans;
    const node = el('li', `mgenv-gpu-row mgenv-gpu-row-${row.kind}`);
    const swatch = el('span', `mgenv-gpu-swatch mgenv-gpu-seg-${row.kind}`);
    const name = el('span', 'mgenv-gpu-name');
    const bytes = el('span', 'mgenv-gpu-size');
    const meta = el('div', 'mgenv-gpu-meta');
    node.append(swatch, name, bytes, meta);
    if (row.kind === 'other') {
      node.title = trans.__('A process that belongs to no kernel of this server: shown, never acted on.');
    }
    return {
      node,
      update: data => {
        const current = data as GpuRow;
        node.dataset.key = current.key;
        setText(bytes, size(current.used, trans));
        if (current.kind === 'other') {
          setText(name, trans.__('other process'));
          setText(
            meta,
            current.name === null && current.user === null
              ? trans.__('pid %1 · not visible here', current.pid)
              : trans.__('pid %1 · %2 · %3', current.pid, current.name ?? '?', current.user ?? '?')
          );
        } else if (current.kind === 'unlisted') {
          setText(name, trans.__('not listed (driver, other containers)'));
          name.title = trans.__('not listed (driver, other containers)');
          meta.hidden = true;
        }
      }
    };
  }

  /** A kernel's row: its notebook (a link that opens it), its memory on this GPU, its state, and its two actions. */
  private _kernelRow(colour: number | null): Keyed {
    const trans = this._trans;
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
    const interrupt = button('mgenv-gpu-interrupt', trans.__('Interrupt'));
    const shutdown = button('mgenv-gpu-shutdown', trans.__('Shut down'));
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
        const title = kernelTitle(kernel, trans);
        node.dataset.key = row ? row.key : kernel.id;
        node.dataset.kernel = kernel.id;
        setText(open, title);
        open.title = kernel.notebooks.length ? trans.__('Open %1', kernel.notebooks[0]) : title;
        open.disabled = kernel.notebooks.length === 0;
        const own = row?.kind === 'kernel' && row.figure === 'kernel_report';
        setText(bytes, row && row.kind === 'kernel' ? size(row.used, trans) + (own ? ` (${trans.__('own report')})` : '') : '');
        bytes.title = own
          ? trans.__(
              'What the kernel says its framework’s allocator reserved on this GPU (NVML cannot attribute memory here)'
            )
          : '';
        setText(state, `${kernelState(kernel, trans)}${cullNote(kernel, trans)} · ${kernel.name}`);
        state.title = idleMeaning(trans);
      }
    };
  }

  private async _act(action: GpuAction, kernel: GpuKernelInfo): Promise<void> {
    const view = this.model.view;
    if (!view) {
      return;
    }
    const trans = this._trans;
    const { memory, devices } = heldBy(view, kernel.id, trans);
    if (!(await this._actions.confirm(action, kernelTitle(kernel, trans), memory, devices))) {
      return;
    }
    this._outcome.textContent = '';
    const title = kernelTitle(kernel, trans);
    try {
      await (action === 'shutdown' ? this._actions.shutdown(kernel.id) : this._actions.interrupt(kernel.id));
      // Said, since an interrupt changes nothing in the list: the kernel stays, with its memory.
      this._outcome.textContent =
        action === 'shutdown'
          ? trans.__('Shut down the kernel of %1.', title)
          : trans.__('Interrupted the kernel of %1: the cell it was running stops; its variables and memory stay.', title);
    } catch (reason) {
      this._outcome.textContent = trans.__('The server refused: %1', reason instanceof Error ? reason.message : String(reason));
    }
    await this.model.refresh();
  }
}

/** The view's own line: the simulated GPU, the driver's state, the pid-namespace verdict. */
function viewStatus(view: GpuServerView, trans: Translation): string[] {
  const lines: string[] = [];
  if (view.state === 'no_driver') {
    lines.push(trans.__('No NVIDIA driver on the server: %1', view.detail ?? ''));
  } else if (view.state === 'no_gpu') {
    lines.push(trans.__('NVML sees no GPU on the server.'));
  } else if (view.state === 'error') {
    lines.push(trans.__('NVML error on the server: %1', view.detail ?? ''));
  }
  if (view.namespace === 'foreign') {
    lines.push(
      trans.__(
        'NVML lists its processes under pids that do not exist here: the server runs in a container with its own pid ' +
          'namespace, so NVML’s figures cannot be attributed to a notebook. A figure marked “own report” is what the ' +
          'kernel says its framework’s allocator reserved; the device figures are exact.'
      )
    );
  }
  if (view.simulated && view.simulation) {
    lines.push(trans.__('simulated GPU (%1)', view.simulation));
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
