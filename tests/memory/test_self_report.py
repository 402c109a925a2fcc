"""A kernel's own report of what it holds on each GPU, for its server when NVML cannot attribute it: only the GPUs
NVML gives no figure of the kernel's own for, the framework allocators' reserved bytes, written whole, read back
bounded and field by field, stale reports ignored, the file removed when no longer needed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from mgenv_jupyter.memory._self_report import SelfReport, own_figures, read_report, report_path

GiB = 1024**3


def batch(columns: dict[str, list[int | None]]) -> dict:
    return {"type": "memory.batch", "seq": 1, "interval": 1.0, "t": [0.0, 1.0], "columns": columns, "cells": []}


def test_only_gpus_nvml_cannot_attribute_are_reported_from_the_allocators():
    figures = own_figures(batch({
        "gpu0 (simulated) used": [10 * GiB, 10 * GiB],
        "gpu0 (simulated) process": [2 * GiB, None],  # NVML knows gpu0's figure: not reported
        "torch gpu0 reserved": [GiB, GiB],
        "torch gpu1 reserved": [3 * GiB, 4 * GiB],
        "paddle gpu1 reserved": [None, GiB],
        "torch gpu1 allocated": [GiB, GiB],
    }))
    assert figures == {1: (5 * GiB, "torch+paddle")}
    assert own_figures(batch({"gpu0 used": [GiB, GiB]})) is None


def test_a_report_is_written_whole_and_read_back_and_removed_when_nvml_knows_again(tmp_path: Path):
    reporter = SelfReport(str(tmp_path), interval=0)
    reporter(batch({"torch gpu0 reserved": [3 * GiB, 3 * GiB]}))
    path = report_path(tmp_path, os.getpid())
    assert json.loads(path.read_text())["devices"] == {"0": {"bytes": 3 * GiB, "source": "torch"}}
    assert read_report(tmp_path, os.getpid()) == {0: 3 * GiB}
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
    reporter(batch({"gpu0 process": [GiB, GiB], "torch gpu0 reserved": [3 * GiB, 3 * GiB]}))
    assert not path.exists()


def test_stale_foreign_or_malformed_reports_are_not_read(tmp_path: Path):
    path = report_path(tmp_path, 4242)
    good = {"v": 1, "pid": 4242, "time": time.time(), "devices": {"0": {"bytes": GiB, "source": "torch"}}}
    path.write_text(json.dumps(good))
    assert read_report(tmp_path, 4242) == {0: GiB}
    assert read_report(tmp_path, 4242, now=time.time() + 60) is None
    for bad in ({**good, "pid": 1}, {**good, "v": 2}, {**good, "devices": {"x": {"bytes": 1}}},
                {**good, "devices": {"0": {"bytes": -1}}}, {**good, "devices": []}, [1, 2]):
        path.write_text(json.dumps(bad))
        assert read_report(tmp_path, 4242) is None, bad
    path.write_text("{" * 100_000)
    assert read_report(tmp_path, 4242) is None
    assert read_report(tmp_path, 4243) is None
