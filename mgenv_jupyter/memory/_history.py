"""`History`: every series the sampler has seen, bounded in memory however long the kernel runs.

The most recent `recent` rows are kept at full resolution. Older rows are folded into time buckets holding each
series' minimum and maximum (and the row count); when there are more than `buckets` of them, neighbours are merged
and the bucket width doubles. Storage is the standard library's `array` (one float64 column per series), never a
Python object per sample, so ten million samples cost the same memory as ten thousand.

No numpy and no pandas here until something asks for a DataFrame (`frame()`, `buckets()`) or hands over many rows as
arrays (`extend`): the out-of-memory recorder appends to the kernel's history from `%load_ext` on, and the chart's
first message and the out-of-memory report read it as plain lists (`window()`, `points()`).
"""

from __future__ import annotations

import math
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import numpy as np
    import pandas

_FIRST_ROWS = 64
_FIRST_BUCKETS = 16
_NAN = float("nan")


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
        # The recent window: row times and one column of values per series, float64 arrays of one length (grown by
        # doubling up to `_capacity`); `_rows` of their rows are in use. NaN: the series was not read in that row.
        self._times = array("d")
        self._columns: list[array[float]] = []
        self._rows = 0
        # The downsampled past: per bucket its number (start = origin + number × bucket_seconds), each series'
        # minimum and maximum, and how many samples were folded into it; `_bucket_count` of them are in use.
        self._origin: float | None = None
        self._bucket_numbers = array("q")
        self._bucket_mins: list[array[float]] = []
        self._bucket_maxs: list[array[float]] = []
        self._bucket_rows = array("q")
        self._bucket_count = 0

    # ---- writing -------------------------------------------------------------------------------------------------

    def append(self, t: float, row: Mapping[str, float]) -> None:
        """Add one row: `t` in seconds since the epoch, `row` maps series keys to values (missing ones are NaN)."""
        with self._lock:
            for key in row:
                if key not in self._index:
                    self._column(key)
            if self._rows == len(self._times):
                self._make_room(1)
            at = self._rows
            self._times[at] = t
            for key, column in zip(self._keys, self._columns, strict=True):
                column[at] = row.get(key, _NAN)
            self._rows = at + 1
            self.count += 1

    def extend(self, times: Any, columns: Mapping[str, Any]) -> None:
        """Add many rows at once: `times` (k,) and, per series key, k values (NaN where missing). Times must not go
        backwards. This is the bulk path for imports and benchmarks (it uses numpy); it costs O(k) with no per-row
        Python work."""
        import numpy as np

        times = np.asarray(times, dtype=np.float64)
        k = len(times)
        if k == 0:
            return
        with self._lock:
            for key in columns:
                self._column(key)
            block = np.full((k, len(self._keys)), np.nan)
            for key, values in columns.items():
                block[:, self._index[key]] = values
            if self._rows + k > self._capacity:  # fold the oldest rows so that `recent` remain, the window's first
                evict = self._rows + k - self.recent
                from_window = min(self._rows, evict)
                self._fold_window(from_window, bulk=True)
                from_block = evict - from_window
                if from_block:
                    self._fold_block(times[:from_block], block[:from_block])
                    times, block = times[from_block:], block[from_block:]
            at, end = self._rows, self._rows + len(times)
            self._reserve(end)
            self._times[at:end] = array("d", times.tobytes())
            for i, column in enumerate(self._columns):
                column[at:end] = array("d", np.ascontiguousarray(block[:, i]).tobytes())
            self._rows = end
            self.count += k

    def clear(self) -> None:
        """Forget every sample."""
        with self._lock:
            self._reset()

    # ---- reading -------------------------------------------------------------------------------------------------

    @property
    def series(self) -> list[str]:
        with self._lock:
            return list(self._keys)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (what grows with the run; it stops growing once the buckets are full)."""
        with self._lock:
            arrays: tuple[array[Any], ...] = (self._times, self._bucket_numbers, self._bucket_rows, *self._columns,
                                              *self._bucket_mins, *self._bucket_maxs)
            return sum(a.itemsize * len(a) for a in arrays)

    def __len__(self) -> int:
        """Rows `frame()` returns: recent rows plus one per bucket."""
        with self._lock:
            return self._rows + self._bucket_count

    def latest(self) -> dict[str, float]:
        """The last known value of every series (NaN-free)."""
        with self._lock:
            result = {}
            last_bucket = self._bucket_count - 1
            for key, i in self._index.items():
                value = _last_known(self._columns[i], self._rows)
                if value is None and last_bucket >= 0:  # every row of it was folded: the newest bucket's maximum
                    value = _known(self._bucket_maxs[i][last_bucket])
                if value is not None:
                    result[key] = value
            return result

    def window(self) -> tuple[list[float], dict[str, list[float | None]]]:
        """The recent window as plain lists: row times (seconds since the epoch) and, per series, its values (None
        where the series was not read in that row). What a chart's first message needs, without numpy."""
        with self._lock:
            rows = self._rows
            columns = {key: self._columns[i][:rows].tolist() for key, i in self._index.items()}
            return self._times[:rows].tolist(), {
                key: [None if v != v else v for v in values] for key, values in columns.items()}

    def past(self) -> tuple[list[float], dict[str, list[float | None]]]:
        """The downsampled past, before the recent window, as plain lists: one row per bucket at its start, each
        series' maximum in it (None where it had none), so that a chart opened late can still show everything since
        the first sample, its peaks kept."""
        with self._lock:
            if self._origin is None:
                return [], {}
            origin, width, count = self._origin, self.bucket_seconds, self._bucket_count
            times = [origin + number * width for number in self._bucket_numbers[:count]]
            return times, {key: [None if v != v else v for v in self._bucket_maxs[i][:count].tolist()]
                           for key, i in self._index.items()}

    def points(self, key: str, since: float = -math.inf, older: str = "max") -> list[tuple[float, float]]:
        """`key`'s known values from `since` on, oldest first, as (time, value) pairs: one per bucket (at its start,
        its maximum or, `older="min"`, minimum) for the downsampled past, then every sample of the recent window.
        What the out-of-memory report's timeline needs, without numpy."""
        if older not in ("max", "min"):
            raise ValueError("older is 'max' or 'min'")
        with self._lock:
            i = self._index.get(key)
            if i is None:
                return []
            result = []
            if self._origin is not None:
                origin, width = self._origin, self.bucket_seconds
                extremes = (self._bucket_maxs if older == "max" else self._bucket_mins)[i]
                for b in range(self._bucket_count):
                    start, value = origin + self._bucket_numbers[b] * width, extremes[b]
                    if start >= since and value == value:
                        result.append((start, value))
            times, column = self._times, self._columns[i]
            for at in range(bisect_left(times, since, 0, self._rows), self._rows):
                value = column[at]
                if value == value:
                    result.append((times[at], value))
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
        import numpy as np
        import pandas

        if older not in ("max", "min"):
            raise ValueError("older is 'max' or 'min'")
        with self._lock:
            arrays = self._arrays()
            bucket_values = arrays.bucket_maxs if older == "max" else arrays.bucket_mins
            times = np.concatenate([arrays.bucket_starts, arrays.times])
            values = np.concatenate([bucket_values, arrays.values])
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
            arrays = self._arrays()
            index = pandas.to_datetime(arrays.bucket_starts, unit="s")
            parts = {(key, "min"): arrays.bucket_mins[:, i] for i, key in enumerate(self._keys)}
            parts.update({(key, "max"): arrays.bucket_maxs[:, i] for i, key in enumerate(self._keys)})
            frame = pandas.DataFrame(parts, index=index)
            frame = frame.reindex(columns=pandas.MultiIndex.from_product([self._keys, ["min", "max"]]))
            frame[("rows", "")] = arrays.bucket_rows
            frame.index.name = "bucket_start"
        return frame

    def value_near(self, key: str, t: float, after: bool) -> float | None:
        """The nearest known value of `key` at or after `t` (or at or before it); for times older than the recent
        window, the bucket maximum (approximate). None when the series has no value there."""
        with self._lock:
            return self._value_near(key, t, after)

    def _value_near(self, key: str, t: float, after: bool) -> float | None:
        i = self._index[key]
        times, column, rows = self._times, self._columns[i], self._rows
        if after:
            for at in range(bisect_left(times, t, 0, rows), rows):
                if column[at] == column[at]:
                    return column[at]
            return _last_known(column, rows)  # the cell just ended: the latest value
        for at in range(bisect_right(times, t, 0, rows) - 1, -1, -1):
            if column[at] == column[at]:
                return column[at]
        maxs = self._bucket_maxs[i]
        for b in range(self._bucket_count - 1, -1, -1):
            if self._bucket_start(b) <= t and maxs[b] == maxs[b]:
                return maxs[b]
        return None

    # ---- storage -------------------------------------------------------------------------------------------------

    @property
    def _capacity(self) -> int:
        return self.recent + self._spill

    def _column(self, key: str) -> int:
        column = self._index.get(key)
        if column is None:
            column = self._index[key] = len(self._keys)
            self._keys.append(key)
            self._columns.append(_nans(len(self._times)))
            self._bucket_mins.append(_nans(len(self._bucket_numbers)))
            self._bucket_maxs.append(_nans(len(self._bucket_numbers)))
        return column

    def _make_room(self, rows: int) -> None:
        """Room for `rows` more rows: past the capacity the oldest fold into buckets, so that `recent` remain after
        the new ones (a block of `_spill` rows at a time, so the shift is amortised)."""
        if self._rows + rows > self._capacity:
            self._fold_window(min(self._rows, self._rows + rows - self.recent))
        self._reserve(self._rows + rows)

    def _reserve(self, rows: int) -> None:
        size = len(self._times)
        if rows <= size:
            return
        grown = min(self._capacity, max(rows, _FIRST_ROWS, 2 * size))
        self._times.extend(_nans(grown - size))
        for column in self._columns:
            column.extend(_nans(grown - size))

    def _fold_window(self, n: int, bulk: bool = False) -> None:
        """Fold the window's oldest `n` rows into buckets and move the rest to the front (`bulk`: with numpy, which
        `extend` has imported anyway)."""
        if n <= 0:
            return
        if bulk:
            arrays = self._arrays(n)
            self._fold_block(arrays.times, arrays.values)
        else:
            self._put(*_runs(self._numbers(self._times[:n]), [c[:n] for c in self._columns], None, [1] * n))
        kept = self._rows - n
        self._times[:kept] = self._times[n:self._rows]
        for column in self._columns:
            column[:kept] = column[n:self._rows]
        self._rows = kept

    def _numbers(self, times: Sequence[float]) -> list[int]:
        if self._origin is None:
            self._origin = float(times[0])
        origin, width = self._origin, self.bucket_seconds
        return [math.floor((t - origin) / width) for t in times]

    def _fold_block(self, times: np.ndarray, block: np.ndarray) -> None:
        """Fold rows that arrived as arrays (`extend`) into buckets with numpy. A long block spans many buckets: the
        width doubles here as often as it would once they were added, so that few leave numpy."""
        import numpy as np

        if self._origin is None:
            self._origin = float(times[0])
        numbers = np.floor((times - self._origin) / self.bucket_seconds).astype(np.int64)
        runs = _array_runs(numbers, block, block, np.ones(len(numbers), dtype=np.int64))
        while self._bucket_count + len(runs[0]) - 1 > self.max_buckets:  # more than max even if the first merges
            self._coarsen()
            runs = _array_runs(runs[0] // 2, *runs[1:])
        numbers, mins, maxs, counts = runs
        self._put(numbers.tolist(), [mins[:, i].tolist() for i in range(mins.shape[1])],
                  [maxs[:, i].tolist() for i in range(maxs.shape[1])], counts.tolist())

    def _put(self, numbers: list[int], mins: Sequence[Sequence[float]], maxs: Sequence[Sequence[float]],
             counts: list[int]) -> None:
        """Add folded runs as buckets (the first merges into the last bucket when they share a number); past
        `max_buckets` the width doubles."""
        if not numbers:
            return
        last = self._bucket_count - 1
        if last >= 0 and numbers[0] == self._bucket_numbers[last]:
            for i in range(len(self._keys)):
                self._bucket_mins[i][last] = _fmin(self._bucket_mins[i][last], mins[i][0])
                self._bucket_maxs[i][last] = _fmax(self._bucket_maxs[i][last], maxs[i][0])
            self._bucket_rows[last] += counts[0]
            numbers, counts = numbers[1:], counts[1:]
            mins, maxs = [m[1:] for m in mins], [m[1:] for m in maxs]
        self._append_buckets(numbers, mins, maxs, counts)
        while self._bucket_count > self.max_buckets:
            self._coarsen()

    def _append_buckets(self, numbers: list[int], mins: Sequence[Sequence[float]], maxs: Sequence[Sequence[float]],
                        counts: list[int]) -> None:
        start, end = self._bucket_count, self._bucket_count + len(numbers)
        size = len(self._bucket_numbers)
        if end > size:
            grown = max(end, 2 * size, _FIRST_BUCKETS) - size
            self._bucket_numbers.extend(array("q", bytes(8 * grown)))
            self._bucket_rows.extend(array("q", bytes(8 * grown)))
            for extremes in (*self._bucket_mins, *self._bucket_maxs):
                extremes.extend(_nans(grown))
        self._bucket_numbers[start:end] = array("q", numbers)
        self._bucket_rows[start:end] = array("q", counts)
        for i in range(len(self._keys)):
            self._bucket_mins[i][start:end] = array("d", mins[i])
            self._bucket_maxs[i][start:end] = array("d", maxs[i])
        self._bucket_count = end

    def _coarsen(self) -> None:
        """Halve the resolution of the past: merge neighbouring buckets and double the width."""
        n = self._bucket_count
        self.bucket_seconds *= 2
        runs = _runs([number // 2 for number in self._bucket_numbers[:n]], [m[:n] for m in self._bucket_mins],
                     [m[:n] for m in self._bucket_maxs], self._bucket_rows[:n])
        self._bucket_count = 0
        self._append_buckets(*runs)

    def _bucket_start(self, b: int) -> float:
        assert self._origin is not None
        return self._origin + self._bucket_numbers[b] * self.bucket_seconds

    def _arrays(self, rows: int | None = None) -> _Arrays:
        """Copies of what is in use (of the window, its first `rows`), as numpy arrays, for the DataFrame builders
        and the bulk path (call with the lock held)."""
        import numpy as np

        rows, count = self._rows if rows is None else rows, self._bucket_count

        def vector(values: array[Any], n: int) -> np.ndarray:
            dtype = np.int64 if values.typecode == "q" else np.float64
            return np.frombuffer(values, dtype=dtype, count=n).copy() if n else np.empty(0, dtype=dtype)

        def matrix(columns: list[array[float]], n: int) -> np.ndarray:
            out = np.empty((n, len(columns)))
            for i, column in enumerate(columns):
                out[:, i] = vector(column, n)
            return out

        starts = (self._origin + vector(self._bucket_numbers, count) * self.bucket_seconds
                  if self._origin is not None else np.empty(0))
        return _Arrays(vector(self._times, rows), matrix(self._columns, rows), starts,
                       matrix(self._bucket_mins, count), matrix(self._bucket_maxs, count),
                       vector(self._bucket_rows, count))


class _Arrays(NamedTuple):
    """What `History` holds, as numpy arrays: the recent window (times, rows × series) and the buckets."""

    times: np.ndarray
    values: np.ndarray
    bucket_starts: np.ndarray
    bucket_mins: np.ndarray
    bucket_maxs: np.ndarray
    bucket_rows: np.ndarray


def _carried_forward(frame: pandas.DataFrame, carry: float) -> pandas.DataFrame:
    """`frame` with each series' last reading carried forward for at most `carry` seconds, as integers (`Int64`,
    <NA> where nothing is known) and the index to the millisecond."""
    import numpy as np

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
    import numpy as np
    import pandas

    missing = np.isnan(values)
    return pandas.arrays.IntegerArray(np.where(missing, 0, np.rint(values)).astype(np.int64), missing)


def _runs(numbers: Sequence[int], mins: Sequence[Sequence[float]], maxs: Sequence[Sequence[float]] | None,
          counts: Sequence[int]) -> tuple[list[int], list[list[float]], list[list[float]], list[int]]:
    """Merge consecutive rows with the same bucket number: min of mins, max of maxes (NaN ignored), sum of counts.
    `maxs` None: the rows are samples, their minimum and maximum are the value itself."""
    if maxs is None:
        maxs = mins
    if not numbers:
        return [], [[] for _ in mins], [[] for _ in maxs], []
    starts = [0, *(i for i in range(1, len(numbers)) if numbers[i] != numbers[i - 1])]
    spans = list(zip(starts, [*starts[1:], len(numbers)], strict=True))
    return ([numbers[s] for s in starts],
            [[_nanmin(column[s:e]) for s, e in spans] for column in mins],
            [[_nanmax(column[s:e]) for s, e in spans] for column in maxs],
            [sum(counts[s:e]) for s, e in spans])


def _array_runs(numbers: np.ndarray, mins: np.ndarray, maxs: np.ndarray, counts: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_runs` for numpy arrays (rows × series)."""
    import numpy as np

    starts = np.concatenate([[0], np.flatnonzero(np.diff(numbers)) + 1])
    if mins.shape[1] == 0:  # no series yet: reduceat needs something to reduce
        empty = np.empty((len(starts), 0))
        return numbers[starts], empty, empty.copy(), np.add.reduceat(counts, starts)
    return (numbers[starts], np.fmin.reduceat(mins, starts, axis=0), np.fmax.reduceat(maxs, starts, axis=0),
            np.add.reduceat(counts, starts))


def _nanmin(values: Sequence[float]) -> float:
    known = [v for v in values if v == v]
    return min(known) if known else _NAN


def _nanmax(values: Sequence[float]) -> float:
    known = [v for v in values if v == v]
    return max(known) if known else _NAN


def _fmin(a: float, b: float) -> float:
    return b if a != a else a if b != b else min(a, b)


def _fmax(a: float, b: float) -> float:
    return b if a != a else a if b != b else max(a, b)


def _known(value: float) -> float | None:
    return None if value != value else value


def _last_known(column: array[float], rows: int) -> float | None:
    for at in range(rows - 1, -1, -1):
        if column[at] == column[at]:
            return column[at]
    return None


def _nans(n: int) -> array[float]:
    return array("d", [_NAN]) * n
