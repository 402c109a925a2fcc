"""`History`: every series the sampler has seen, bounded in memory however long the kernel runs.

The most recent `recent` rows are kept at full resolution. Older rows are folded into time buckets holding each
series' minimum and maximum (and the row count); when there are more than `buckets` of them, neighbours are merged
and the bucket width doubles. Storage is a few numpy arrays, never a Python object per sample, so ten million samples
cost the same memory as ten thousand.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .sample import HEADLINE_ORDER, split_key

if TYPE_CHECKING:
    import pandas

    from .cells import CellMarker

_FIRST_ROWS = 64
_STAGED_ROWS = 32


class History:
    """Samples as rows (one per sampler tick) and columns (one per series, e.g. "gpu0 process").

    `recent`: rows kept at full resolution. `buckets`: most min/max buckets kept for older rows (the bucket width
    starts at `bucket_seconds` and doubles as needed). `cells`: most cell markers kept for `per_cell()`.
    Thread-safe: the sampler appends from its thread while the notebook reads.
    """

    def __init__(self, recent: int = 6000, buckets: int = 2048, bucket_seconds: float = 1.0, cells: int = 10_000):
        if recent < 1 or buckets < 2 or bucket_seconds <= 0:
            raise ValueError("recent >= 1, buckets >= 2 and bucket_seconds > 0 are required")
        self.recent = recent
        self.max_buckets = buckets
        self._first_bucket_seconds = bucket_seconds
        self._spill = max(1, recent // 4)  # rows folded into buckets at a time, so the shift is amortised
        self._cells: deque[CellMarker] = deque(maxlen=cells)
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self.count = 0  # samples (rows) ever appended
        self.bucket_seconds = self._first_bucket_seconds
        self._keys: list[str] = []
        self._index: dict[str, int] = {}
        self._t = np.empty(0)
        self._v = np.empty((0, 0))
        self._n = 0
        self._origin: float | None = None
        self._b = np.empty(0, dtype=np.int64)  # bucket number: start = origin + b × bucket_seconds
        self._bmin = np.empty((0, 0))
        self._bmax = np.empty((0, 0))
        self._bcount = np.empty(0, dtype=np.int64)
        self._nb = 0
        self._staged: list[tuple[float, Mapping[str, float]]] = []

    # ---- writing -------------------------------------------------------------------------------------------------

    def append(self, t: float, row: Mapping[str, float]) -> None:
        """Add one row: `t` in seconds since the epoch, `row` maps series keys to values (missing ones are NaN)."""
        with self._lock:
            self._staged.append((t, row))
            self.count += 1
            if len(self._staged) >= _STAGED_ROWS:
                self._commit()

    def extend(self, times: Any, columns: Mapping[str, Any]) -> None:
        """Add many rows at once: `times` (k,) and, per series key, k values (NaN where missing). Times must not go
        backwards. This is the bulk path for imports and benchmarks; it costs O(k) with no per-row Python work."""
        times = np.asarray(times, dtype=np.float64)
        k = len(times)
        if k == 0:
            return
        with self._lock:
            self._commit()
            block = np.full((k, len(self._keys) + len(columns)), np.nan)
            for key, values in columns.items():
                block[:, self._column(key)] = values
            self._append_block(times, block[:, : len(self._keys)])
            self.count += k

    def add_cell(self, marker: CellMarker) -> None:
        with self._lock:
            self._cells.append(marker)

    def clear(self) -> None:
        """Forget every sample and cell marker."""
        with self._lock:
            self._reset()
            self._cells.clear()

    # ---- reading -------------------------------------------------------------------------------------------------

    @property
    def series(self) -> list[str]:
        with self._lock:
            self._commit()
            return list(self._keys)

    @property
    def cells(self) -> list[CellMarker]:
        with self._lock:
            return list(self._cells)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (what grows with the run; it stops growing once the buckets are full)."""
        with self._lock:
            self._commit()
            arrays = (self._t, self._v, self._b, self._bmin, self._bmax, self._bcount)
            return sum(a.nbytes for a in arrays)

    def __len__(self) -> int:
        """Rows `frame()` returns: recent rows plus one per bucket."""
        with self._lock:
            self._commit()
            return self._n + self._nb

    def latest(self) -> dict[str, float]:
        """The last known value of every series (NaN-free)."""
        with self._lock:
            self._commit()
            result = {}
            for key, column in self._index.items():
                values = self._v[: self._n, column]
                known = np.flatnonzero(~np.isnan(values))
                if len(known):
                    result[key] = float(values[known[-1]])
                elif self._nb and not np.isnan(self._bmax[self._nb - 1, column]):
                    result[key] = float(self._bmax[self._nb - 1, column])
            return result

    def frame(self, older: str = "max") -> pandas.DataFrame:
        """All of it as a DataFrame: a DatetimeIndex (UTC, naive, like the rest of mgenv_jupyter) and a column per
        series, in bytes. Rows older than the recent window are one per bucket, at the bucket's start, holding the
        bucket's maximum (`older="max"`, what matters for memory) or minimum (`older="min"`); `buckets()` has both.
        `frame().attrs["full_resolution_from"]` is the time from which rows are individual samples."""
        import pandas

        if older not in ("max", "min"):
            raise ValueError("older is 'max' or 'min'")
        with self._lock:
            self._commit()
            bucket_values = self._bmax if older == "max" else self._bmin
            times = np.concatenate([self._bucket_starts(), self._t[: self._n]])
            values = np.concatenate([bucket_values[: self._nb], self._v[: self._n]])
            frame = pandas.DataFrame(values, index=pandas.to_datetime(times, unit="s"), columns=list(self._keys))
            frame.index.name = "time"
            frame.attrs["full_resolution_from"] = pandas.to_datetime(self._t[0], unit="s") if self._n else None
            frame.attrs["bucket_seconds"] = self.bucket_seconds
        return frame

    def buckets(self) -> pandas.DataFrame:
        """The downsampled past: per bucket (indexed by its start) each series' min and max, and ("rows", "") the
        number of samples folded into it."""
        import pandas

        with self._lock:
            self._commit()
            index = pandas.to_datetime(self._bucket_starts(), unit="s")
            parts = {(key, "min"): self._bmin[: self._nb, i] for i, key in enumerate(self._keys)}
            parts.update({(key, "max"): self._bmax[: self._nb, i] for i, key in enumerate(self._keys)})
            frame = pandas.DataFrame(parts, index=index)
            frame = frame.reindex(columns=pandas.MultiIndex.from_product([self._keys, ["min", "max"]]))
            frame[("rows", "")] = self._bcount[: self._nb]
            frame.index.name = "bucket_start"
        return frame

    def per_cell(self) -> pandas.DataFrame:
        """One row per finished cell and device: the device's headline series (the kernel's own memory when known,
        else the allocator's, else the device's), its value before and after the cell, the change and the peak
        during the cell. Before/after are the nearest samples outside the cell; for cells older than the recent
        window they come from bucket maxima (approximate)."""
        import pandas

        columns = ["cell", "device", "series", "start", "duration_s", "before", "after", "delta", "peak", "ok"]
        rows = []
        with self._lock:
            self._commit()
            headlines = _headlines(self._keys)
            for marker in self._cells:
                end = marker.end if marker.end is not None else marker.start
                for device, key in headlines.items():
                    before = self._value_near(key, marker.start, after=False)
                    after = self._value_near(key, end, after=True)
                    seen = [v for v in (marker.peak.get(key), before, after) if v is not None]
                    rows.append({
                        "cell": marker.cell, "device": device, "series": key,
                        "start": pandas.to_datetime(marker.start, unit="s"), "duration_s": marker.duration,
                        "before": before, "after": after,
                        "delta": None if before is None or after is None else after - before,
                        "peak": max(seen) if seen else None, "ok": marker.ok,
                    })
        return pandas.DataFrame(rows, columns=columns)

    # ---- storage -------------------------------------------------------------------------------------------------

    @property
    def _capacity(self) -> int:
        return self.recent + self._spill

    def _column(self, key: str) -> int:
        column = self._index.get(key)
        if column is None:
            column = self._index[key] = len(self._keys)
            self._keys.append(key)
            self._v = _with_nan_column(self._v)
            self._bmin = _with_nan_column(self._bmin)
            self._bmax = _with_nan_column(self._bmax)
        return column

    def _reserve(self, rows: int) -> None:
        if rows <= len(self._t):
            return
        size = min(self._capacity, max(rows, _FIRST_ROWS, 2 * len(self._t)))
        t, v = np.empty(size), np.empty((size, len(self._keys)))
        t[: self._n], v[: self._n] = self._t[: self._n], self._v[: self._n]
        self._t, self._v = t, v

    def _commit(self) -> None:
        """Move staged rows into the arrays. Rows are staged so that a sample costs no numpy call of its own."""
        if not self._staged:
            return
        staged, self._staged = self._staged, []
        for _, row in staged:
            for key in row:
                if key not in self._index:
                    self._column(key)
        keys = self._keys
        nan = float("nan")
        times = np.array([t for t, _ in staged], dtype=np.float64)
        block = np.array([[row.get(key, nan) for key in keys] for _, row in staged], dtype=np.float64)
        self._append_block(times, block.reshape(len(staged), len(keys)))

    def _append_block(self, times: np.ndarray, block: np.ndarray) -> None:
        """Append rows; when the window is full, fold the oldest into buckets so that `recent` rows remain."""
        if self._n + len(times) > self._capacity:
            evict = self._n + len(times) - self.recent
            from_buffer = min(self._n, evict)
            self._fold(self._t[:from_buffer], self._v[:from_buffer])
            from_block = evict - from_buffer
            self._fold(times[:from_block], block[:from_block])
            times, block = times[from_block:], block[from_block:]
            kept = self._n - from_buffer
            self._t[:kept] = self._t[from_buffer:self._n]  # numpy copes with the overlap
            self._v[:kept] = self._v[from_buffer:self._n]
            self._n = kept
        total = self._n + len(times)
        self._reserve(total)
        self._t[self._n:total] = times
        self._v[self._n:total] = block
        self._n = total

    def _fold(self, times: np.ndarray, values: np.ndarray) -> None:
        """Fold rows (in time order) into min/max buckets."""
        if len(times) == 0:
            return
        if self._origin is None:
            self._origin = float(times[0])
        numbers = np.floor((times - self._origin) / self.bucket_seconds).astype(np.int64)
        numbers, mins, maxs, counts = _runs(numbers, values, values, np.ones(len(numbers), dtype=np.int64))
        last = self._nb - 1
        if last >= 0 and numbers[0] == self._b[last]:
            self._bmin[last] = np.fmin(self._bmin[last], mins[0])
            self._bmax[last] = np.fmax(self._bmax[last], maxs[0])
            self._bcount[last] += counts[0]
            numbers, mins, maxs, counts = numbers[1:], mins[1:], maxs[1:], counts[1:]
        self._put_buckets(numbers, mins, maxs, counts)
        while self._nb > self.max_buckets:
            self._coarsen()

    def _put_buckets(self, numbers: np.ndarray, mins: np.ndarray, maxs: np.ndarray, counts: np.ndarray) -> None:
        new = self._nb + len(numbers)
        if new > len(self._b):
            size = max(new, 2 * len(self._b), 16)
            self._b = _resized(self._b, size)
            self._bmin, self._bmax = _resized(self._bmin, size), _resized(self._bmax, size)
            self._bcount = _resized(self._bcount, size)
        self._b[self._nb:new], self._bmin[self._nb:new], self._bmax[self._nb:new] = numbers, mins, maxs
        self._bcount[self._nb:new] = counts
        self._nb = new

    def _coarsen(self) -> None:
        """Halve the resolution of the past: merge neighbouring buckets and double the width."""
        n = self._nb
        self.bucket_seconds *= 2
        numbers, mins, maxs, counts = _runs(self._b[:n] // 2, self._bmin[:n], self._bmax[:n], self._bcount[:n])
        self._nb = 0
        self._put_buckets(numbers, mins, maxs, counts)

    def _bucket_starts(self) -> np.ndarray:
        if self._origin is None:
            return np.empty(0)
        return self._origin + self._b[: self._nb] * self.bucket_seconds

    def _value_near(self, key: str, t: float, after: bool) -> float | None:
        """The nearest known value of `key` at or after `t` (or at or before it)."""
        column = self._index[key]
        times, values = self._t[: self._n], self._v[: self._n, column]
        if after:
            candidates = np.flatnonzero((times >= t) & ~np.isnan(values))
            if len(candidates):
                return float(values[candidates[0]])
            known = np.flatnonzero(~np.isnan(values))
            return float(values[known[-1]]) if len(known) else None  # the cell just ended: the latest value
        candidates = np.flatnonzero((times <= t) & ~np.isnan(values))
        if len(candidates):
            return float(values[candidates[-1]])
        starts = self._bucket_starts()
        older = np.flatnonzero((starts <= t) & ~np.isnan(self._bmax[: self._nb, column]))
        return float(self._bmax[older[-1], column]) if len(older) else None


def _runs(numbers: np.ndarray, mins: np.ndarray, maxs: np.ndarray, counts: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Merge consecutive rows with the same bucket number: min of mins, max of maxes, sum of counts."""
    starts = np.concatenate([[0], np.flatnonzero(np.diff(numbers)) + 1])
    if mins.shape[1] == 0:  # no series yet: reduceat needs something to reduce
        empty = np.empty((len(starts), 0))
        return numbers[starts], empty, empty.copy(), np.add.reduceat(counts, starts)
    return (numbers[starts], np.fmin.reduceat(mins, starts, axis=0), np.fmax.reduceat(maxs, starts, axis=0),
            np.add.reduceat(counts, starts))


def _with_nan_column(array: np.ndarray) -> np.ndarray:
    return np.concatenate([array, np.full((len(array), 1), np.nan)], axis=1)


def _resized(array: np.ndarray, rows: int) -> np.ndarray:
    out = np.empty((rows, *array.shape[1:]), dtype=array.dtype)
    out[: len(array)] = array
    return out


def _headlines(keys: Iterable[str]) -> dict[str, str]:
    """device → the series that stands for it."""
    by_device: dict[str, dict[str, str]] = {}
    for key in keys:
        device, quantity = split_key(key)
        by_device.setdefault(device, {})[quantity] = key
    result = {}
    for device, quantities in by_device.items():
        for quantity in HEADLINE_ORDER:
            if quantity in quantities:
                result[device] = quantities[quantity]
                break
    return result
