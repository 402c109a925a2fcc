"""History: full resolution for the recent window, min/max buckets beyond it, bounded however long the run."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mgenv_jupyter.memory._history import History

GiB = 1024**3


def test_rows_become_a_dataframe_with_a_time_index_and_a_column_per_series():
    history = History()
    history.append(100.0, {"gpu0 used": 5, "gpu0 process": 2})
    history.append(100.1, {"gpu0 used": 6})
    history.append(100.2, {"gpu0 used": 7, "gpu0 process": 3, "megengine gpu0 allocated": 1})
    frame = history.frame()
    assert isinstance(frame.index, pd.DatetimeIndex)
    assert list(frame.columns) == ["gpu0 used", "gpu0 process", "megengine gpu0 allocated"]
    assert frame["gpu0 used"].tolist() == [5, 6, 7]
    assert np.isnan(history.readings()["gpu0 process"].iloc[1]) and frame["megengine gpu0 allocated"].iloc[2] == 1
    assert frame.index[0] == pd.Timestamp(100.0, unit="s")
    assert history.latest() == {"gpu0 used": 7, "gpu0 process": 3, "megengine gpu0 allocated": 1}


def test_older_rows_fold_into_min_max_buckets_that_keep_every_extreme():
    history = History(recent=100, buckets=8, bucket_seconds=1.0)
    times = np.arange(10_000) * 0.1
    values = 1000 + 100 * np.sin(times)
    values[1234] = 1_000_000  # a spike long out of the recent window
    values[4321] = -5
    for t, v in zip(times, values, strict=True):
        history.append(float(t), {"gpu0 used": float(v)})
    assert history.count == 10_000
    assert len(history) <= 125 + 8
    buckets = history.buckets()
    assert buckets[("gpu0 used", "max")].max() == 1_000_000
    assert buckets[("gpu0 used", "min")].min() == -5
    assert buckets[("rows", "")].sum() + history._rows == 10_000  # every row is accounted for
    frame = history.frame()
    assert frame["gpu0 used"].max() == 1_000_000
    assert frame.attrs["full_resolution_from"] >= pd.Timestamp(times[-126], unit="s")
    assert history.frame(older="min")["gpu0 used"].min() == -5
    assert frame.index.is_monotonic_increasing


def test_bulk_extend_matches_row_by_row_append():
    rng = np.random.default_rng(7)
    times = np.arange(5000, dtype=float)
    a, b = rng.random(5000), rng.random(5000)
    b[::3] = np.nan
    one, bulk = History(recent=300, buckets=16), History(recent=300, buckets=16)
    for i, t in enumerate(times):
        row = {"x": a[i]} if np.isnan(b[i]) else {"x": a[i], "y": b[i]}
        one.append(float(t), row)
    for start in range(0, 5000, 700):  # chunks larger and smaller than the window
        bulk.extend(times[start:start + 700], {"x": a[start:start + 700], "y": b[start:start + 700]})
    assert bulk.count == one.count == 5000
    # The recent window may start at a different row (row by row spills in blocks), so the newest bucket may hold
    # different rows; every older one is identical, and so is everything taken together.
    pd.testing.assert_frame_equal(one.buckets().iloc[:-1], bulk.buckets().iloc[:-1])
    assert one.readings()["x"].max() == bulk.readings()["x"].max() == a.max()
    tail = bulk.readings().loc[bulk.readings().attrs["full_resolution_from"]:]
    assert len(tail) == 300
    np.testing.assert_array_equal(tail["x"].to_numpy(), a[-300:])


def test_memory_stays_bounded_however_many_samples():
    history = History()
    chunk = 100_000
    times = np.arange(chunk, dtype=float) * 0.1
    values = {"gpu0 used": np.full(chunk, 8.0 * GiB), "gpu0 process": np.full(chunk, 2.0 * GiB)}
    sizes = []
    for i in range(40):  # 4,000,000 samples, 4.6 days at 10 Hz
        history.extend(times + i * chunk * 0.1, values)
        sizes.append(history.nbytes)
    assert history.count == 4_000_000
    assert sizes[-1] == sizes[len(sizes) // 2] and sizes[-1] < 2_000_000
    assert len(history) <= history.recent + history._spill + history.max_buckets


def test_new_series_can_appear_at_any_time():
    history = History(recent=10, buckets=4)
    for i in range(50):
        history.append(float(i), {"host process": i})
    history.append(50.0, {"host process": 50, "paddle gpu0 allocated": 7})
    frame = history.frame()
    assert frame["paddle gpu0 allocated"].count() == 1
    assert history.buckets()[("paddle gpu0 allocated", "max")].isna().all()


def test_clear_forgets_everything():
    history = History(recent=10, buckets=4)
    history.extend(np.arange(100.0), {"x": np.arange(100.0)})
    history.clear()
    assert len(history) == 0 and history.count == 0 and history.series == []
    assert history.frame().empty
    history.append(1.0, {"y": 1})
    assert history.series == ["y"]


def test_the_frame_carries_slower_sources_forward_as_integer_bytes_to_the_millisecond():
    """A user reading `chart.history.tail()` sees the last known reading of a series sampled less often (the host, the
    process list), not NaN; bytes stay integers; a series that stops is missing again after `carry` seconds."""
    history = History()
    history.append(100.0004, {"gpu0 used": 3 * GiB + 5, "host used": 7 * GiB})
    for i in range(1, 5):
        history.append(100.0004 + i / 10, {"gpu0 used": 3 * GiB + i})
    history.append(130.0, {"gpu0 used": 3 * GiB})
    frame = history.frame()
    assert str(frame["gpu0 used"].dtype) == str(frame["host used"].dtype) == "Int64"
    assert frame["host used"].iloc[:5].tolist() == [7 * GiB] * 5  # carried from its one reading
    assert frame["host used"].isna().tolist() == [False] * 5 + [True]  # 30 s later: too old to carry
    assert frame["gpu0 used"].iloc[0] == 3 * GiB + 5  # exact, never a float's rounding
    assert frame.index[0] == pd.Timestamp("1970-01-01 00:01:40")  # 100.0004 s, to the millisecond
    assert (frame.index.asi8 % 1_000_000 == 0).all()
    assert frame.attrs["bytes"] == ["gpu0 used", "host used"]
    assert frame.tail(2).attrs["bytes"] == ["gpu0 used", "host used"]
    assert history.frame(carry=0)["host used"].isna().sum() == 5  # nothing carried: the rows as read
