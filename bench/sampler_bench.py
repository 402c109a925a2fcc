"""One sampler per kernel (issue 14), measured side by side in one run:

- what one sample costs, ours against nvitop's ResourceMetricCollector (through the same fake NVML library, which
  sits under pynvml) and against jupyter-resource-usage's per-process probe (psutil's memory_full_info over the kernel
  and its children, as its /api/metrics/v1 handler does), each taken at the same rate;
- the CPU of the kernel's one sampler at 10 Hz with a chart and the sidebar both subscribed;
- how much a pure-Python loop in the kernel slows down with the sampler on, at 10 and 100 Hz (the GIL);
- how a sample's cost grows with 1, 8 and 64 simulated GPUs and 10, 100 and 1,000 processes in the kernel's tree;
- how often the process list (the driver-lock call) is read, counted in the fake library.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

GiB = 1024**3
RATE_SECONDS = 3.0
# Where the measurements run: `simulated` by default; bench/gpu_bench.py passes the real GPU.
Machine = Callable[[int], AbstractContextManager[object]] | None  # how long each probe runs at its rate
LOOP_ROUNDS = 15
LOOP_ADDITIONS = 10_000_000  # about half a second here: 5 samples at 10 Hz per loop


# ---- environments --------------------------------------------------------------------------------------------------

@contextmanager
def simulated(devices: int = 1) -> Iterator[object]:
    """A simulated machine with `devices` GPUs (the kernel holding memory on each), through the fake NVML library."""
    from mgenv_jupyter.memory.simulated import _simulation as simulation

    scenario = {"name": f"bench-{devices}", "step_seconds": 0.5, "devices": [
        {"name": "NVIDIA H100 80GB HBM3", "total": "80GB", "others": "1GB",
         "kernel": {"start": "4GB", "step": "64MB", "max": "60GB", "wave": "512MB"}}] * devices}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scenario.json"
        path.write_text(json.dumps(scenario))
        os.environ[simulation.ENV] = str(path)
        try:
            running = simulation.from_environment()
            yield running
        finally:
            simulation.stop_environment()
            del os.environ[simulation.ENV]


@contextmanager
def children(count: int) -> Iterator[None]:
    """`count` real child processes in this process's tree (as DataLoader workers would be)."""
    made = [subprocess.Popen(["sleep", "600"]) for _ in range(count)]
    try:
        yield
    finally:
        for child in made:
            child.kill()
        for child in made:
            child.wait()


def paced_cost(probe: Callable[[], object], interval: float, seconds: float = RATE_SECONDS) -> float:
    """Median thread CPU time (µs) of one call of `probe`, called every `interval` seconds as a sampler would (the
    sleeps between calls leave caches as cold as they are in a kernel)."""
    costs = []
    deadline = time.monotonic() + seconds
    next_call = time.monotonic()
    while time.monotonic() < deadline:
        start = time.thread_time()
        probe()
        costs.append(time.thread_time() - start)
        next_call += interval
        time.sleep(max(0.0, next_call - time.monotonic()))
    return statistics.mean(costs) * 1e6


# ---- the three probes ----------------------------------------------------------------------------------------------

def our_probe() -> tuple[Callable[[], object], Callable[[], None]]:
    from mgenv_jupyter.memory import Sampler, default_sources
    from mgenv_jupyter.runtime import session

    sampler = Sampler(default_sources(), session=session())
    return sampler.sample_once, sampler.close


def nvitop_probe() -> tuple[Callable[[], object], Callable[[], None]]:
    from nvitop import Device, ResourceMetricCollector

    collector = ResourceMetricCollector(Device.all(), root_pids={os.getpid()}, interval=1.0)
    collector.activate("bench")
    return collector.take_snapshots, lambda: collector.deactivate()


def resource_usage_probe() -> tuple[Callable[[], object], Callable[[], None]]:
    """jupyter-resource-usage's memory probe, as its ApiHandler.get does it (jupyter_resource_usage/api.py)."""
    import psutil

    def probe() -> int:
        current = psutil.Process()
        rss = 0
        for process in [current, *current.children(recursive=True)]:
            try:
                rss += process.memory_full_info().rss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        return rss

    return probe, lambda: None


def per_sample_costs(interval: float = 0.1, machine: Machine = None) -> dict[str, float]:
    results = {}
    with (machine or simulated)(1):
        for name, make in (("ours", our_probe), ("nvitop", nvitop_probe), ("resource_usage", resource_usage_probe)):
            probe, close = make()
            try:
                probe()  # first call initialises NVML
                results[name] = paced_cost(probe, interval)
            finally:
                close()
    return results


