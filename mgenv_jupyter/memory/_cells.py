"""Cell markers: when each notebook cell ran, for how long, and the peak of every memory series while it ran.

`CellTracker.register(shell)` follows the shell's user cells (memory/_cell_events.py); the sampler feeds it every row
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
from ._cell_events import Cell, CellSubscription, Order, cell_follower
from ._sample import HEADLINE_ORDER, DeviceId

if TYPE_CHECKING:
    import pandas

    from ._history import History


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
    """Turns the user's cells into `CellMarker`s and keeps the finished ones (at most `keep`).

    Register it on the kernel's shell with `register(shell)`; `unregister()` ends it (do it when the chart closes, or
    the cell follower keeps the tracker alive). `start` / `finish` can also be called directly.
    """

    def __init__(self, clock: Callable[[], float] = time.time, keep: int = 10_000) -> None:
        self.clock = clock
        self._finished: deque[CellMarker] = deque(maxlen=keep)
        self._open: tuple[int, float] | None = None
        self._peak: dict[str, float] = {}
        self._changed: deque[CellMarker] = deque(maxlen=1000)  # bounded: nobody may be draining
        self._subscription: CellSubscription | None = None
        self._lock = threading.Lock()

    # ---- the user's cells ----------------------------------------------------------------------------------------

    def register(self, shell: Any) -> None:
        """Mark `shell`'s cells (nothing changes when they are marked already)."""
        follower = cell_follower(shell)
        if self._subscription is not None and not self._subscription.closed or follower is None:
            return
        self._subscription = follower.subscribe(Order.MARKERS, started=self._cell_started, ended=self._cell_ended)

    @property
    def registered(self) -> bool:
        return self._subscription is not None and not self._subscription.closed

    def unregister(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.close()

    def _cell_started(self, cell: Cell) -> None:
        self.start(cell.execution_count, at=cell.started)

    def _cell_ended(self, cell: Cell) -> None:
        with self._lock:
            unseen = self._open is None
        if unseen:  # the cell that loaded the extension: it began before anyone followed it, so open it where
            self.start(cell.execution_count, at=cell.started)  # following began, and the growth after it is seen
        self.finish(cell.execution_count, ok=cell.ok, at=cell.ended)

    # ---- markers -------------------------------------------------------------------------------------------------

    def start(self, cell: int, at: float | None = None) -> None:
        """Open cell `cell`'s marker, started `at` (seconds since the epoch; now by the clock when None)."""
        with self._lock:
            self._open = (cell, self.clock() if at is None else at)
            self._peak = {}
            self._changed.append(CellMarker(cell, self._open[1]))

    def finish(self, cell: int | None = None, ok: bool | None = True, at: float | None = None) -> CellMarker | None:
        """Close the running cell (its number is kept from `start` when `cell` is None), ended `at` (now by the clock
        when None), and record its marker."""
        with self._lock:
            if self._open is None:
                return None
            number, start = self._open
            end = self.clock() if at is None else at
            marker = CellMarker(number if cell is None else cell, start, end, ok, dict(self._peak))
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
