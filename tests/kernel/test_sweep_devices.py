"""The device path on the simulated GPU, labelled simulated: points pinned one per GPU with CUDA_VISIBLE_DEVICES, each
point's GPU memory measured in its own kernel (the `mirror-*` presets show what a process really holds in host memory
on the device it would use), the budget from the device's total, and N points on K devices in ⌈N/K⌉ rounds."""

from __future__ import annotations

import math

import pytest

from mgenv_jupyter.sweeps import given_setup, run_sweep
from mgenv_jupyter.sweeps._result import BudgetOf

SETUP = given_setup("import os, time\nimport numpy as np")
ALLOCATE = "x = np.ones(int(os.environ['SWEEP_MB']) * 2**17)\ntime.sleep(0.5)\n"


def test_each_points_gpu_memory_is_its_own_and_the_budget_is_the_devices(fresh_session, monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "mirror-1gb")
    result = run_sweep(ALLOCATE, {"SWEEP_MB": ["100", "400", "1200"]}, SETUP, session=fresh_session, timeout=120)
    frame = result.frame()
    assert result.simulated_devices and result.slots == (0,)
    assert result.budget.of is BudgetOf.DEVICE and result.budget.total == 1024**3
    # 1200 MiB is more than the 1 GiB device holds: on it the point would have run out of memory
    assert frame["outcome"].tolist() == ["ok", "ok", "oom"] and frame["gpu"].tolist() == [0, 0, 0]
    assert result.points[2].failure is not None and result.points[2].failure.over_total
    peaks = frame["peak_device_bytes"].tolist()
    # what each point's cell allocated, on top of the same kernel: 100, 400 and 1200 MiB apart (2 MiB pages)
    assert abs((peaks[1] - peaks[0]) - 300 * 2**20) < 40 * 2**20
    assert abs((peaks[2] - peaks[1]) - 800 * 2**20) < 60 * 2**20
    assert frame["fits_budget"].tolist() == [True, True, False]  # 1200 MiB does not fit a 1 GiB device
    assert result.best is not None and result.best.values["SWEEP_MB"] != "1200"
    assert all(point.simulated for point in result.points)
    assert "(simulated" in repr(_view(result))


def _view(result):
    from mgenv_jupyter.presentation.sweep import SweepView

    return SweepView(result, language="en")


@pytest.mark.parametrize("count, devices", [(5, 2)])
def test_n_points_on_k_devices_run_one_per_device_in_ceil_n_over_k_rounds(fresh_session, monkeypatch, count, devices):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "mirror-4x1gb")
    values = [str(50 + 10 * n) for n in range(count)]
    result = run_sweep("x = np.ones(int(os.environ['SWEEP_MB']) * 2**17)\ntime.sleep(3)\n", {"SWEEP_MB": values},
                       SETUP, session=fresh_session, timeout=120, parallel=devices)
    assert result.slots == (0, 1) and [p.outcome.value for p in result.points] == ["ok"] * count
    by_gpu: dict[int, list] = {}
    for point in result.points:
        assert point.gpu in (0, 1) and point.peak_device_bytes  # measured on the GPU it was pinned to
        by_gpu.setdefault(point.gpu, []).append((point.started, point.finished))
    for intervals in by_gpu.values():  # one point per GPU at a time
        intervals.sort()
        assert all(end <= next_start for (_, end), (next_start, _) in zip(intervals, intervals[1:], strict=False))
    assert sorted(len(v) for v in by_gpu.values()) == [count // devices, math.ceil(count / devices)]
    # the measured cells never overlapped more than K at once: rounds = ⌈N/K⌉
    moments = sorted([(p.started, 1) for p in result.points] + [(p.finished, -1) for p in result.points])
    running = peak = 0
    for _, change in moments:
        running += change
        peak = max(peak, running)
    assert peak == devices
