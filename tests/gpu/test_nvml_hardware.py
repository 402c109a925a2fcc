"""NvmlSource and the sampler through the real driver: the kernel's process tree is matched against what NVML lists
(a CUDA child counts as the kernel's, a process outside the tree does not), the process list is read at most once a
second at 100 Hz, and memory freed by a child that exits leaves the kernel's figure."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mgenv_jupyter.base._source_state import STATE_OK as OK
from mgenv_jupyter.memory import Sampler
from mgenv_jupyter.memory._nvml_source import NvmlSource

MiB, GiB = 1024**2, 1024**3
HOLD = """
import sys, time, torch
held = torch.empty(int(sys.argv[1]), dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print("ready", flush=True)
time.sleep(600)  # holds the memory until the test kills it
"""


@contextmanager
def holding(python: str, size: int) -> Iterator[int]:
    """A child of this process holding `size` bytes of GPU memory."""
    child = subprocess.Popen([python, "-c", HOLD, str(size)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        yield child.pid
    finally:
        child.kill()
        child.wait(timeout=60)


@contextmanager
def holding_outside(python: str, size: int, tmp_path: Path) -> Iterator[int]:
    """A process outside this process's tree (started by a shell that exits at once, so it is re-parented) holding
    `size` bytes of GPU memory."""
    ready = tmp_path / "outsider.out"
    started = subprocess.run(["setsid", "sh", "-c", f'"$0" -c "$1" {size} > "$2" 2>&1 & echo $!', python, HOLD,
                              str(ready)], capture_output=True, text=True, check=True)
    pid = int(started.stdout.strip())
    try:
        deadline = time.time() + 120
        while "ready" not in (ready.read_text() if ready.exists() else ""):
            assert time.time() < deadline, f"the outside process did not get its GPU memory: {ready.read_text()}"
            time.sleep(0.2)
        yield pid
    finally:
        os.kill(pid, signal.SIGKILL)


def gpu0(source: NvmlSource):
    samples = [s for s in source.sample() if s.device == "gpu0"]
    assert source.state == OK, source.state
    assert len(samples) == 1, samples
    return samples[0]


def test_a_cuda_child_is_the_kernels_memory_and_a_process_outside_the_tree_is_not(real_gpu, cuda_python, tmp_path):
    import pynvml

    source = NvmlSource(process_interval=0.1, process_refresh=0.1)
    before = gpu0(source)
    assert not before.simulated and before.total and before.used is not None
    with holding(cuda_python, GiB), holding_outside(cuda_python, 2 * GiB, tmp_path):
        time.sleep(0.2)  # twice the source's process_interval: its process list is read anew after that long
        sample = gpu0(source)
        pynvml.nvmlInit()
        total = pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(0)).total
        pynvml.nvmlShutdown()
    # The child's 1 GiB plus its CUDA context (a few hundred MiB); not the outsider's 2 GiB.
    assert GiB <= sample.process < 2 * GiB, sample
    assert sample.used >= before.used + 3 * GiB, (before, sample)
    assert sample.total == total == before.total
    deadline = time.monotonic() + 30
    while (after := gpu0(source)).process != 0 and time.monotonic() < deadline:
        time.sleep(0.1)  # until the child has exited and its memory is back with the driver
    assert after.process == 0, after


def test_at_100_hz_the_real_process_list_is_read_at_most_once_a_second(real_gpu, cuda_python, monkeypatch):
    import pynvml

    calls = []
    real = pynvml.nvmlDeviceGetComputeRunningProcesses

    def counted(handle):
        calls.append(time.monotonic())
        return real(handle)

    monkeypatch.setattr(pynvml, "nvmlDeviceGetComputeRunningProcesses", counted)
    with holding(cuda_python, 256 * MiB), Sampler([NvmlSource()], interval=0.01) as sampler:
        time.sleep(1.0)  # past the first second (the first process list)
        start, samples_before = time.monotonic(), len(sampler.history)
        first = len(calls)
        time.sleep(4.0)  # the window the reads are counted over: their rate is the check
        listed = len(calls) - first
        sampled = len(sampler.history) - samples_before
        seconds = time.monotonic() - start
    assert sampled >= 50 * seconds, f"{sampled} samples in {seconds:.1f} s"  # sampling kept its pace
    assert calls, "the process list was never read"
    assert listed <= seconds + 1, f"the process list was read {listed} times in {seconds:.1f} s"
