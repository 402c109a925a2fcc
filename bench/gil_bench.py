"""The GIL figure (issue 21): does the kernel's memory sampler at 10 Hz slow a pure-Python loop by 1%?

Wall time cannot say on a shared machine: other processes move it by tens of percent (bench/RESULTS.md, issue 14).
So each round runs the same loop with the sampler off, at 10 Hz, and beside a bare thread waking at 10 Hz (the
floor), in rotating order, and compares

- the loop's own CPU time (`time.thread_time()` of the loop's thread): what the loop itself spent, including the cost
  of handing the GIL over and refilling caches after the sampler ran, but not the time it waited, descheduled, for
  another process or for the GIL;
- the time the loop stood still: it reads the clock every few µs, and a gap far longer than the usual one is time
  it waited (for the GIL, or descheduled). On / off as a difference of shares of its wall time. Unlike its CPU time,
  this does not move with the core's clock speed, which moved the CPU figure by ±5% even on a quiet 16-core machine;
- the sampler thread's CPU time while the loop ran, over the loop's wall time: the most the loop can have waited for
  the GIL because of the sampler (the fake NVML library is Python and holds the GIL throughout);
- the loop's wall time, for comparison.

The figure is the median of the per-pair ratios (on / off) or differences, with a bootstrap confidence interval of
that median.
The GPU is the simulated one through the fake NVML library (the real pynvml code path). On a machine with an NVIDIA
GPU and a CUDA build of PyTorch, `python -m bench.gil_bench --real-gpu` measures the same through the driver, with a
PyTorch child holding 1 GiB on the GPU (as bench/gpu_bench.py does) and a longer loop (the host's cores are faster);
its table goes into bench/RESULTS_GPU.md.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import threading
import time
from array import array
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from . import sampler_bench

PAIRS = 80
LOOP_ADDITIONS = 3_000_000
REAL_GPU_LOOP_ADDITIONS = 15_000_000  # about half a second on the GPU machine's host: 5 samples at 10 Hz per loop
BLOCK = 200  # additions between two clock reads: a few µs, so a wait for the GIL of tens of µs stands out
STALL_FACTOR = 3.0
SETTLE_SECONDS = 0.2  # after switching the sampler on or off, before the loop starts
RESAMPLES = 4000
CONFIDENCE = 0.95


def _send(batch: Any) -> None:
    json.dumps(batch)  # what a chart's comm does with each batch


def _loop(additions: int = LOOP_ADDITIONS) -> tuple[float, float, float]:
    """(thread CPU seconds, wall seconds, seconds it stood still) of a pure-Python loop. It reads the clock every
    BLOCK additions; a block that took over STALL_FACTOR times the median block stood still for the excess (waiting
    for the GIL, or descheduled). Unlike its CPU time, this does not move with the core's clock speed."""
    clock = time.perf_counter
    gaps = array("d")
    cpu = time.thread_time()
    start = last = clock()
    total = 0
    for _ in range(additions // BLOCK):
        for i in range(BLOCK):
            total += i
        now = clock()
        gaps.append(now - last)
        last = now
    cpu = time.thread_time() - cpu
    typical = statistics.median(gaps)
    stood = sum(gap - typical for gap in gaps if gap > STALL_FACTOR * typical)
    return cpu, last - start, stood


def measure(pairs: int = PAIRS, interval: float = 0.1, additions: int = LOOP_ADDITIONS,
            machine: Callable[[int], AbstractContextManager[object]] = sampler_bench.simulated,
            ) -> dict[str, list[float]]:
    """Per round, the loop's CPU and wall time with the sampler off, on, and with only a bare thread waking at the
    same rate (the floor: what any thread waking 10 times a second costs the loop on this machine), in rotating order;
    and the sampler thread's CPU while on. `machine`: the simulated GPU, or bench/gpu_bench.py's real one."""
    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler

    states = ("off", "on", "floor")
    result: dict[str, list[float]] = {f"{kind}_{state}": [] for kind in ("cpu", "wall", "stood") for state in states}
    result["held"] = []
    with machine(1):
        sampler = kernel_sampler()
        _loop(additions)  # warm
        for index in range(pairs):
            for state in states[index % 3:] + states[:index % 3]:
                if state == "on":
                    subscription = sampler.subscribe(_send, interval=interval)
                    time.sleep(SETTLE_SECONDS)
                    clock = sampler_bench._thread_cpu_clock("mgenv-memory-sampler")
                    held = time.clock_gettime(clock)
                    cpu, wall, stood = _loop(additions)
                    result["held"].append((time.clock_gettime(clock) - held) / wall)
                    subscription.close()
                elif state == "floor":
                    stop = threading.Event()
                    waker = threading.Thread(target=_wake, args=(stop, interval), daemon=True)
                    waker.start()
                    time.sleep(SETTLE_SECONDS)
                    cpu, wall, stood = _loop(additions)
                    stop.set()
                    waker.join()
                else:
                    time.sleep(SETTLE_SECONDS)
                    cpu, wall, stood = _loop(additions)
                result[f"cpu_{state}"].append(cpu)
                result[f"wall_{state}"].append(wall)
                result[f"stood_{state}"].append(stood / wall)
        close_kernel_sampler()
    return result


def _wake(stop: threading.Event, interval: float) -> None:
    while not stop.wait(interval):
        pass


def median_with_interval(values: list[float], resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
                         seed: int = 21) -> tuple[float, float, float]:
    """The median of `values` and the percentile-bootstrap confidence interval of that median."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    tail = (1 - confidence) / 2
    return statistics.median(values), medians[int(tail * resamples)], medians[int((1 - tail) * resamples) - 1]


def slowdowns(result: dict[str, list[float]]) -> dict[str, tuple[float, float, float]]:
    """Per measure, the median slowdown in % with its interval: CPU and wall from the pairs' ratios, the time the loop
    stood still from the pairs' differences (percentage points of the loop's wall time), held as is."""
    def ratios(kind: str, state: str) -> list[float]:
        return [100 * (a / b - 1) for a, b in zip(result[f"{kind}_{state}"], result[f"{kind}_off"], strict=True)]

    def stood(state: str) -> list[float]:
        return [100 * (a - b) for a, b in zip(result[f"stood_{state}"], result["stood_off"], strict=True)]

    return {"cpu": median_with_interval(ratios("cpu", "on")), "wall": median_with_interval(ratios("wall", "on")),
            "floor": median_with_interval(ratios("cpu", "floor")),
            "stood": median_with_interval(stood("on")), "stood_floor": median_with_interval(stood("floor")),
            "held": median_with_interval([100 * share for share in result["held"]])}


def report(result: dict[str, list[float]] | None = None) -> str:
    result = result if result is not None else measure()
    figures = slowdowns(result)

    def shown(key: str) -> str:
        median, low, high = figures[key]
        return f"{median:+.2f}% (95% interval {low:+.2f} to {high:+.2f}%)"

    loop_ms = 1000 * statistics.median(result["cpu_off"])
    stood_off = 100 * statistics.median(result["stood_off"])
    return "\n".join([
        "| the GIL figure (issue 21) | median slowdown | side by side | target |",
        "|---|---|---|---|",
        f"| pure-Python loop, its own CPU time, sampler at 10 Hz vs off ({len(result['cpu_on'])} rounds, rotating "
        "order) "
        f"| {shown('cpu')} | loop {loop_ms:.0f} ms of CPU with the sampler off | ≤ 1% |",
        f"| … the sampler thread's CPU while the loop ran, over the loop's wall time (the most it can have held the "
        f"GIL) | {shown('held')} | — | ≤ 1% |",
        f"| … the time the loop stood still (its clock read every {BLOCK} additions; a block over "
        f"{STALL_FACTOR:g}× the median one stood still for the excess), on minus off, in points of its wall time "
        f"| {shown('stood')} | the loop stood still {stood_off:.2f}% of its time with the sampler off | ≤ 1% |",
        f"| … the loop's wall time (what other processes on the machine also move) | {shown('wall')} | — | — |",
        f"| floor: the loop's own CPU time beside a bare thread that only wakes 10 times a second | {shown('floor')} "
        "| — | — |",
        f"| floor: the time the loop stood still beside that bare thread, minus off | {shown('stood_floor')} | — | — |",
    ])


def real_gpu_report(pairs: int = PAIRS, additions: int = REAL_GPU_LOOP_ADDITIONS) -> str:
    """The same figure through the real driver, one PyTorch child holding 1 GiB on the GPU."""
    from . import gpu_bench

    with gpu_bench.holders(1):
        return report(measure(pairs, additions=additions, machine=gpu_bench.real_gpu))


if __name__ == "__main__":
    print(real_gpu_report() if sys.argv[1:] == ["--real-gpu"] else report())
