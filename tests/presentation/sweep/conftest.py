"""A sweep result as the views get it: five points on a simulated 1 GiB GPU, one out of memory, one above the budget."""

from __future__ import annotations

import pytest

from mgenv_jupyter.sweeps._grid import Grid, Variable
from mgenv_jupyter.sweeps._point import Failure, Outcome, Phase, PointResult, Timeline
from mgenv_jupyter.sweeps._replay import LeftOut, SetupCell, SetupPlan
from mgenv_jupyter.sweeps._result import SweepResult, default_budget

GiB = 1024**3


@pytest.fixture
def swept() -> SweepResult:
    points = []
    for index, (value, seconds, peak, outcome) in enumerate([
            ("100", 0.4, 0.17, "ok"), ("300", 0.6, 0.35, "ok"), ("oom", None, None, "oom"), ("600", 0.9, 0.65, "ok"),
            ("1200", 1.2, 1.25, "ok")]):
        t = tuple(x * 0.05 for x in range(20))
        points.append(PointResult(
            index, {"SWEEP_MB": value}, {"SWEEP_MB": value}, Outcome(outcome),
            phase=None if outcome == "ok" else Phase.CELL,
            failure=None if outcome == "ok" else Failure(kind="numpy._ArrayMemoryError", framework="python"),
            runs=(seconds,) if seconds else (), peak_device_bytes=int(peak * GiB) if peak else None,
            peak_host_bytes=int((peak or 0.1) * GiB), gpu=0, simulated=True,
            kernel_values={"SWEEP_MB": value},
            timeline=Timeline(t, tuple(int((peak or 0.1) * GiB * min(1, x / 10)) for x in range(20)),
                              tuple(int(0.1 * GiB) for _ in t))))
    grid = Grid((Variable("SWEEP_MB", tuple(p.values["SWEEP_MB"] for p in points),
                          tuple(p.values["SWEEP_MB"] for p in points)),))
    setup = SetupPlan((SetupCell(1, "import os"), SetupCell(2, "import numpy as np")), True, ((3, LeftOut.FAILED),))
    return SweepResult("x = np.ones(...)", grid, setup, points, default_budget([GiB], True, None), kernel="python3",
                       slots=(0,), simulated_devices=True)
