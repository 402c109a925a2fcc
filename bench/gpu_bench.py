"""The sampler on a real GPU (issue 14): what NVML's calls cost there, and the kernel's sampler measured with them.

Runs only where NVML answers (`python -m bench.gpu_bench` on a machine with an NVIDIA GPU and a CUDA build of
PyTorch, which starts the processes that hold GPU memory); it writes bench/RESULTS_GPU.md, which `./dev bench` on a
machine without a GPU leaves as it is.

- each NVML call the sampler makes, timed alone: device memory (every sample) against the process list (the call
  that takes the driver's lock), with one and with eight processes on the GPU;
- the device-memory call while another thread reads the process list without pause (does the lock serialise them?);
- ours against nvitop's collector and jupyter-resource-usage's probe per sample, the shared sampler's CPU and the GIL,
  as bench/sampler_bench.py measures them on the simulated GPU, here through the real driver.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from . import sampler_bench

GiB = 1024**3
HOLD = """
import sys, torch
held = torch.empty(int(sys.argv[1]), dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print("ready", flush=True)
sys.stdin.read()
"""


@contextmanager
def real_gpu(devices: int = 1) -> Iterator[None]:
    """The machine as it is (sampler_bench's `machine`): no simulation, whatever GPUs NVML reports."""
    if os.environ.get("MGENV_SIMULATE_GPU"):
        raise RuntimeError("unset MGENV_SIMULATE_GPU: this benchmark measures the real driver")
    yield None


@contextmanager
def holders(count: int, size: int = GiB) -> Iterator[list[int]]:
    """`count` child processes, each holding `size` bytes of GPU memory through PyTorch, until the block ends."""
    made = [subprocess.Popen([sys.executable, "-c", HOLD, str(size)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True) for _ in range(count)]
    try:
        for child in made:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        yield [child.pid for child in made]
    finally:
        for child in made:
            if child.stdin:
                child.stdin.close()
        for child in made:
            child.wait(timeout=60)


def timed(call: Callable[[], object], count: int) -> dict[str, float]:
    """Median and 99th percentile wall time, and median thread CPU time, of `count` calls (µs)."""
    walls, cpus = [], []
    for _ in range(count):
        wall, cpu = time.perf_counter(), time.thread_time()
        call()
        cpus.append(time.thread_time() - cpu)
        walls.append(time.perf_counter() - wall)
    walls.sort()
    return {"wall": statistics.median(walls) * 1e6, "p99": walls[int(0.99 * (len(walls) - 1))] * 1e6,
            "cpu": statistics.median(cpus) * 1e6}


def _until(stop: threading.Event, call: Callable[[], object]) -> None:
    while not stop.is_set():
        call()


def nvml_costs() -> dict[str, dict[str, float]]:
    import pynvml

    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    results = {"device": {"name": pynvml.nvmlDeviceGetName(handle), "driver": pynvml.nvmlSystemGetDriverVersion()}}
    memory = lambda: pynvml.nvmlDeviceGetMemoryInfo(handle, version=pynvml.nvmlMemory_v2)  # noqa: E731
    processes = lambda: pynvml.nvmlDeviceGetComputeRunningProcesses(handle)  # noqa: E731
    results["memory info, idle GPU"] = timed(memory, 5000)
    for count in (1, 8):
        with holders(count):
            results[f"memory info, {count} process{'es' if count > 1 else ''}"] = timed(memory, 5000)
            results[f"process list, {count} process{'es' if count > 1 else ''}"] = timed(processes, 500)
            if count == 8:
                stop = threading.Event()
                thread = threading.Thread(target=_until, args=(stop, processes), daemon=True)
                thread.start()
                time.sleep(0.2)
                results["memory info while another thread lists processes"] = timed(memory, 5000)
                stop.set()
                thread.join()
    pynvml.nvmlShutdown()
    return results


def report() -> str:
    costs = nvml_costs()
    device = costs.pop("device")
    with holders(1):
        per_sample = sampler_bench.per_sample_costs(machine=real_gpu)
        shared = sampler_bench.shared_sampler_cpu(machine=real_gpu)
        gil = sampler_bench.gil_slowdown(machine=real_gpu)
    median = statistics.median
    rows = [
        "# Benchmark results on a real GPU",
        "",
        f"Recorded {time.strftime('%Y-%m-%d')} by `python -m bench.gpu_bench` on {device['name']} (driver "
        f"{device['driver']}), {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
        f"{len(os.sched_getaffinity(0))} cores. Each process on the GPU is a PyTorch child holding 1 GiB.",
        "",
        "## NVML's calls",
        "",
        "| call | wall, median | wall, 99th percentile | CPU, median |",
        "|---|---|---|---|",
        *[f"| {label} | {c['wall']:.1f} µs | {c['p99']:.1f} µs | {c['cpu']:.1f} µs |" for label, c in costs.items()],
        "",
        "## The kernel's sampler on this GPU (one PyTorch child holding 1 GiB)",
        "",
        "| what | measured | side by side | target |",
        "|---|---|---|---|",
        f"| one sample at 10 Hz | ours {per_sample['ours']:.0f} µs | jupyter-resource-usage's probe "
        f"{per_sample['resource_usage']:.0f} µs (×{per_sample['resource_usage'] / per_sample['ours']:.1f}); nvitop's "
        f"collector {per_sample['nvitop']:.0f} µs (×{per_sample['nvitop'] / per_sample['ours']:.1f}) | ≥ 5× cheaper "
        "than jupyter-resource-usage, ≤ nvitop |",
        f"| the shared sampler at 10 Hz, a chart and the sidebar subscribed (+ the 1 Hz recorder) "
        f"| {median(shared['shares']):.2f}% of one core ({min(shared['shares']):.2f}–{max(shared['shares']):.2f}%) "
        "| — | ≤ 0.5% |",
        f"| pure-Python loop slowed at 10 Hz | {median(gil['10 Hz']['wall']):+.2f}% wall; the sampler thread ran "
        f"{median(gil['10 Hz']['held']):.2f}% of the loop's time | sampler off | ≤ 1% |",
        f"| … at 100 Hz | {median(gil['100 Hz']['wall']):+.2f}% wall; the sampler thread ran "
        f"{median(gil['100 Hz']['held']):.2f}% | sampler off | — |",
        "",
        "Per-call figures: 5,000 calls (500 for the process list) back to back after a warm-up, wall time from "
        "`perf_counter`, CPU from the calling thread's clock (time spent waiting in the driver is wall, not CPU). The "
        "sampler's rows are bench/sampler_bench.py's measurements with the real NVML library in place of the fake one.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    text = report() + "\n"
    Path(__file__).with_name("RESULTS_GPU.md").write_text(text, encoding="utf-8")
    print(text)