# ---- the kernel's one sampler ----------------------------------------------------------------------------------------

def shared_sampler_cpu(windows: int = 5, seconds: float = 4.0, machine: Machine = None) -> dict[str, object]:
    """CPU of the sampler thread (% of one core) while a chart and the sidebar's panel subscribe at 10 Hz to the
    kernel's sampler, their batches JSON-encoded as the comms would send them, and the recorder at 1 Hz: one figure
    per window. The thread's own CPU clock, since the process's CPU less an idle process's swings with the machine's
    other work by more than the figure itself."""
    import threading

    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler

    with (machine or simulated)(1):
        sampler = kernel_sampler()
        chart = sampler.subscribe(lambda batch: json.dumps(batch), interval=0.1)
        sidebar = sampler.subscribe(lambda batch: json.dumps(batch), interval=0.1)
        recorder = sampler.subscribe(interval=1.0)
        time.sleep(1.0)
        clock = _thread_cpu_clock("mgenv-memory-sampler")
        shares = []
        for _ in range(windows):
            cpu, start = time.clock_gettime(clock), time.perf_counter()
            time.sleep(seconds)
            shares.append(100 * (time.clock_gettime(clock) - cpu) / (time.perf_counter() - start))
        threads = sum(t.name == "mgenv-memory-sampler" for t in threading.enumerate())
        for subscription in (chart, sidebar, recorder):
            subscription.close()
        close_kernel_sampler()
        stopped = not any(t.name == "mgenv-memory-sampler" for t in threading.enumerate())
    return {"shares": shares, "threads": threads, "stopped": stopped}


def _thread_cpu_clock(name: str) -> int:
    """The CPU-time clock of the running thread called `name` (to read its CPU from another thread)."""
    import threading

    thread = next(t for t in threading.enumerate() if t.name == name)
    return time.pthread_getcpuclockid(thread.ident)


def gil_slowdown(rounds: int = LOOP_ROUNDS, machine: Machine = None) -> dict[str, dict[str, list[float]]]:
    """How much a pure-Python loop slows down with the sampler sampling at 10 Hz and at 100 Hz: the loop's wall time
    against the loop with the sampler off, pairs in alternating order (`wall`, %); and the sampler thread's CPU time
    during the loop as a share of the loop's time (`held`, %), an upper bound of the time it held the GIL that other
    processes on the machine cannot inflate, unlike wall time."""
    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler

    def loop() -> float:
        start = time.perf_counter()
        total = 0
        for i in range(LOOP_ADDITIONS):
            total += i
        return time.perf_counter() - start

    results: dict[str, dict[str, list[float]]] = {rate: {"wall": [], "held": []} for rate in ("10 Hz", "100 Hz")}
    with (machine or simulated)(1):
        sampler = kernel_sampler()
        loop()
        for index in range(rounds):
            for rate, interval in (("10 Hz", 0.1), ("100 Hz", 0.01)):
                times = {}
                order = ("off", "on") if index % 2 == 0 else ("on", "off")
                for state in order:
                    if state == "on":
                        subscription = sampler.subscribe(lambda batch: json.dumps(batch), interval=interval)
                        time.sleep(0.3)
                        clock = _thread_cpu_clock("mgenv-memory-sampler")
                        held_before = time.clock_gettime(clock)
                        times[state] = loop()
                        held = time.clock_gettime(clock) - held_before
                        subscription.close()
                    else:
                        time.sleep(0.3)
                        times[state] = loop()
                results[rate]["wall"].append(100 * (times["on"] / times["off"] - 1))
                results[rate]["held"].append(100 * held / times["on"])
        close_kernel_sampler()
    return results


def cost_growth() -> dict[str, float]:
    """Mean thread CPU (µs) per sample at 10 Hz, with the process list read once a second among them."""
    results = {}
    for devices in (1, 8, 64):
        with simulated(devices):
            probe, close = our_probe()
            probe()
            results[f"{devices} GPU" + ("s" if devices > 1 else "")] = paced_cost(probe, 0.1)
            close()
    for count in (10, 100, 1000):
        with children(count), simulated(1):
            probe, close = our_probe()
            probe()
            results[f"{count:,} processes"] = paced_cost(probe, 0.1)
            close()
    return results


