"""`History`: every series the sampler has seen, bounded in memory however long the kernel runs.

The most recent `recent` rows are kept at full resolution. Older rows are folded into time buckets holding each
series' minimum and maximum (and the row count); when there are more than `buckets` of them, neighbours are merged
and the bucket width doubles. Storage is a few numpy arrays, never a Python object per sample, so ten million samples
cost the same memory as ten thousand.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas

_FIRST_ROWS = 64
_STAGED_ROWS = 32


# How long `frame()` carries a series' last reading forward: longer than the slowest cadence (5 s).
CARRY_SECONDS = 10.0


class History:
    """Samples as rows (one per sampler tick) and columns (one per series, e.g. "gpu0 process").

    `recent`: rows kept at full resolution. `buckets`: most min/max buckets kept for older rows (the bucket width
    starts at `bucket_seconds` and doubles as needed). Thread-safe: the sampler appends from its thread while the
    notebook reads. Per-cell figures are computed beside the cell markers (`cells.per_cell`).
    """

    def __init__(self, recent: int = 6000, buckets: int = 2048, bucket_seconds: float = 1.0):
        if recent < 1 or buckets < 2 or bucket_seconds <= 0:
            raise ValueError("recent >= 1, buckets >= 2 and bucket_seconds > 0 are required")
        self.recent = recent
        self.max_buckets = buckets
        self._first_bucket_seconds = bucket_seconds
        self._spill = max(1, recent // 4)  # rows folded into buckets at a time, so the shift is amortised
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self.count = 0  # samples (rows) ever appended
        self.bucket_seconds = self._first_bucket_seconds
        self._keys: list[str] = []
        self._index: dict[str, int] = {}
        # The recent window: row times, and a row × series array of values; `_rows` of them are in use.
        self._times = np.empty(0)
        self._values = np.empty((0, 0))
        self._rows = 0
        # The downsampled past: per bucket its number (start = origin + number × bucket_seconds), each series'
        # minimum and maximum, and how many samples were folded into it; `_bucket_count` of them are in use.
        self._origin: float | None = None
        self._bucket_numbers = np.empty(0, dtype=np.int64)
        self._bucket_mins = np.empty((0, 0))
        self._bucket_maxs = np.empty((0, 0))
        self._bucket_rows = np.empty(0, dtype=np.int64)
        self._bucket_count = 0
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

    def clear(self) -> None:
        """Forget every sample."""
        with self._lock:
            self._reset()

    # ---- reading -------------------------------------------------------------------------------------------------

    @property
    def series(self) -> list[str]:
        with self._lock:
            self._commit()
            return list(self._keys)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (what grows with the run; it stops growing once the buckets are full)."""
        with self._lock:
            self._commit()
            arrays = (self._times, self._values, self._bucket_numbers, self._bucket_mins, self._bucket_maxs,
                      self._bucket_rows)
            return sum(a.nbytes for a in arrays)

    def __len__(self) -> int:
        """Rows `frame()` returns: recent rows plus one per bucket."""
        with self._lock:
            self._commit()
            return self._rows + self._bucket_count

    def latest(self) -> dict[str, float]:
        """The last known value of every series (NaN-free)."""
        with self._lock:
            self._commit()
            result = {}
            for key, column in self._index.items():
                values = self._values[: self._rows, column]
                known = np.flatnonzero(~np.isnan(values))
                if len(known):
                    result[key] = float(values[known[-1]])
                elif self._bucket_count and not np.isnan(self._bucket_maxs[self._bucket_count - 1, column]):
                    result[key] = float(self._bucket_maxs[self._bucket_count - 1, column])
            return result

    def frame(self, older: str = "max", carry: float = CARRY_SECONDS) -> pandas.DataFrame:
        """All of it as a DataFrame: a DatetimeIndex (UTC, naive, like the rest of mgenv_jupyter) to the millisecond
        and a column per series, in bytes, as integers (pandas' nullable `Int64`).

        Sources are read at different rates (a device's use every sample, the process list and idle sources about
        once a second, an unchanged process list every 5 s), so a row holds, for a series not read in that tick, its
        last reading carried forward: what the series was known to be at that moment. A reading is carried for at
        most `carry` seconds, so a source that stops answering (a node lost, a framework gone) shows as missing
        (`<NA>`) after that, as does a series before its first reading; `readings()` has the rows as taken.
        Rows older than the recent window are one per bucket, at the bucket's start, holding the bucket's maximum
        (`older="max"`, what matters for memory) or minimum (`older="min"`); `buckets()` has both.
        `attrs["full_resolution_from"]` is the time from which rows are individual samples; `attrs["bytes"]` the
        columns that are sizes (all of them), which the chart's `.history` shows in binary units."""
        frame = self.readings(older)
        return _carried_forward(frame, carry)

    def readings(self, older: str = "max") -> pandas.DataFrame:
        """The rows as sampled, as floats: NaN where a series was not read in that tick (see `frame()`)."""
        import pandas

        if older not in ("max", "min"):
            raise ValueError("older is 'max' or 'min'")
        with self._lock:
            self._commit()
            bucket_values = self._bucket_maxs if older == "max" else self._bucket_mins
            times = np.concatenate([self._bucket_starts(), self._times[: self._rows]])
            values = np.concatenate([bucket_values[: self._bucket_count], self._values[: self._rows]])
            frame = pandas.DataFrame(values, index=pandas.to_datetime(times, unit="s"), columns=list(self._keys))
            frame.index.name = "time"
            frame.attrs["full_resolution_from"] = pandas.to_datetime(self._times[0], unit="s") if self._rows else None
            frame.attrs["bucket_seconds"] = self.bucket_seconds
        return frame

    def buckets(self) -> pandas.DataFrame:
        """The downsampled past: per bucket (indexed by its start) each series' min and max, and ("rows", "") the
        number of samples folded into it."""
        import pandas

        with self._lock:
            self._commit()
            index = pandas.to_datetime(self._bucket_starts(), unit="s")
            parts = {(key, "min"): self._bucket_mins[: self._bucket_count, i] for i, key in enumerate(self._keys)}
            parts.update({(key, "max"): self._bucket_maxs[: self._bucket_count, i] for i, key in enumerate(self._keys)})
            frame = pandas.DataFrame(parts, index=index)
            frame = frame.reindex(columns=pandas.MultiIndex.from_product([self._keys, ["min", "max"]]))
            frame[("rows", "")] = self._bucket_rows[: self._bucket_count]
            frame.index.name = "bucket_start"
        return frame

    def value_near(self, key: str, t: float, after: bool) -> float | None:
        """The nearest known value of `key` at or after `t` (or at or before it); for times older than the recent
        window, the bucket maximum (approximate). None when the series has no value there."""
        with self._lock:
            self._commit()
            return self._value_near(key, t, after)

    def _value_near(self, key: str, t: float, after: bool) -> float | None:
        column = self._index[key]
        times, values = self._times[: self._rows], self._values[: self._rows, column]
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
        older = np.flatnonzero((starts <= t) & ~np.isnan(self._bucket_maxs[: self._bucket_count, column]))
        return float(self._bucket_maxs[older[-1], column]) if len(older) else None

    # ---- storage -------------------------------------------------------------------------------------------------

    @property
    def _capacity(self) -> int:
        return self.recent + self._spill

    def _column(self, key: str) -> int:
        column = self._index.get(key)
        if column is None:
            column = self._index[key] = len(self._keys)
            self._keys.append(key)
            self._values = _with_nan_column(self._values)
            self._bucket_mins = _with_nan_column(self._bucket_mins)
            self._bucket_maxs = _with_nan_column(self._bucket_maxs)
        return column

    def _reserve(self, rows: int) -> None:
        if rows <= len(self._times):
            return
        size = min(self._capacity, max(rows, _FIRST_ROWS, 2 * len(self._times)))
        t, v = np.empty(size), np.empty((size, len(self._keys)))
        t[: self._rows], v[: self._rows] = self._times[: self._rows], self._values[: self._rows]
        self._times, self._values = t, v

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
        if self._rows + len(times) > self._capacity:
            evict = self._rows + len(times) - self.recent
            from_buffer = min(self._rows, evict)
            self._fold(self._times[:from_buffer], self._values[:from_buffer])
            from_block = evict - from_buffer
            self._fold(times[:from_block], block[:from_block])
            times, block = times[from_block:], block[from_block:]
            kept = self._rows - from_buffer
            self._times[:kept] = self._times[from_buffer:self._rows]  # numpy copes with the overlap
            self._values[:kept] = self._values[from_buffer:self._rows]
            self._rows = kept
        total = self._rows + len(times)
        self._reserve(total)
        self._times[self._rows:total] = times
        self._values[self._rows:total] = block
        self._rows = total

    def _fold(self, times: np.ndarray, values: np.ndarray) -> None:
        """Fold rows (in time order) into min/max buckets."""
        if len(times) == 0:
            return
        if self._origin is None:
            self._origin = float(times[0])
        numbers = np.floor((times - self._origin) / self.bucket_seconds).astype(np.int64)
        numbers, mins, maxs, counts = _runs(numbers, values, values, np.ones(len(numbers), dtype=np.int64))
        last = self._bucket_count - 1
        if last >= 0 and numbers[0] == self._bucket_numbers[last]:
            self._bucket_mins[last] = np.fmin(self._bucket_mins[last], mins[0])
            self._bucket_maxs[last] = np.fmax(self._bucket_maxs[last], maxs[0])
            self._bucket_rows[last] += counts[0]
            numbers, mins, maxs, counts = numbers[1:], mins[1:], maxs[1:], counts[1:]
        self._put_buckets(numbers, mins, maxs, counts)
        while self._bucket_count > self.max_buckets:
            self._coarsen()

    def _put_buckets(self, numbers: np.ndarray, mins: np.ndarray, maxs: np.ndarray, counts: np.ndarray) -> None:
        new = self._bucket_count + len(numbers)
        if new > len(self._bucket_numbers):
            size = max(new, 2 * len(self._bucket_numbers), 16)
            self._bucket_numbers = _resized(self._bucket_numbers, size)
            self._bucket_mins, self._bucket_maxs = _resized(self._bucket_mins, size), _resized(self._bucket_maxs, size)
            self._bucket_rows = _resized(self._bucket_rows, size)
        added = slice(self._bucket_count, new)
        self._bucket_numbers[added], self._bucket_mins[added], self._bucket_maxs[added] = numbers, mins, maxs
        self._bucket_rows[added] = counts
        self._bucket_count = new

    def _coarsen(self) -> None:
        """Halve the resolution of the past: merge neighbouring buckets and double the width."""
        n = self._bucket_count
        self.bucket_seconds *= 2
        numbers, mins, maxs, counts = _runs(self._bucket_numbers[:n] // 2, self._bucket_mins[:n],
                                            self._bucket_maxs[:n], self._bucket_rows[:n])
        self._bucket_count = 0
        self._put_buckets(numbers, mins, maxs, counts)

    def _bucket_starts(self) -> np.ndarray:
        if self._origin is None:
            return np.empty(0)
        return self._origin + self._bucket_numbers[: self._bucket_count] * self.bucket_seconds


