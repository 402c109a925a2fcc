"""The Ray side without a cluster: whether the user's code connected Ray (asked without importing it), and a point run
in this process as a Ray task runs it (the cluster tier runs it as a real task: tests/ray_cluster)."""

from __future__ import annotations

import sys

import pytest

from mgenv_jupyter._kernel_state import kernel_state
from mgenv_jupyter.tuner import _child
from mgenv_jupyter.tuner._ray import ray_connected, run_point_in_process


def test_ray_not_imported_means_not_connected():
    assert "ray" not in sys.modules or not ray_connected()
    assert "ray" not in sys.modules  # asking imported nothing


@pytest.fixture
def fresh_probe(ip, monkeypatch):
    monkeypatch.setattr(kernel_state(), "sweep_probe", None)
    monkeypatch.delenv(_child.REPORT_ENV, raising=False)
    yield
    if kernel_state().sweep_probe is not None:
        kernel_state().sweep_probe.close()


def test_a_point_in_process_runs_its_setup_and_cell_and_keeps_what_it_printed(fresh_probe, monkeypatch):
    monkeypatch.setenv("SWEEP_RAY_X", "3")
    report = run_point_in_process(["import os", "base = 10"], "print('sum', base + int(os.environ['SWEEP_RAY_X']))",
                                  2, ["SWEEP_RAY_X"])
    assert [run["outcome"] for run in report["runs"]] == ["ok", "ok"]
    assert report["printed"].count("sum 13") == 2 and report["values"] == {"SWEEP_RAY_X": "3"}
    assert report["node"] is None and report["gpu"] is None  # not a Ray task here
