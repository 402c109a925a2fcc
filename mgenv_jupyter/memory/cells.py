"""Cell markers: when each notebook cell ran, for how long, and the peak of every memory series while it ran.

`CellTracker.register(shell)` hooks IPython's `pre_run_cell` / `post_run_cell` events; the sampler feeds it every row
so a cell's peak is the highest sample taken while it ran (a cell shorter than one sampling interval may have none:
its peak is then taken from the samples around it, in `History.per_cell()`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .protocol import CellInfo

if TYPE_CHECKING:
    from .history import History


@dataclass(frozen=True)
class CellMarker:
    """One executed cell: its number (`In [n]`), start and end (seconds since the epoch; end is None while it runs),
    whether it finished without an error, and the highest value of each series seen while it ran."""

    cell: int
    start: float
    end: float | None = None
    ok: bool | None = None
    peak: Mapping[str, float] = field(default_factory=dict)

    @property
    def duration(self) -> float | None:
        return None if self.end is None else self.end - self.start

    def to_json(self) -> CellInfo:
        return {"cell": self.cell, "start": round(self.start, 3),
                "end": None if self.end is None else round(self.end, 3),
                "duration": None if self.duration is None else round(self.duration, 3),
                "ok": self.ok, "peak": dict(self.peak)}


class CellTracker:
    """Turns IPython's cell events into `CellMarker`s, recorded into `history` when each cell ends.

    Register it on the kernel's shell with `register(shell)`; `unregister()` removes the hooks (do it when the chart
    closes, or the shell keeps the tracker alive). `start` / `finish` can also be called directly.
    """

    def __init__(self, history: History | None = None, clock: Callable[[], float] = time.time) -> None:
        self.history = history
        self.clock = clock
        self._open: tuple[int, float] | None = None
        self._peak: dict[str, float] = {}
        self._changed: deque[CellMarker] = deque(maxlen=1000)  # bounded: nobody may be draining
        self._shell: Any = None
        self._lock = threading.Lock()

    # ---- IPython hooks -------------------------------------------------------------------------------------------

    def register(self, shell: Any) -> None:
        """Follow `shell`'s cells. Registering again (on the same or another shell) moves the hooks."""
        if self._shell is shell:
            return
        self.unregister()
        shell.events.register("pre_run_cell", self._pre_run_cell)
        shell.events.register("post_run_cell", self._post_run_cell)
        self._shell = shell

    def unregister(self) -> None:
        shell, self._shell = self._shell, None
        if shell is None:
            return
        for event, callback in (("pre_run_cell", self._pre_run_cell), ("post_run_cell", self._post_run_cell)):
            try:
                shell.events.unregister(event, callback)
            except ValueError:  # already removed by someone else
                pass

    def _pre_run_cell(self, info: Any) -> None:
        # execution_count is already the number the cell will show as In [n] when pre_run_cell fires.
        self.start(int(getattr(self._shell, "execution_count", 0) or 0))

    def _post_run_cell(self, result: Any) -> None:
        number = getattr(result, "execution_count", None)
        self.finish(number, ok=bool(getattr(result, "success", True)))

    # ---- markers -------------------------------------------------------------------------------------------------

    def start(self, cell: int) -> None:
        with self._lock:
            self._open = (cell, self.clock())
            self._peak = {}
            self._changed.append(CellMarker(cell, self._open[1]))

    def finish(self, cell: int | None = None, ok: bool | None = True) -> CellMarker | None:
        """Close the running cell (its number is kept from `start` when `cell` is None) and record its marker."""
        with self._lock:
            if self._open is None:
                return None
            number, start = self._open
            marker = CellMarker(number if cell is None else cell, start, self.clock(), ok, dict(self._peak))
            self._open = None
            self._peak = {}
            self._changed.append(marker)
        if self.history is not None:
            self.history.add_cell(marker)
        return marker

    def observe(self, row: Mapping[str, float]) -> None:
        """Fold one sampler row into the running cell's peaks."""
        with self._lock:
            if self._open is None:
                return
            peak = self._peak
            for key, value in row.items():
                if value > peak.get(key, -1.0):
                    peak[key] = value

    @property
    def running(self) -> CellMarker | None:
        """The cell running now, with its peaks so far."""
        with self._lock:
            return None if self._open is None else CellMarker(*self._open, peak=dict(self._peak))

    def drain(self) -> list[CellMarker]:
        """Markers started or finished since the last drain, oldest first (the sampler sends them in its batches)."""
        with self._lock:
            changed = list(self._changed)
            self._changed.clear()
            return changed
