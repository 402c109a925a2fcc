"""Cell markers and the per-cell table (mgenv_jupyter/memory/_cells.py)."""

from __future__ import annotations

import pandas as pd
import pytest
from node_series import NODE, kernels_sampler

from mgenv_jupyter.memory._cells import CellMarker, CellTracker, per_cell
from mgenv_jupyter.memory._history import History
from mgenv_jupyter.memory._sample import DeviceId

GiB = 1024**3


def test_per_cell_table_has_peak_and_delta_per_device():
    history = History()
    for i, (kernel, used) in enumerate([(1, 10), (1, 10), (5, 14), (9, 18), (3, 12), (3, 12)]):
        history.append(100.0 + i, {"gpu0 process": kernel * GiB, "gpu0 used": used * GiB, "host process": 100})
    marker = CellMarker(7, start=101.5, end=104.5, ok=True, peak={"gpu0 process": 9 * GiB})
    series = [DeviceId("gpu0").series("process", "nvml"), DeviceId("gpu0").series("used", "nvml"),
              DeviceId("host").series("process", "host")]
    table = per_cell(history, [marker], series)
    assert set(table["device"]) == {"gpu0", "host"}
    row = table[table["device"] == "gpu0"].iloc[0]
    assert row["series"] == "gpu0 process"  # the kernel's own memory stands for the device
    assert (row["cell"], row["before"], row["after"], row["delta"], row["peak"]) == (7, GiB, 3 * GiB, 2 * GiB, 9 * GiB)
    assert row["duration_s"] == pytest.approx(3.0) and bool(row["ok"])


def test_the_tracker_keeps_finished_cells_with_their_peaks():
    clock = iter([10.0, 12.5, 20.0, 21.0])
    tracker = CellTracker(clock=lambda: next(clock), keep=1)
    tracker.start(1)
    tracker.observe({"gpu0 process": 5.0})
    tracker.observe({"gpu0 process": 3.0})
    first = tracker.finish(ok=True)
    assert first == CellMarker(1, 10.0, 12.5, True, {"gpu0 process": 5.0})
    tracker.start(2)
    tracker.finish(ok=False)
    assert [m.cell for m in tracker.markers] == [2]  # bounded: only `keep` are kept
    assert [m.cell for m in tracker.drain()] == [1, 1, 2, 2]  # each cell when it starts and when it ends


def test_a_cells_start_and_end_carry_its_own_number(ip):
    """The start marker is numbered before IPython says the number (post_run_cell does): both must be In [n]."""
    tracker = CellTracker()
    tracker.register(ip)
    try:
        for _ in range(3):
            ip.run_cell("x = 1", store_history=True)
            number = ip.execution_count - 1
            changed = tracker.drain()
            assert [(m.cell, m.end is None) for m in changed] == [(number, True), (number, False)]
    finally:
        tracker.unregister()


def test_per_cell_sizes_are_integer_bytes_and_times_are_to_the_millisecond():
    history = History()
    history.append(100.0, {"gpu0 process": 3 * GiB + 1})
    history.append(102.0, {"gpu0 process": 4 * GiB})
    table = per_cell(history, [CellMarker(3, start=100.5004, end=101.7502, ok=True)],
                     [DeviceId("gpu0").series("process", "nvml")])
    assert all(str(table[column].dtype) == "Int64" for column in ("before", "after", "delta", "peak"))
    assert table["before"].iloc[0] == 3 * GiB + 1 and table["delta"].iloc[0] == GiB - 1
    assert table["start"].iloc[0] == pd.Timestamp(100.5, unit="s") and table["duration_s"].iloc[0] == 1.25
    assert table.attrs["bytes"] == ["before", "after", "delta", "peak"]


def test_each_devices_headline_series_is_chosen_by_its_fields():
    with kernels_sampler() as sampler:
        sampler.cells.start(1)
        sampler.sample_once()
        sampler.cells.finish(1)
        table = sampler.per_cell()
    headlines = dict(zip(table["device"], table["series"], strict=True))
    assert {device: headlines[device] for device in headlines if device != "host"} == {
        "gpu0 (simulated)": "gpu0 (simulated) process", "torch gpu0": "torch gpu0 allocated",
        f"{NODE} gpu1": f"{NODE} gpu1 process", f"{NODE} torch gpu1": f"{NODE} torch gpu1 allocated"}