def _carried_forward(frame: pandas.DataFrame, carry: float) -> pandas.DataFrame:
    """`frame` with each series' last reading carried forward for at most `carry` seconds, as integers (`Int64`,
    <NA> where nothing is known) and the index to the millisecond."""
    times = frame.index.asi8 / 1e9 if len(frame) else np.empty(0)
    tidy = frame.copy()
    for key in frame.columns:
        values = frame[key].to_numpy()
        known = ~np.isnan(values)
        last = np.maximum.accumulate(np.where(known, np.arange(len(values)), -1)) if len(values) else values
        reach = (last >= 0) & ~known
        filled = values.copy()
        if reach.any():
            source = last[reach]
            close = times[reach] - times[source] <= carry
            filled[np.flatnonzero(reach)[close]] = values[source[close]]
        tidy[key] = _integers(filled)
    tidy.index = frame.index.round("ms")
    tidy.attrs.update(frame.attrs, bytes=list(frame.columns))
    if tidy.attrs.get("full_resolution_from") is not None:
        tidy.attrs["full_resolution_from"] = tidy.attrs["full_resolution_from"].round("ms")
    return tidy


def _integers(values: np.ndarray) -> Any:
    import pandas

    missing = np.isnan(values)
    return pandas.arrays.IntegerArray(np.where(missing, 0, np.rint(values)).astype(np.int64), missing)


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
