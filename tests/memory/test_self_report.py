"""A kernel's own report of what it holds on each GPU, for its server when NVML cannot attribute it: only the GPUs
NVML gives no figure of the kernel's own for, the framework allocators' reserved bytes, written whole, read back
bounded and field by field, stale reports ignored, the file removed when no longer needed."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from node_series import Node, TorchAllocator

from mgenv_jupyter.memory._sample import DeviceId
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory._self_report import SelfReport, own_figures, read_report, report_path

GiB = 1024**3
# The series these tests send, by key, with the fields the sampler records for them.
SERIES = {info["key"]: info for info in (
    *(DeviceId("gpu0", simulated=True).series(q, "nvml (simulated)") for q in ("used", "process")),
    *(DeviceId("gpu0").series(q, "nvml") for q in ("used", "process")),
    DeviceId("gpu0", "torch").series("reserved", "torch"), DeviceId("gpu1", "torch").series("reserved", "torch"),
    DeviceId("gpu1", "torch").series("allocated", "torch"), DeviceId("gpu1", "paddle").series("reserved", "paddle"))}


def batch(columns: dict[str, list[int | None]]) -> dict:
    """A batch as the sampler sends it when its series changed: with their fields."""
    return {"type": "memory.batch", "seq": 1, "interval": 1.0, "t": [0.0, 1.0], "columns": columns, "cells": [],
            "series": [SERIES[key] for key in columns]}


def test_only_gpus_nvml_cannot_attribute_are_reported_from_the_allocators():
    figures = own_figures(batch({
        "gpu0 (simulated) used": [10 * GiB, 10 * GiB],
        "gpu0 (simulated) process": [2 * GiB, None],  # NVML knows gpu0's figure: not reported
        "torch gpu0 reserved": [GiB, GiB],
        "torch gpu1 reserved": [3 * GiB, 4 * GiB],
        "paddle gpu1 reserved": [None, GiB],
        "torch gpu1 allocated": [GiB, GiB],
    }), SERIES)
    assert figures == {1: (5 * GiB, "torch+paddle")}
    assert own_figures(batch({"gpu0 used": [GiB, GiB]}), SERIES) is None


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


# ---- issue 28, finding 10: the server's reader of these files ----------------------------------------------------

def read_within(runtime_dir: Path, pid: int, cap: float = 5.0) -> tuple[object, float]:
    """read_report on a thread, as the server's reader thread calls it: what it gave (or raised) and how long it took;
    fails if it is still waiting after `cap` seconds."""
    box: dict[str, object] = {}

    def run() -> None:
        started = time.monotonic()
        try:
            box["figures"] = read_report(runtime_dir, pid)
        except BaseException as exc:  # noqa: BLE001 - what it raised is the finding
            box["figures"] = f"raised {type(exc).__name__}: {str(exc)[:100]}"
        box["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(cap)
    assert not thread.is_alive(), f"read_report is still waiting after {cap} s"
    return box["figures"], float(box["seconds"])  # type: ignore[arg-type]


def good_report(pid: int, devices: object = None) -> dict:
    return {"v": 1, "pid": pid, "time": time.time(),
            "devices": {"0": {"bytes": GiB, "source": "torch"}} if devices is None else devices}


def test_a_fifo_in_place_of_a_report_is_not_waited_on(tmp_path: Path):
    fifo = report_path(tmp_path, 4242)
    os.mkfifo(fifo, 0o600)
    try:
        figures, seconds = read_within(tmp_path, 4242)
    finally:  # a reader still waiting (the code as it was) gets an end of file and leaves
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    assert figures is None and seconds < 1


@pytest.mark.parametrize("key", ["²", "①", "⁵", "٣", "+1", " 1", "1_0", "00000", "12345"])
def test_a_device_key_that_is_not_ascii_digits_is_left_out_never_raised(tmp_path: Path, key: str):
    path = report_path(tmp_path, 4242)
    path.write_text(json.dumps(good_report(4242, {key: {"bytes": 2 * GiB}, "1": {"bytes": GiB}})))
    figures, _ = read_within(tmp_path, 4242)
    assert figures == {1: GiB}


# Each made when its test runs: a report older than MAX_AGE_SECONDS is refused as stale whatever else it holds.
HOSTILE_REPORTS: dict[str, Callable[[], bytes]] = {
    "nested [ x 100,000": lambda: b'{"v": 1, "pid": 4242, "devices": ' + b"[" * 100_000,
    "nested objects": lambda: json.dumps(good_report(4242)).encode().replace(
        b'"source": "torch"', b'"x": ' + b'{"a": ' * 30_000 + b"1" + b"}" * 30_000),
    "a 400-digit byte count": lambda: json.dumps(good_report(4242)).encode().replace(str(GiB).encode(), b"7" * 400),
    "a 400-digit time": lambda: json.dumps(good_report(4242)).encode().replace(
        b'"time": ', b'"time": ' + b"1" * 400 + b', "t": '),
    "time NaN": lambda: json.dumps({**good_report(4242), "time": float("nan")}).encode(),
    "bytes true": lambda: json.dumps(good_report(4242, {"0": {"bytes": True}})).encode(),
    "larger than 64 KiB": lambda: json.dumps({**good_report(4242), "pad": "x" * 70_000}).encode(),
}


@pytest.mark.parametrize("name", list(HOSTILE_REPORTS))
def test_a_hostile_report_is_no_report_and_never_raises(tmp_path: Path, name: str):
    report_path(tmp_path, 4242).write_bytes(HOSTILE_REPORTS[name]())
    assert read_within(tmp_path, 4242)[0] is None


@pytest.mark.parametrize("how", ["world-writable", "group-writable", "another user's", "a link to it"])
def test_a_report_others_could_write_is_not_read(tmp_path: Path, how: str):
    path = report_path(tmp_path, 4242)
    path.write_text(json.dumps(good_report(4242)))
    path.chmod(0o600)
    assert read_report(tmp_path, 4242) == {0: GiB}
    if how == "world-writable":
        path.chmod(0o666)
    elif how == "group-writable":
        path.chmod(0o620)
    elif how == "another user's":
        if os.geteuid() != 0:
            pytest.skip("only root can give a file to another user")
        os.chown(path, 65534, 65534)  # nobody
    else:
        target = tmp_path / "elsewhere.json"
        path.rename(target)
        path.symlink_to(target)
    assert read_within(tmp_path, 4242)[0] is None


def test_the_kernels_allocator_is_reported_by_its_fields_and_a_nodes_is_not(tmp_path: Path):
    """A kernel's sampler beside a cluster node "gpubox" whose NVML cannot attribute its memory: the kernel reports
    PyTorch's figure on its own gpu0, named "torch", and nothing of the node's gpu1; the series' fields come with the
    first batch only, and serve the batches after it."""
    sampler = Sampler([TorchAllocator(), Node(nvml=False)])
    batches: list[dict] = []
    sampler.subscribe(lambda batch: batches.append(dict(batch)))
    sampler.subscribe(SelfReport(str(tmp_path), interval=0))
    path = report_path(tmp_path, os.getpid())
    try:
        for _ in range(2):
            path.unlink(missing_ok=True)
            sampler.sample_once()
            sampler.flush()
            assert json.loads(path.read_text())["devices"] == {"0": {"bytes": 5 * GiB, "source": "torch"}}
    finally:
        sampler.close()
    assert ["series" in batch for batch in batches] == [True, False]
