"""Host memory (memory/_host_source.py): what the kernel's process tree holds in RAM and the machine's used and total
memory, as device "host"; a failure to read it becomes the source's state, never an exception."""

from __future__ import annotations

import os

import psutil
from said import said

from mgenv_jupyter.memory._host_source import HostSource
from mgenv_jupyter.memory._process_tree import ProcessTree


class BrokenTree(ProcessTree):
    def rss(self) -> int:
        raise PermissionError("/proc is not readable here")


def test_the_host_is_read_as_the_machine_and_the_kernels_process_tree():
    source = HostSource(ProcessTree(max_age=0))
    assert said(source.state) == "not sampled yet"
    [sample] = source.sample()
    machine = psutil.virtual_memory()
    assert (sample.source, sample.device, sample.simulated) == ("host", "host", False)
    assert sample.total == machine.total and sample.used is not None and 0 < sample.used < machine.total
    assert sample.process is not None and sample.process >= psutil.Process(os.getpid()).memory_info().rss // 2
    assert said(source.state) == "ok"
    assert [key for key, _ in sample.values()] == ["host used", "host total", "host process"]


def test_a_failure_to_read_becomes_the_state_and_sampling_goes_on():
    source = HostSource(BrokenTree())
    assert source.sample() == []
    assert said(source.state) == "host memory unavailable: PermissionError: /proc is not readable here"
    source.tree = ProcessTree()
    assert len(source.sample()) == 1 and said(source.state) == "ok"
