"""What holds memory (issue 23), on a large heap, measured side by side in one run:

- a namespace of a million small objects (1000 variables, each a list of 1000 small lists, and one dict of a million
  entries) beside 20 NumPy arrays: `memory_holders()` with its bounds (it stops within `MAX_SECONDS` and says what it
  left out), against the same walk with the bounds lifted (every item of every container looked at);
- a namespace of 20 arrays only: what a user's call costs on a usual notebook.

    python -m bench.holders_bench
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

try:
    from mgenv_jupyter.memory._holders import MAX_SECONDS, memory_holders
except ImportError:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from mgenv_jupyter.memory._holders import MAX_SECONDS, memory_holders

RUNS = 5
UNBOUNDED = 10**9


def _namespaces() -> tuple[dict[str, object], dict[str, object]]:
    import numpy

    arrays = {f"array{i}": numpy.ones(1000) for i in range(20)}
    heap: dict[str, object] = {}
    for i in range(1000):
        heap[f"rows{i}"] = [[j] for j in range(1000)]
    heap["table"] = {j: (j,) for j in range(1_000_000)}
    heap.update(arrays)  # after the heap: the walk's bound must not hide them
    heap["batch"] = [numpy.ones(10)]  # in a container after the bound: left out, and said so
    return heap, arrays


def _time(namespace: dict[str, object], **bounds: float) -> tuple[float, int, int, float]:
    """(median seconds, objects visited, rows found, longest seconds) over RUNS walks."""
    times = []
    visited = rows = 0
    for _ in range(RUNS):
        started = time.perf_counter()
        found = memory_holders(namespace, **bounds)  # type: ignore[arg-type]
        times.append(time.perf_counter() - started)
        visited, rows = found.visited, len(found.holders)
    return statistics.median(times), visited, rows, max(times)


def report() -> str:
    heap, arrays = _namespaces()
    bounded, bounded_visits, bounded_rows, longest = _time(heap)
    unbounded, unbounded_visits, unbounded_rows, _ = _time(heap, max_items=UNBOUNDED, max_visits=UNBOUNDED,
                                                           max_seconds=float(UNBOUNDED))
    usual, usual_visits, _, _ = _time(arrays)
    load = os.getloadavg()[0]
    return "\n".join([
        "## What holds memory, by name (issue 23)",
        "",
        "| what | measured | side by side | bound |",
        "|---|---|---|---|",
        f"| `memory_holders()` on a namespace of 2,000,000 small objects (1000 lists of 1000 lists, a dict of "
        f"1,000,000 tuples) and 20 NumPy arrays | {bounded * 1000:.0f} ms median of {RUNS} ({longest * 1000:.0f} ms "
        f"at most), {bounded_visits:,} "
        f"objects visited, {bounded_rows} arrays found | the same walk unbounded: {unbounded * 1000:.0f} ms, "
        f"{unbounded_visits:,} visited, {unbounded_rows} found (×{unbounded / bounded:.1f} the time) "
        f"| ≤ {MAX_SECONDS:g} s, then it stops and says so |",
        f"| `memory_holders()` on 20 NumPy arrays | {usual * 1000:.2f} ms median, {usual_visits} visited | | |",
        "",
        "Bounds: 10,000 items per container, 200,000 objects, 1 s; what a bound left out is listed in the result "
        f"(`Holders.skipped`). Load average {load:.1f} on this machine during the run. "
        "`python -m bench.holders_bench`.",
    ])


if __name__ == "__main__":
    print(report())
