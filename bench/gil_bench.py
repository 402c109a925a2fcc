"""The GIL figure (issue 21): does the kernel's memory sampler at 10 Hz slow a pure-Python loop by 1%?

Wall time cannot say on a shared machine: other processes move it by tens of percent (bench/RESULTS.md, issue 14).
So each round runs the same loop with the sampler off, at 10 Hz, and beside a bare thread waking at 10 Hz (the
floor), in rotating order, and compares

- the loop's own CPU time (`time.thread_time()` of the loop's thread): what the loop itself spent, including the cost
  of handing the GIL over and refilling caches after the sampler ran, but not the time it waited, descheduled, for
  another process or for the GIL;
- the sampler thread's CPU time while the loop ran, over the loop's wall time: the most the loop can have waited for
  the GIL because of the sampler (the fake NVML library is Python and holds the GIL throughout);
- the loop's wall time, for comparison.

The figure is the median of the per-pair ratios (on / off), with a bootstrap confidence interval of that median.
The GPU is the simulated one through the fake NVML library (the real pynvml code path); on a real GPU the driver's
calls replace the fake's Python, so rerun it there (`python -m bench.gil_bench`) when a machine with one is at hand.
"""

from __future__ import annotations

import json
import random
import statistics
import threading
import time
from typing import Any

from . import sampler_bench

PAIRS = 80
LOOP_ADDITIONS = 3_000_000
SETTLE_SECONDS = 0.2  # after switching the sampler on or off, before the loop starts
RESAMPLES = 4000
CONFIDENCE = 0.95


def _send(batch: Any) -> None:
    json.dumps(batch)  # what a chart's comm does with each batch


def _loop() -> tuple[float, float]:
    """(thread CPU seconds, wall seconds) of a pure-Python loop."""
    cpu, wall = time.thread_time(), time.perf_counter()
    total = 0
    for i in range(LOOP_ADDITIONS):
        total += i
    return time.thread_time() - cpu, time.perf_counter() - wall


def measure(pairs: int = PAIRS, interval: float = 0.1) -> dict[str, list[float]]:
    """Per round, the loop's CPU and wall time with the sampler off, on, and with only a bare thread waking at the
    same rate (the floor: what any thread waking 10 times a second costs the loop on this machine), in rotating order;
    and the sampler thread's CPU while on."""
    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler

    states = ("off", "on", "floor")
    result: dict[str, list[float]] = {f"{kind}_{state}": [] for kind in ("cpu", "wall") for state in states}
    result["held"] = []
    with sampler_bench.simulated(1):
        sampler = kernel_sampler()
        _loop()  # warm
        for index in range(pairs):
            for state in states[index % 3:] + states[:index % 3]:
                if state == "on":
                    subscription = sampler.subscribe(_send, interval=interval)
                    time.sleep(SETTLE_SECONDS)
                    clock = sampler_bench._thread_cpu_clock("mgenv-memory-sampler")
                    held = time.clock_gettime(clock)
                    cpu, wall = _loop()
                    result["held"].append((time.clock_gettime(clock) - held) / wall)
                    subscription.close()
                elif state == "floor":
                    stop = threading.Event()
                    waker = threading.Thread(target=_wake, args=(stop, interval), daemon=True)
                    waker.start()
                    time.sleep(SETTLE_SECONDS)
                    cpu, wall = _loop()
                    stop.set()
                    waker.join()
                else:
                    time.sleep(SETTLE_SECONDS)
                    cpu, wall = _loop()
                result[f"cpu_{state}"].append(cpu)
                result[f"wall_{state}"].append(wall)
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
    """Per measure, the median slowdown in % with its interval: CPU and wall from the pairs' ratios, held as is."""
    def ratios(kind: str, state: str) -> list[float]:
        return [100 * (a / b - 1) for a, b in zip(result[f"{kind}_{state}"], result[f"{kind}_off"], strict=True)]

    return {"cpu": median_with_interval(ratios("cpu", "on")), "wall": median_with_interval(ratios("wall", "on")),
            "floor": median_with_interval(ratios("cpu", "floor")),
            "held": median_with_interval([100 * share for share in result["held"]])}


def report() -> str:
    result = measure()
    figures = slowdowns(result)

    def shown(key: str) -> str:
        median, low, high = figures[key]
        return f"{median:+.2f}% (95% interval {low:+.2f} to {high:+.2f}%)"

    loop_ms = 1000 * statistics.median(result["cpu_off"])
    return "\n".join([
        "| the GIL figure (issue 21) | median slowdown | side by side | target |",
        "|---|---|---|---|",
        f"| pure-Python loop, its own CPU time, sampler at 10 Hz vs off ({len(result['cpu_on'])} rounds, rotating "
        "order) "
        f"| {shown('cpu')} | loop {loop_ms:.0f} ms of CPU with the sampler off | ≤ 1% |",
        f"| … the sampler thread's CPU while the loop ran, over the loop's wall time (the most it can have held the "
        f"GIL) | {shown('held')} | — | ≤ 1% |",
        f"| … the loop's wall time (what other processes on the machine also move) | {shown('wall')} | — | — |",
        f"| floor: the loop's own CPU time beside a bare thread that only wakes 10 times a second | {shown('floor')} "
        "| — | — |",
    ])


if __name__ == "__main__":
    print(report())
