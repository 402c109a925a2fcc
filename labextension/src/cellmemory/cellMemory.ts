/**
 * Each cell's memory in the notebook, for every open notebook (not only the one the sidebar follows): the kernel
 * opens the cells' comm at `%load_ext` (protocol/_cells.py) and sends a record as each cell finishes; this writes it
 * into that cell's metadata (unless the "keepInNotebook" setting is off) and every cell shows a badge drawn from its
 * metadata alone, so a notebook reopened without a kernel keeps its badges.
 *
 * The comm target is registered on each kernel a notebook gets, before any cell runs; a page loaded after
 * `%load_ext` finds the kernel's open comm through its comm list and listens to it under the same id.
 */
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel, KernelMessage } from '@jupyterlab/services';

import { CELL_METADATA_KEY, CELL_MEMORY_VERSION, CELLS_TARGET, CellMemoryNotice, CellsHello } from '../protocol';
import type { Translation } from '../shared/translation';
import { badgeNode } from './badge';
import { nextRecord, readRecord } from './record';

/** A notebook's cell widget (the type of @jupyterlab/cells, through the notebook's own declarations). */
type Cell = NotebookPanel['content']['widgets'][number];

export interface CellMemoryOptions {
  trans: Translation;
  /** The user's language, told to the kernel (the note under a leaking cell is written there). */
  language: 'en' | 'zh';
  /** Whether records are written into the notebook (the "keepInNotebook" setting). */
  keep: () => boolean;
}

function isNotice(data: unknown): data is CellMemoryNotice {
  const value = data as Partial<CellMemoryNotice> | null;
  return (
    typeof value === 'object' &&
    value !== null &&
    value.v === CELL_MEMORY_VERSION &&
    value.type === 'cell_memory' &&
    typeof value.record === 'object' &&
    value.record !== null &&
    (value.cell_id === null || typeof value.cell_id === 'string')
  );
}

export class CellMemory {
  private _tracker: INotebookTracker;
  private _options: CellMemoryOptions;
  private _kernels = new WeakSet<Kernel.IKernelConnection>();
  private _cells = new WeakSet<Cell>();
  private _panels = new WeakSet<NotebookPanel>();

  constructor(tracker: INotebookTracker, options: CellMemoryOptions) {
    this._tracker = tracker;
    this._options = options;
    tracker.forEach(panel => this._follow(panel));
    tracker.widgetAdded.connect((_, panel) => this._follow(panel));
  }

  /** Write `notice`'s record into its cell, in whichever open notebook runs on `kernel` and has that cell. */
  receive(kernel: Kernel.IKernelConnection, data: unknown): void {
    if (!isNotice(data) || !this._options.keep()) {
      return;
    }
    this._tracker.forEach(panel => {
      if (panel.sessionContext.session?.kernel?.id !== kernel.id) {
        return;
      }
      const cell = this._cellOf(panel, data);
      if (!cell) {
        return;
      }
      const metadata = cell.model.getMetadata(CELL_METADATA_KEY);
      const before = readRecord(metadata);
      const record = nextRecord(data.record, before);
      const kept = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? metadata : {};
      cell.model.setMetadata(CELL_METADATA_KEY, { ...kept, memory: record });
    });
  }

  private _cellOf(panel: NotebookPanel, notice: CellMemoryNotice): Cell | null {
    const cells = panel.content.widgets;
    if (notice.cell_id !== null) {
      return cells.find(cell => cell.model.id === notice.cell_id) ?? null;
    }
    const count = notice.record.execution_count;
    return count === null
      ? null
      : (cells.find(cell => cell.model.type === 'code' && (cell.model as any).executionCount === count) ?? null);
  }

  private _follow(panel: NotebookPanel): void {
    if (this._panels.has(panel)) {
      return;
    }
    this._panels.add(panel);
    const context = panel.sessionContext;
    const attach = (): void => {
      const kernel = context.session?.kernel;
      if (kernel) {
        this._listen(kernel);
      }
    };
    context.kernelChanged.connect(attach);
    context.statusChanged.connect((_, status) => {
      if (status === 'idle') {
        attach(); // after a restart the connection is the same, its comms gone: the target is still registered
      }
    });
    attach();
    const drawAll = (): void => panel.content.widgets.forEach(cell => this._watch(cell));
    void panel.context.ready.then(() => {
      drawAll();
      panel.content.model?.cells.changed.connect(() => drawAll());
    });
  }

  private _listen(kernel: Kernel.IKernelConnection): void {
    if (this._kernels.has(kernel) || kernel.isDisposed) {
      return;
    }
    this._kernels.add(kernel);
    const onComm = (comm: Kernel.IComm): void => {
      comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => this.receive(kernel, msg.content.data);
      const hello: CellsHello = { v: CELL_MEMORY_VERSION, type: 'hello', language: this._options.language };
      comm.send(hello);
    };
    kernel.registerCommTarget(CELLS_TARGET, comm => onComm(comm));
    // A page loaded after `%load_ext`: the kernel's comm is open already; listen to it under its id.
    void kernel
      .requestCommInfo({ target_name: CELLS_TARGET })
      .then(reply => {
        const content = reply.content;
        if (content.status !== 'ok') {
          return;
        }
        for (const id of Object.keys(content.comms)) {
          if (!kernel.hasComm(id)) {
            onComm(kernel.createComm(CELLS_TARGET, id));
          }
        }
      })
      .catch(() => undefined); // a kernel that went away: its next start is followed through kernelChanged
  }

  private _watch(cell: Cell): void {
    if (this._cells.has(cell)) {
      return;
    }
    this._cells.add(cell);
    const draw = (): void => this._draw(cell);
    cell.model.metadataChanged.connect(draw);
    cell.disposed.connect(() => cell.model.metadataChanged.disconnect(draw));
    // A cell of a long notebook renders its parts when it first scrolls into view (JupyterLab's windowing).
    void cell.ready.then(draw);
  }

  private _draw(cell: Cell): void {
    // Not before the cell has its parts: the line goes between them, and JupyterLab inserts them by position among
    // the cell's children, which a line drawn earlier would shift.
    if (cell.isDisposed || !cell.node.querySelector(':scope > .jp-Cell-inputWrapper')) {
      return;
    }
    cell.node.querySelector(':scope > .mgenv-cell-memory')?.remove();
    const badge = badgeNode(readRecord(cell.model.getMetadata(CELL_METADATA_KEY)), this._options.trans);
    cell.node.classList.toggle('mgenv-cell-has-memory', badge !== null);
    if (badge) {
      // Between the code and its outputs (sidebar.css): under the code it measures, beside no prompt.
      cell.node.insertBefore(badge, cell.node.querySelector(':scope > .jp-Cell-outputWrapper'));
    }
  }
}
