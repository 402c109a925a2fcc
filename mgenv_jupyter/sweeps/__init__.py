"""The tuner: one cell run under several settings, each point in a fresh kernel, compared by time, peak memory and
failures (`%%envsweep`, `mgenv_jupyter.sweep(...)`).

    result = run_sweep(code, {"MEGENGINE_DTR_EVICTION_THRESHOLD": ["2GB", "4GB"]}, setup, session=session())
    result.frame()      # one row a point: the values, outcome, seconds, peak_device_bytes, peak_host_bytes
    result.best         # the fastest point whose peak fits the budget (None, and result.choice says why)
    result.apply()      # the best values through the session; import-time ones to the notebook profile

A domain beside `oom/` and `cluster/`: it knows points, kernels and figures; how a result looks is presentation's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base._lazy_names import lazy_names

if TYPE_CHECKING:
    from ._point import Outcome, PointResult
    from ._replay import SetupPlan, given_setup, replay_plan
    from ._result import Budget, Choice, SweepResult, last_sweep
    from ._run import run_sweep

__all__ = ["Budget", "Choice", "Outcome", "PointResult", "SetupPlan", "SweepResult", "given_setup", "last_sweep",
           "replay_plan", "run_sweep"]

__getattr__, __dir__ = lazy_names(__name__, {
    "Outcome": "_point", "PointResult": "_point", "SetupPlan": "_replay", "given_setup": "_replay",
    "replay_plan": "_replay", "Budget": "_result", "Choice": "_result", "SweepResult": "_result",
    "last_sweep": "_result", "run_sweep": "_run"}, globals())