def process_list_rate(seconds: float = 6.0) -> dict[str, float]:
    """Process-list calls per second into the fake library, with the sampler at 10 Hz and 100 Hz."""
    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler
    from mgenv_jupyter.memory.simulated._fake_nvml import installed

    rates = {}
    with simulated(1):
        fake = installed()
        assert fake is not None
        sampler = kernel_sampler()
        for label, interval in (("10 Hz", 0.1), ("100 Hz", 0.01)):
            subscription = sampler.subscribe(interval=interval)
            time.sleep(1.5)
            before_list = fake.calls["nvmlDeviceGetComputeRunningProcesses_v3"]
            before_memory = fake.calls["nvmlDeviceGetMemoryInfo"] + fake.calls["nvmlDeviceGetMemoryInfo_v2"]
            time.sleep(seconds)
            listed = fake.calls["nvmlDeviceGetComputeRunningProcesses_v3"] - before_list
            memory = fake.calls["nvmlDeviceGetMemoryInfo"] + fake.calls["nvmlDeviceGetMemoryInfo_v2"] - before_memory
            rates[label] = listed / seconds / 2  # pynvml calls the C function twice per list: size, then fill
            rates[f"{label} memory"] = memory / seconds
            subscription.close()
        close_kernel_sampler()
    return rates


def report() -> str:
    costs = per_sample_costs()
    shared = shared_sampler_cpu()
    gil = gil_slowdown()
    growth = cost_growth()
    listing = process_list_rate()
    median = statistics.median

    def quartiles(values: list[float]) -> str:
        low, _, high = statistics.quantiles(values, n=4)
        return f"{low:+.2f} to {high:+.2f}%"

    rows = [
        "## One sampler per kernel (issue 14)",
        "",
        "| what | measured | side by side | target |",
        "|---|---|---|---|",
        f"| CPU of the kernel's one sampler at 10 Hz, a chart and the sidebar both subscribed (+ the 1 Hz recorder) "
        f"| {median(shared['shares']):.2f}% of one core (median of {len(shared['shares'])} windows, "
        f"{min(shared['shares']):.2f}–{max(shared['shares']):.2f}%); {shared['threads']} sampler thread, "
        f"{'stopped' if shared['stopped'] else 'still running'} when all three closed | — | ≤ 0.5% |",
        f"| one sample at 10 Hz, ours (NVML device counters, the process list once a second, 4 framework sources, "
        f"host fallback) | {costs['ours']:.0f} µs | jupyter-resource-usage's probe {costs['resource_usage']:.0f} µs "
        f"(×{costs['resource_usage'] / costs['ours']:.1f}); nvitop's collector {costs['nvitop']:.0f} µs "
        f"(×{costs['nvitop'] / costs['ours']:.1f}) | ≥ 5× cheaper than jupyter-resource-usage, ≤ nvitop |",
        f"| pure-Python loop slowed by the sampler at 10 Hz | {median(gil['10 Hz']['wall']):+.2f}% wall (median of "
        f"{len(gil['10 Hz']['wall'])} pairs, quartiles {quartiles(gil['10 Hz']['wall'])}); the sampler thread ran "
        f"{median(gil['10 Hz']['held']):.2f}% of the loop's time | sampler off | ≤ 1% |",
        f"| … at 100 Hz | {median(gil['100 Hz']['wall']):+.2f}% wall (quartiles {quartiles(gil['100 Hz']['wall'])}); "
        f"the sampler thread ran {median(gil['100 Hz']['held']):.2f}% | sampler off | — |",
        f"| process-list reads per second (counted in the fake library) | {listing['10 Hz']:.2f}/s at 10 Hz, "
        f"{listing['100 Hz']:.2f}/s at 100 Hz | memory-info reads {listing['10 Hz memory']:.1f}/s and "
        f"{listing['100 Hz memory']:.1f}/s | ≤ 1/s |",
        "",
        "| one sample at 10 Hz with … | mean CPU per sample |",
        "|---|---|",
        *[f"| {label} | {cost:.0f} µs |" for label, cost in growth.items()],
        "",
        "Per-sample costs are the mean thread CPU time of one call, the probe called every 0.1 s for "
        f"{RATE_SECONDS:.0f} s (caches as cold as in a kernel), on a simulated H100 through the fake NVML library "
        "(Python stands in for the driver's C, so NVML's share is larger here than on hardware, for every tool alike). "
        "nvitop's collector reads more per sample (utilisation, temperature, power, host CPU and load); "
        "jupyter-resource-usage reads only host memory, through /proc for every process of the tree. The loop: "
        f"{LOOP_ADDITIONS:,} additions, {LOOP_ROUNDS} pairs, sampler on and off alternating which goes first; wall "
        "time includes whatever else the machine runs, the sampler thread's CPU time does not, and bounds the time "
        "it can hold the GIL (the fake NVML library is Python and holds it throughout). Growth: "
        "devices each hold kernel memory; processes are real children (sleep) in the kernel's tree, which is walked "
        "once a second.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    print(report())
