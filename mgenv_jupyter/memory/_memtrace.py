"""The kernel's recording of allocation sites: `%%memtrace` records one cell, `%memtrace on` every cell, and the
out-of-memory report asks for the sites at the failure.

Each framework records its own stacks (runtime/frameworks: JAX always; PyTorch when its CUDA memory history or its CPU
profiler is on); memtrace starts and stops them around cells and groups what they give by the user's lines
(memory/_memtrace_sites.py). Frameworks that keep no stacks are named with what they do not record (the catalog's
facts).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from ..base._kernel_state import Slot
from ..base._text import Text
from ..catalog._homes import MEMTRACE_FACTS
from ..catalog._memtrace import UNRECORDED_LIBRARIES, Recording
from ..runtime._memtrace import BlockRecord, MemtraceRecorder
from ._cell_events import Cell, CellSubscription, Order, cell_follower
from ._memtrace_sites import CellNames, Sites, group


def _recorders() -> dict[str, MemtraceRecorder]:
    from ..runtime.frameworks import memtrace_recorders

    return memtrace_recorders()


class Memtrace:
    """Starts and stops the frameworks' recordings around cells. `on`: recording every user's cell (`%memtrace on`),
    while it follows the shell's cells (memory/_cell_events.py); `last`: the sites at the peak of the last recorded
    cell."""

    def __init__(self, recorders: Callable[[], dict[str, MemtraceRecorder]] = _recorders) -> None:
        self._make = recorders
        self._recorders: dict[str, MemtraceRecorder] | None = None
        self.on = False
        self.last: Sites | None = None
        self._active: list[MemtraceRecorder] = []
        self._open = False  # a cell is being recorded (perhaps by no framework: then its sites say so)
        self._cell: int | None = None
        self._subscription: CellSubscription | None = None
        self._shell: Any = None  # whose compiled cells name the sites, while `on`
        self._lock = threading.Lock()

    @property
    def recorders(self) -> dict[str, MemtraceRecorder]:
        if self._recorders is None:
            self._recorders = self._make()
        return self._recorders

    @property
    def recording(self) -> bool:
        """A cell is being recorded now."""
        return self._open

    def switch(self, shell: Any, on: bool) -> dict[str, bool]:
        """Record every cell of `shell` from the next one on (or stop): each loaded framework that records stacks,
        by key, and whether it records now (PyTorch's CUDA history needs CUDA started)."""
        self.on = on
        if on:
            self._shell = shell
            follower = cell_follower(shell)
            if follower is not None and (self._subscription is None or self._subscription.closed):
                self._subscription = follower.subscribe(Order.SITES, started=self._cell_started,
                                                        ended=self._cell_ended)
        else:
            self.unregister()
        return {key: recorder.keep_on(on) for key, recorder in self.recorders.items() if recorder.available()}

    def begin(self, cell: int | None) -> None:
        """Start recording a cell (nothing when one is being recorded already: a %%memtrace cell under
        %memtrace on is one recording)."""
        with self._lock:
            if self._open:
                return
            self._open = True
            self._cell = cell
            self._active = [r for r in self.recorders.values() if r.available()]
        for recorder in self._active:
            recorder.start()

    def finish(self, cells: CellNames, moment: str = "peak") -> Sites | None:
        """End the cell's recording: the sites at its peak (kept as `last`); None when no cell was being recorded."""
        with self._lock:
            if not self._open:
                return None
            active, self._active, self._open = self._active, [], False
        records = [record for record in (r.stop() for r in active) if record is not None]
        # A framework imported during the cell was not recording from its start; what it keeps anyway counts.
        records += [record for record in (r.now() for r in self.recorders.values()
                                          if r not in active and r.available()) if record is not None]
        recorded = any(record.blocks for record in records)
        self.last = group(records, cells, moment, cell=self._cell, unrecorded=unrecorded(recorded))
        return self.last

    def at_failure(self, cells: CellNames, cell: int | None) -> Sites | None:
        """The sites when a cell ran out of memory: the failing cell's recording if it was recorded, else what the
        frameworks that keep stacks anyway say is live now. None when nothing was recorded."""
        if self._open:
            return self.finish(cells, "failure")
        records: list[BlockRecord] = []
        for recorder in self.recorders.values():
            if recorder.available():
                record = recorder.now()
                if record is not None:
                    records.append(record)
        if not records:
            return None
        return group(records, cells, "failure", cell=cell, unrecorded=unrecorded())

    def unregister(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.close()

    def _cell_started(self, cell: Cell) -> None:
        try:
            self.begin(cell.execution_count)
        except Exception:  # a recording that cannot start leaves the cell alone
            self._active, self._open = [], False

    def _cell_ended(self, cell: Cell) -> None:
        try:
            self.finish(CellNames(self._shell))
        except Exception:
            self._active, self._open = [], False


def unrecorded(recorded: bool = True) -> tuple[tuple[str, Text], ...]:
    """Each loaded framework that keeps no stack for its blocks, and what it does not record; where no framework
    recorded a block (`recorded` False: none recorded, or nothing of theirs is live), the loaded libraries of no
    framework too (NumPy), whose arrays would otherwise be missing without a word."""
    frameworks = tuple((key, facts.how) for key, facts in MEMTRACE_FACTS.items()
                       if facts.recording is Recording.NEVER and key in sys.modules)
    libraries = () if recorded else tuple((key, how) for key, how in UNRECORDED_LIBRARIES.items() if key in sys.modules)
    return frameworks + libraries


_TRACER: Slot[Memtrace] = Slot("the recording of allocation sites")


def kernel_memtrace(shell: Any) -> Memtrace:
    """The kernel's memtrace, made on first use."""
    return _TRACER.get_or_make(Memtrace)


def existing_memtrace(shell: Any) -> Memtrace | None:
    return _TRACER.get()


def failure_sites(shell: Any, cell: int | None) -> tuple[Sites | None, tuple[str, ...]]:
    """For an out-of-memory report: the sites at the failure (None: nothing recorded them), and the loaded
    frameworks that would have recorded them had recording been on (the report says how to turn it on)."""
    memtrace = kernel_memtrace(shell)
    sites = memtrace.at_failure(CellNames(shell), cell)
    if sites is None and memtrace.last is not None and memtrace.last.cell == cell and cell is not None:
        sites = memtrace.last  # the failing %%memtrace cell, recorded up to its failure
    recorded = memtrace.on or (sites is not None and sites.cell == cell and sites.moment == "failure"
                             and memtrace.last is sites)
    offer = () if recorded else tuple(key for key, facts in MEMTRACE_FACTS.items()
                                      if facts.recording is Recording.WHEN_ON and key in sys.modules)
    return sites, offer
