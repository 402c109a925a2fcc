"""Cell markers: when each notebook cell ran, for how long, and the peak of every memory series while it ran.

`CellTracker.register(shell)` hooks IPython's `pre_run_cell` / `post_run_cell` events; the sampler feeds it every row
so a cell's peak is the highest sample taken while it ran (a cell shorter than one sampling interval may have none:
its peak is then taken from the samples around it, by `per_cell`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..protocol import CellInfo, SeriesInfo
from ._cell_events import CellEvents
from ._sample import HEADLINE_ORDER, DeviceId

if TYPE_CHECKING:
    import pandas

    from ._history import History


def _count_ahead() -> int:
    """The first guess, before a finished cell has told: IPython 9 counts a cell before pre_run_cell."""
    try:
        from IPython import version_info
    except ImportError:
        return 0
    return 1 if version_info[0] >= 9 else 0


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


class CellTracker(CellEvents):
    """Turns IPython's cell events into `CellMarker`s and keeps the finished ones (at most `keep`).

    Register it on the kernel's shell with `register(shell)`; `unregister()` removes the hooks (do it when the chart
    closes, or the shell keeps the tracker alive). `start` / `finish` can also be called directly.
    """

    def __init__(self, clock: Callable[[], float] = time.time, keep: int = 10_000) -> None:
        self.clock = clock
        self._finished: deque[CellMarker] = deque(maxlen=keep)
        self._open: tuple[int, float] | None = None
        self._peak: dict[str, float] = {}
        self._changed: deque[CellMarker] = deque(maxlen=1000)  # bounded: nobody may be draining
        self._shell: Any = None
        self._ahead: int | None = None  # how far execution_count runs ahead of the cell's number in pre_run_cell
        self._count_at_start: int | None = None
        self._lock = threading.Lock()

    # ---- IPython hooks -------------------------------------------------------------------------------------------

    def register(self, shell: Any) -> None:
        """Follow `shell`'s cells. Registering again (on the same or another shell) moves the hooks."""
        self._hook(shell)

    def _pre_run_cell(self, info: Any) -> None:
        # The cell's In [n] is not given to pre_run_cell. IPython 9 counts the cell before firing it (execution_count
        # is already n + 1), IPython 8 after (it is n); post_run_cell's result has the true n, so each finished cell
        # tells how far the count is ahead, and the next cell's start is numbered with it. Without it, a cell's start
        # and end markers carried two numbers, drawn as two cells.
        count = int(getattr(self._shell, "execution_count", 0) or 0)
        if self._ahead is None:
            self._ahead = _count_ahead()
        self._count_at_start = count
        self.start(count - self._ahead if getattr(info, "store_history", True) else count)

    def _post_run_cell(self, result: Any) -> None:
        number = getattr(result, "execution_count", None)
        if isinstance(number, int) and self._count_at_start is not None:
            self._ahead = max(0, min(1, self._count_at_start - number))
        self._count_at_start = None
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
            self._finished.append(marker)
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
    def markers(self) -> list[CellMarker]:
        """The finished cells, oldest first."""
        with self._lock:
            return list(self._finished)

    def clear(self) -> None:
        with self._lock:
            self._finished.clear()
            self._changed.clear()

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


def per_cell(history: History, markers: Iterable[CellMarker], series: Iterable[SeriesInfo]) -> pandas.DataFrame:
    """One row per finished cell and device of `series` (the fields of the history's series, `Sampler.series_infos`):
    the device's headline series (the kernel's own memory when known, else
    the allocator's, else the device's), its value before and after the cell, the change and the peak during the
    cell. Before/after are the nearest samples outside the cell; for cells older than the recent window they come
    from bucket maxima (approximate).

    Sizes are bytes as integers (pandas' nullable `Int64`: <NA> where the series has no reading there), `start` is
    to the millisecond and `duration_s` in seconds to the millisecond; `attrs["bytes"]` names the size columns, which
    the chart's `.per_cell()` shows in binary units, and `attrs["shown"]` the columns its display shows (the others
    are named under it)."""
    import pandas

    columns = ["cell", "device", "series", "start", "duration_s", "before", "after", "delta", "peak", "ok"]
    sizes = ["before", "after", "delta", "peak"]
    rows = []
    headlines = headline_series(series)
    for marker in markers:
        end = marker.end if marker.end is not None else marker.start
        for device, key in headlines.items():
            before = history.value_near(key, marker.start, after=False)
            after = history.value_near(key, end, after=True)
            seen = [v for v in (marker.peak.get(key), before, after) if v is not None]
            rows.append({
                "cell": marker.cell, "device": device, "series": key,
                "start": pandas.to_datetime(marker.start, unit="s").round("ms"),
                "duration_s": None if marker.duration is None else round(marker.duration, 3),
                "before": before, "after": after,
                "delta": None if before is None or after is None else after - before,
                "peak": max(seen) if seen else None, "ok": marker.ok,
            })
    frame = pandas.DataFrame(rows, columns=columns)
    for column in sizes:  # whole bytes; through float only where a reading is missing, which Int64 keeps as <NA>
        # pandas keeps a missing reading (None) of a float column as NaN: missing either way.
        frame[column] = pandas.array([None if v is None or v != v else round(v) for v in frame[column].tolist()],
                                     dtype="Int64")
    frame["ok"] = frame["ok"].astype("boolean")
    frame.attrs["bytes"] = sizes
    frame.attrs["shown"] = ["cell", "device", "peak", "delta", "before", "after", "duration_s", "ok"]
    return frame


def headline_series(series: Iterable[SeriesInfo]) -> dict[str, str]:
    """Each device of `series` (by its fields), named by its label ("torch gpu0"), → the key of the series that stands
    for it."""
    by_device: dict[DeviceId, dict[str, str]] = {}
    for info in series:
        by_device.setdefault(DeviceId.of(info), {})[info["quantity"]] = info["key"]
    result = {}
    for device, quantities in by_device.items():
        for quantity in HEADLINE_ORDER:
            if quantity in quantities:
                result[device.label] = quantities[quantity]
                break
    return result
