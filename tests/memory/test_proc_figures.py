"""The figures a kernel's first out-of-memory report reads from /proc (memory/_proc_figures.py) are psutil's."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil
import pytest

from mgenv_jupyter.memory import _proc_figures as proc_figures

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/meminfo"), reason="Linux's /proc only")


def test_host_memory_is_psutils() -> None:
    figures = proc_figures.host_memory()
    memory = psutil.virtual_memory()
    assert figures is not None
    assert figures[0] == memory.total
    assert abs(figures[1] - memory.available) < 64 * 1024 * 1024  # read a moment apart on a busy machine


def test_resident_size_and_start_of_a_child_are_psutils() -> None:
    # A process that holds 32 MiB until it is killed.
    child = subprocess.Popen([sys.executable, "-c", "import time; data = bytearray(32 << 20); time.sleep(30)"])
    try:
        process = psutil.Process(child.pid)
        for _ in range(100):  # until the child holds its 32 MiB
            if process.memory_info().rss > 32 << 20:
                break
            time.sleep(0.05)
        rss = proc_figures.resident_bytes(child.pid)
        assert rss is not None and abs(rss - process.memory_info().rss) < 1 << 20
        assert proc_figures.started(child.pid) == pytest.approx(process.create_time(), abs=0.02)
    finally:
        child.kill()
        child.wait()


def test_a_process_that_is_gone_has_no_figures() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert proc_figures.resident_bytes(child.pid) is None
    assert proc_figures.started(child.pid) is None
