"""What holds memory (issues 23 and 28), on a large heap, measured side by side in one run:

- a namespace of a million small objects (1000 variables, each a list of 1000 small lists, and one dict of a million
  entries) beside 20 NumPy arrays: `memory_holders()` with its bounds (it stops within `MAX_SECONDS` and says what it
  left out), against the same walk with the bounds lifted (every item of every container looked at);
- a namespace of 20 arrays only: what a user's call costs on a usual notebook;
- 100,000 one-element arrays as globals: `memory_holders()` with its bounds and with the report's 0.1 s, against the
  least any walk must do (reading each array's size in a plain loop);
- a big model, in .venvs/torch: the mixture-of-experts shape of Qwen3-30B-A3B (48 layers × 128 experts × 3 `Linear`,
  18,432 parameter tensors) built on PyTorch's `meta` device. The walk over it against PyTorch's own
  `model.parameters()`, and a failing cell's time from the raise to the end of the cell (IPython's traceback and the
  report under it) with the extension loaded and without, alternating in one shell.

    python -m bench.holders_bench
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    from mgenv_jupyter.memory._holders import MAX_SECONDS, memory_holders
    from mgenv_jupyter.oom._report import HOLDERS_SECONDS
except ImportError:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from mgenv_jupyter.memory._holders import MAX_SECONDS, memory_holders
    from mgenv_jupyter.oom._report import HOLDERS_SECONDS

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5
MODEL_RUNS = 7
FIRST_ROUNDS = 5
UNBOUNDED = 10**9
TARGET_REPORT_MS = 300.0


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


def globals_100000() -> dict[str, Any]:
    """100,000 one-element arrays: the walk with its bounds and with the report's, against a plain loop reading each
    array's size; walks and loops alternate."""
    import numpy

    namespace = {f"a{i}": numpy.ones(1) for i in range(100_000)}
    figures: dict[str, list[float]] = {"walk": [], "report": [], "floor": []}
    found = {}
    for _ in range(RUNS):
        for label, bound in (("walk", MAX_SECONDS), ("report", HOLDERS_SECONDS)):
            started = time.perf_counter()
            holders = memory_holders(namespace, max_seconds=bound)
            figures[label].append(time.perf_counter() - started)
            found[label] = (holders.visited, len(holders.holders) + holders.unlisted, holders.complete)
        started = time.perf_counter()
        sum(array.nbytes for array in namespace.values())
        figures["floor"].append(time.perf_counter() - started)
    return {"figures": figures, "found": found}


# ---- the big model (run in .venvs/torch) ---------------------------------------------------------------------------

_MODEL = """
import torch
from torch import nn

class Expert(nn.Module):
    def __init__(self, hidden=2048, intermediate=768):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)

class MoeLayer(nn.Module):
    def __init__(self, experts=128):
        super().__init__()
        self.experts = nn.ModuleList(Expert() for _ in range(experts))

class MoeModel(nn.Module):
    def __init__(self, layers=48):
        super().__init__()
        self.layers = nn.ModuleList(MoeLayer() for _ in range(layers))

with torch.device("meta"):
    model = MoeModel()
"""
_FAILING = ("import time\n_raised = time.perf_counter()\n"
            "raise torch.OutOfMemoryError('CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
            "of 79.19 GiB of which 1.10 GiB is free.')")


