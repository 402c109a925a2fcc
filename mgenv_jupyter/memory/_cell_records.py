"""Each cell's memory, for the notebook to keep: when a cell finishes, its peak and what it kept (the memory held
after it against before it) per device and on the host, and — when running the same cell again keeps more memory
each time — a leak, with the variables that grew (the holders walk after each run, diffed).

`CellRecords.register(shell)` follows the shell's user cells (memory/_cell_events.py says which runs are): one fresh
sample of the kernel's sampler before and after each cell (the peak is the highest of those and the samples taken
while it ran, `memory/_cells.py`, whose marker of the cell is closed before the record is made: `Order`); the records
go to every observer (the cells' comm, which the front end writes into the cell's metadata) and a leak to `show` (the
note under the cell). Cells are told apart by the id the front end gives them (IPython's `cell_id`): a plain IPython
shell gives none, and then no leak is followed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._cell_events import Cell, CellSubscription, Order, cell_follower
from ._cells import headline_series

if TYPE_CHECKING:
    from ..protocol import SeriesInfo
    from ._holders import Holders
    from ._sampler import Sampler

log = logging.getLogger(__name__)

LEAK_RUNS = 3  # consecutive runs of one cell, each keeping more: a leak
LEAK_MIN_BYTES = 16 << 20  # what a run must keep on a device to count as growing (allocator noise stays below)
MAX_CELLS = 500  # cells whose runs are remembered (the oldest forgotten first)
MAX_GREW = 10  # variables named in a leak


@dataclass(frozen=True)
class DeviceRecord:
    """One device's figures for a cell, in bytes (None: no reading): the highest sample while it ran, the memory
    before and after it, and what it kept (after − before)."""

    device: str
    peak: int | None
    before: int | None
    after: int | None

    @property
    def kept(self) -> int | None:
        return None if self.before is None or self.after is None else self.after - self.before

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device, "peak": self.peak, "kept": self.kept, "before": self.before,
                "after": self.after}


@dataclass(frozen=True)
class Leak:
    """A cell that kept more memory on `device` in each of its last `runs` runs (`kept`, oldest first), and the
    variables that grew over those runs by how many bytes (largest first; from the holders walk after each run)."""

    device: str
    runs: int
    kept: tuple[int, ...]
    grew: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device, "runs": self.runs, "kept": list(self.kept),
                "grew": [{"name": name, "bytes": size} for name, size in self.grew]}


@dataclass(frozen=True)
class CellRecord:
    """A finished cell's memory: its id (the front end's, None without one) and number, when it ended, how long it
    ran, each device's figures (the host's included), whether the GPU figures are the simulated device's, and the
    leak it shows, if any."""

    cell_id: str | None
    execution_count: int | None
    time: float
    duration: float
    devices: tuple[DeviceRecord, ...]
    ok: bool = True
    simulated: bool = False
    leak: Leak | None = None


@dataclass
class _Runs:
    kept: deque[dict[str, int]] = field(default_factory=lambda: deque(maxlen=LEAK_RUNS))
    after: deque[dict[str, int]] = field(default_factory=lambda: deque(maxlen=LEAK_RUNS))
    walks: deque[dict[str, int] | None] = field(default_factory=lambda: deque(maxlen=LEAK_RUNS))


class CellRecords:
    """Follows a shell's cells and makes a `CellRecord` of each (see the module's docstring). `sampler` gives the
    kernel's sampler; `walk` the holders walk (run after a cell that kept LEAK_MIN_BYTES or more)."""

    def __init__(self, sampler: Callable[[], Sampler], walk: Callable[[], Holders] | None = None,
                 show: Callable[[CellRecord], None] | None = None) -> None:
        self._sampler = sampler
        self._walk = walk
        self._show = show
        self._observers: list[Callable[[CellRecord], None]] = []
        self._subscription: CellSubscription | None = None
        self._before: dict[str, int] = {}
        self._before_series: list[SeriesInfo] = []  # its series' fields, from the sampler that took it
        self._runs: dict[str, _Runs] = {}
        self._lock = threading.Lock()
        self.last: CellRecord | None = None

    # ---- hooks ---------------------------------------------------------------------------------------------------

    def register(self, shell: Any) -> None:
        """Follow `shell`'s cells (the cell running now, the one loading the extension, is recorded when it ends,
        without a figure from before it)."""
        follower = cell_follower(shell)
        if follower is not None and (self._subscription is None or self._subscription.closed):
            self._subscription = follower.subscribe(Order.RECORDS, started=self._cell_started, ended=self._cell_ended)

    def unregister(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.close()

    def observe(self, callback: Callable[[CellRecord], None]) -> None:
        with self._lock:
            self._observers.append(callback)

    def unobserve(self, callback: Callable[[CellRecord], None]) -> None:
        with self._lock:
            if callback in self._observers:
                self._observers.remove(callback)

    def _cell_started(self, cell: Cell) -> None:
        try:
            sampler = self._sampler()
            self._before = sampler.sample_once()
            self._before_series = sampler.series_infos(self._before)
        except Exception:  # a source that fails leaves this cell without figures, never the cell itself
            log.debug("mgenv_jupyter: no sample before the cell", exc_info=True)
            self._before, self._before_series = {}, []

    def _cell_ended(self, cell: Cell) -> None:
        try:
            record = self.finish(cell)
        except Exception:
            log.exception("mgenv_jupyter could not record the cell's memory")
            return
        if record is None:
            return
        with self._lock:
            observers = list(self._observers)
        for callback in observers:
            try:
                callback(record)
            except Exception:
                log.exception("an observer of the cells' memory failed")
        if record.leak is not None and self._show is not None:
            try:
                self._show(record)
            except Exception:
                log.exception("mgenv_jupyter could not show the leak note")

    # ---- the record ----------------------------------------------------------------------------------------------

    def finish(self, cell: Cell) -> CellRecord | None:
        """The record of `cell`, which just ended; None when nothing was read."""
        sampler = self._sampler()
        after = sampler.sample_once()
        before, self._before = self._before, {}
        series, self._before_series = [*self._before_series, *sampler.series_infos(after)], []
        markers = sampler.cells.markers
        peaks: Mapping[str, float] = (markers[-1].peak if markers and markers[-1].cell == cell.execution_count
                                      else {})
        devices = []
        headlines = headline_series(series)
        for device, key in headlines.items():
            seen = [v for v in (before.get(key), after.get(key), peaks.get(key)) if v is not None]
            devices.append(DeviceRecord(device, int(max(seen)) if seen else None, before.get(key), after.get(key)))
        if not devices:
            return None
        devices.sort(key=lambda d: (d.device == "host", d.device))  # the GPUs first, the host last
        shown = set(headlines.values())
        simulated = any(info["simulated"] for info in series if info["key"] in shown)
        leak = self._follow(cell.cell_id, devices) if cell.ok else None
        record = CellRecord(cell.cell_id, cell.execution_count, cell.ended or time.time(),
                            round(cell.duration or 0.0, 3), tuple(devices), cell.ok, simulated, leak)
        self.last = record
        return record

    def _follow(self, cell_id: str | None, devices: list[DeviceRecord]) -> Leak | None:
        """Remember what this run kept, walk the holders when it kept much, and judge a leak over the last runs."""
        if cell_id is None:
            return None
        runs = self._runs.pop(cell_id, None) or _Runs()
        self._runs[cell_id] = runs  # most recent last: the oldest cell is forgotten first
        while len(self._runs) > MAX_CELLS:
            self._runs.pop(next(iter(self._runs)))
        kept = {d.device: d.kept for d in devices if d.kept is not None}
        runs.kept.append(kept)
        runs.after.append({d.device: d.after for d in devices if d.after is not None})
        grown = any(size >= LEAK_MIN_BYTES for size in kept.values())
        runs.walks.append(self._walked() if grown else None)
        if len(runs.kept) < LEAK_RUNS:
            return None
        for device in kept:
            series = [run.get(device) for run in runs.kept]
            held = [run.get(device) for run in runs.after]
            # Each run kept more, and what was held after each run grew: memory another cell gave back in between
            # breaks the streak.
            steps = zip(held, held[1:], strict=False)
            growing = all(size is not None and size >= LEAK_MIN_BYTES for size in series) and all(
                a is not None and b is not None and b - a >= LEAK_MIN_BYTES for a, b in steps)
            if growing:
                return Leak(device, LEAK_RUNS, tuple(int(s or 0) for s in series), self._grew(runs))
        return None

    def _walked(self) -> dict[str, int] | None:
        if self._walk is None:
            return None
        try:
            holders = self._walk()
        except Exception:
            log.debug("mgenv_jupyter: the holders walk failed", exc_info=True)
            return None
        return {h.name: h.bytes for h in holders.holders if not h.output_cache}

    def _grew(self, runs: _Runs) -> tuple[tuple[str, int], ...]:
        """The variables that hold more after the last run than after the first of the leaking runs."""
        first, last = runs.walks[0], runs.walks[-1]
        if first is None or last is None:
            return ()
        grew = [(name, size - first.get(name, 0)) for name, size in last.items() if size > first.get(name, 0)]
        grew.sort(key=lambda item: -item[1])
        return tuple(grew[:MAX_GREW])
