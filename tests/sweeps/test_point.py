"""A point's outcome from what its probe reported: a failed setup cell, a failed run, runs that never finished."""

from __future__ import annotations

from mgenv_jupyter.sweeps._point import Outcome, Phase, failed_point, from_report

VALUES = {"X": "1GB"}
ENVIRONMENT = {"X": "1073741824"}


def report(setup=(), runs=(), **extra) -> dict:
    return {"setup": list(setup), "runs": list(runs), "peak_host_bytes": 5, "values": ENVIRONMENT, **extra}


OK = {"seconds": 1.0, "outcome": "ok", "failure": None}


def test_every_run_finished_is_ok_with_the_median():
    point = from_report(0, VALUES, ENVIRONMENT, report(runs=[OK, {**OK, "seconds": 3.0}, {**OK, "seconds": 2.0}]),
                        repeat=3)
    assert point.outcome is Outcome.OK and point.seconds == 2.0 and point.values_held and not point.failed


def test_a_failed_setup_cell_is_the_points_error_and_says_which():
    failed = {"seconds": 0.1, "outcome": "error", "failure": {"type": "builtins.NameError", "message": "x"}}
    point = from_report(0, VALUES, ENVIRONMENT, report(setup=[OK, failed]), repeat=1)
    assert (point.outcome, point.phase, point.failure.setup_cell, point.failure.kind) == (
        Outcome.ERROR, Phase.SETUP, 1, "builtins.NameError")
    assert point.seconds is None


def test_out_of_memory_keeps_the_framework_the_report_named():
    oom = {"seconds": 0.2, "outcome": "oom", "failure": {"type": "torch.OutOfMemoryError", "framework": "torch"}}
    point = from_report(0, VALUES, ENVIRONMENT, report(runs=[OK, oom]), repeat=2)
    assert point.outcome is Outcome.OUT_OF_MEMORY and point.failure.framework == "torch" and point.failed


def test_fewer_runs_than_asked_is_not_ok():
    assert from_report(0, VALUES, ENVIRONMENT, report(runs=[OK]), repeat=2).outcome is Outcome.ERROR


def test_a_point_ended_from_outside_keeps_what_its_probe_measured_so_far():
    point = failed_point(0, VALUES, ENVIRONMENT, Outcome.TIMEOUT, Phase.CELL, report=report(runs=[OK]))
    assert point.outcome is Outcome.TIMEOUT and point.peak_host_bytes == 5 and point.kernel_values == ENVIRONMENT
    assert point.seconds is None  # a timed-out point has no time to compare


def test_a_value_the_kernel_did_not_hold_is_said():
    point = from_report(0, VALUES, ENVIRONMENT, report(values={"X": "5"}, runs=[OK]), repeat=1)
    assert not point.values_held