def model_driver() -> dict[str, Any]:
    """In .venvs/torch: the walk over the model against `model.parameters()`, then failing cells with the extension
    and without, alternating (the first failure with it, which also imports what a report needs, kept apart)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    import mgenv_jupyter

    ip = InteractiveShell.instance()
    ip.run_cell(_MODEL, store_history=True)
    model = ip.user_ns["model"]
    walk: list[float] = []
    walk_cpu: list[float] = []
    enumerate_: list[float] = []
    enumerate_cpu: list[float] = []
    visited = 0
    for _ in range(MODEL_RUNS):
        started, cpu = time.perf_counter(), time.process_time()
        holders = memory_holders({"model": model}, max_seconds=UNBOUNDED)
        walk.append(time.perf_counter() - started)
        walk_cpu.append(time.process_time() - cpu)
        visited = holders.visited
        started, cpu = time.perf_counter(), time.process_time()
        count = sum(1 for _ in model.parameters())
        enumerate_.append(time.perf_counter() - started)
        enumerate_cpu.append(time.process_time() - cpu)

    def fail() -> float:
        with capture_output():
            ip.run_cell(_FAILING)
        return time.perf_counter() - ip.user_ns["_raised"]

    fail()  # IPython's first traceback (its own imports), and ours below with the extension's
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    fail()
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    cells: dict[str, list[float]] = {"with": [], "without": []}
    made: list[float] = []
    for round_ in range(MODEL_RUNS):
        for loaded in ((True, False) if round_ % 2 else (False, True)):
            if loaded:
                ip.run_line_magic("load_ext", "mgenv_jupyter")
            cells["with" if loaded else "without"].append(fail())
            if loaded:
                made.append(mgenv_jupyter.last_oom().took)
                ip.run_line_magic("unload_ext", "mgenv_jupyter")
    return {"parameters": count, "visited": visited, "walk": walk, "walk_cpu": walk_cpu, "enumerate": enumerate_,
            "enumerate_cpu": enumerate_cpu, "cells": cells, "made": made}


def first_failure_driver(loaded: bool) -> dict[str, Any]:
    """In a fresh .venvs/torch process: the model, then one failing cell, with the extension loaded or not."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    ip = InteractiveShell.instance()
    ip.run_cell(_MODEL, store_history=True)
    if loaded:
        ip.run_line_magic("load_ext", "mgenv_jupyter")
    with capture_output() as captured:
        ip.run_cell(_FAILING)
    latency = time.perf_counter() - ip.user_ns["_raised"]
    if not loaded:
        return {"latency": latency}
    import mgenv_jupyter

    report = mgenv_jupyter.last_oom()
    assert report is not None and captured.outputs, "no report was shown"
    return {"latency": latency, "took": report.took, "walk": report.holders.took,
            "visited": report.holders.visited, "complete": report.holders.complete}


def _torch_run(*args: str, cache: str = "") -> dict[str, Any]:
    """Run this file with .venvs/torch's Python; `cache`: where bytecode is kept (as an installed package has it)."""
    python = ROOT / ".venvs" / "torch" / "bin" / "python"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), MGENV_LANG="en", **({"PYTHONPYCACHEPREFIX": cache} if cache else {}))
    out = subprocess.run([str(python), str(Path(__file__).resolve()), *args], env=env, capture_output=True,
                         text=True, check=True, timeout=600).stdout
    figures: dict[str, Any] = json.loads(next(line for line in out.splitlines() if line.startswith("RESULT "))[7:])
    return figures


def model_figures() -> dict[str, Any] | None:
    """The model's figures, and a kernel's first failure with it in FIRST_ROUNDS fresh processes each way, with the
    extension and without, alternating."""
    if not (ROOT / ".venvs" / "torch" / "bin" / "python").exists():
        return None
    with tempfile.TemporaryDirectory() as cache:
        figures = _torch_run("--model", cache=cache)  # also compiles and caches the bytecode the first failures use
        firsts: dict[str, list[dict[str, Any]]] = {"with": [], "without": []}
        for round_ in range(FIRST_ROUNDS):
            for loaded in ((True, False) if round_ % 2 else (False, True)):
                firsts["with" if loaded else "without"].append(
                    _torch_run("--first", "1" if loaded else "0", cache=cache))
    figures["firsts"] = firsts
    return figures


def report() -> str:
    heap, arrays = _namespaces()
    bounded, bounded_visits, bounded_rows, longest = _time(heap)
    unbounded, unbounded_visits, unbounded_rows, _ = _time(heap, max_items=UNBOUNDED, max_visits=UNBOUNDED,
                                                           max_seconds=float(UNBOUNDED))
    usual, usual_visits, _, _ = _time(arrays)
    del heap
    many = globals_100000()
    model = model_figures()
    load = os.getloadavg()[0]
    median = statistics.median
    ms = 1000
    walk, report_walk, floor = (median(many["figures"][key]) for key in ("walk", "report", "floor"))
    rows = [
        "## What holds memory, by name (issues 23 and 28)",
        "",
        "| what | measured | side by side | bound |",
        "|---|---|---|---|",
        f"| `memory_holders()` on a namespace of 2,000,000 small objects (1000 lists of 1000 lists, a dict of "
        f"1,000,000 tuples) and 20 NumPy arrays | {bounded * ms:.0f} ms median of {RUNS} ({longest * ms:.0f} ms "
        f"at most), {bounded_visits:,} "
        f"objects visited, {bounded_rows} arrays found | the same walk unbounded: {unbounded * ms:.0f} ms, "
        f"{unbounded_visits:,} visited, {unbounded_rows} found (×{unbounded / bounded:.1f} the time) "
        f"| ≤ {MAX_SECONDS:g} s, then it stops and says so |",
        f"| `memory_holders()` on 20 NumPy arrays | {usual * ms:.2f} ms median, {usual_visits} visited | | |",
        f"| `memory_holders()` on 100,000 one-element arrays as globals | {walk * ms:.0f} ms median of {RUNS}, "
        f"{many['found']['walk'][0]:,} visited, {many['found']['walk'][1]:,} found, "
        f"{'complete' if many['found']['walk'][2] else 'stopped at its bound'}; with the report's "
        f"{HOLDERS_SECONDS:g} s: {report_walk * ms:.0f} ms, {many['found']['report'][0]:,} visited, "
        f"{'complete' if many['found']['report'][2] else 'stopped at its bound and said so'} | a plain loop reading "
        f"each array's size: {floor * ms:.0f} ms (the walk ×{walk / floor:.1f}) | ≤ {MAX_SECONDS:g} s, "
        f"≤ {HOLDERS_SECONDS:g} s in a report |",
    ]
    if model is None:
        rows.append("| the 18,432-tensor model | not measured: .venvs/torch is missing (./dev setup makes it) | | |")
    else:
        with_ext, without = median(model["cells"]["with"]), median(model["cells"]["without"])
        firsts = model["firsts"]
        first = median(run["latency"] for run in firsts["with"])
        first_bare = median(run["latency"] for run in firsts["without"])
        completed = sum(run["complete"] for run in firsts["with"])
        rows += [
            f"| `memory_holders()` over a {model['parameters']:,}-tensor mixture-of-experts model on the meta device "
            f"(48 × 128 × 3 `Linear`) | {median(model['walk']) * ms:.0f} ms median of {MODEL_RUNS} "
            f"({median(model['walk_cpu']) * ms:.0f} ms CPU), {model['visited']:,} objects visited | PyTorch's own "
            f"`sum(1 for _ in model.parameters())`: {median(model['enumerate']) * ms:.0f} ms "
            f"({median(model['enumerate_cpu']) * ms:.0f} ms CPU); the walk ×"
            f"{median(model['walk']) / median(model['enumerate']):.1f} | ≤ {MAX_SECONDS:g} s |",
            f"| a kernel's first failing cell with that model in the namespace, raise → end of the cell (IPython's "
            f"traceback and the report under it), each in a fresh process | {first * ms:.0f} ms median of "
            f"{FIRST_ROUNDS} ({min(r['latency'] for r in firsts['with']) * ms:.0f}–"
            f"{max(r['latency'] for r in firsts['with']) * ms:.0f}); the report made in "
            f"{median(r['took'] for r in firsts['with']) * ms:.0f} ms, its walk "
            f"{median(r['walk'] for r in firsts['with']) * ms:.0f} ms, complete in {completed} of {FIRST_ROUNDS} "
            f"(else stopped at its bound and said so) | without the extension, alternating: {first_bare * ms:.0f} "
            f"ms (IPython's own first traceback); ours +{(first - first_bare) * ms:.0f} ms | ≤ "
            f"{TARGET_REPORT_MS:.0f} ms {'✅' if first * ms <= TARGET_REPORT_MS else '❌'} |",
            f"| later failing cells in the same shell | {with_ext * ms:.0f} ms median of {MODEL_RUNS} (the report "
            f"made in {median(model['made']) * ms:.0f} ms) | without the extension, alternating in the same shell: "
            f"{without * ms:.0f} ms; ours +{(with_ext - without) * ms:.0f} ms | |",
        ]
    rows += [
        "",
        f"Bounds: 10,000 items per container, 200,000 objects, {MAX_SECONDS:g} s ({HOLDERS_SECONDS:g} s in a report); "
        "what a bound left out is listed in the result (`Holders.skipped`). Load average "
        f"{load:.1f} on this machine during the run. `python -m bench.holders_bench`.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    if "--model" in sys.argv:
        print("RESULT " + json.dumps(model_driver()))
    elif "--first" in sys.argv:
        print("RESULT " + json.dumps(first_failure_driver(sys.argv[-1] == "1")))
    else:
        print(report())
