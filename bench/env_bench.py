"""Foundation benchmarks, measured side by side in one run (these machines are noisy, so ratios matter more than
absolute times):

- start-up: a bare IPython shell vs the same plus `%load_ext mgenv_jupyter` (target: ≤ 150 ms added), and vs the
  same plus building the catalog alone (every framework's entries: its share of the start-up);
- one `%envset` (median, target ≤ 200 µs), next to IPython's own `%env NAME=VALUE`: a plain choice
  (MGE_DEFAULT_DEVICE) and PyTorch's allocator config, the costliest value to check (a typed key:value grammar);
- the import watcher, watching every module the catalog names: importing 1,000 unrelated modules with and without it
  (target: ≤ 2 % slower);
- `%envset` against `%env` (issue 21, target ≤ 2×), a catalog variable and one outside the catalog, for one or more
  code trees side by side: `python -m bench.env_bench against [LABEL=TREE ...]` (each tree a folder holding an
  `mgenv_jupyter`, e.g. `git archive` of an older commit); fresh processes alternate between the trees.

Run: `python -m bench.env_bench`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROUNDS = 15
PAIRS = 150  # the import-watcher pairs: its cost is small next to this machine's noise, so many of them


def _run_timed(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - start


ALLOCATOR_CONF = "PYTORCH_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128,garbage_collection_threshold:0.6"


def startup() -> dict[str, float]:
    bare = ("from IPython.core.interactiveshell import InteractiveShell\n"
            "ip = InteractiveShell.instance()\n")
    loaded = bare + "ip.run_line_magic('load_ext', 'mgenv_jupyter')\n"
    catalog_only = bare + "from mgenv_jupyter.catalog import catalog\ncatalog()\n"
    bare_times, loaded_times, catalog_times = [], [], []
    for _ in range(ROUNDS):  # alternate so drift hits all equally
        bare_times.append(_run_timed(bare))
        loaded_times.append(_run_timed(loaded))
        catalog_times.append(_run_timed(catalog_only))
    b, lo, c = (statistics.median(t) for t in (bare_times, loaded_times, catalog_times))
    return {"bare_ms": b * 1e3, "loaded_ms": lo * 1e3, "added_ms": (lo - b) * 1e3, "ratio": lo / b,
            "catalog_ms": (c - b) * 1e3}


def catalog_size() -> dict[str, int]:
    from mgenv_jupyter.catalog import catalog

    entries = list(catalog())
    return {"entries": len(entries), "new": sum(e.framework in ("torch", "jax", "tensorflow") for e in entries)}


def envset_cost() -> dict[str, float]:
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    samples_env, samples_set, samples_torch = [], [], []
    for _ in range(ROUNDS):
        with contextlib.redirect_stdout(io.StringIO()):  # %env prints every assignment
            samples_env.append(min(timeit.repeat(lambda: ip.run_line_magic("env", "MGENV_BENCH_PLAIN=1"),
                                                 number=200, repeat=1)) / 200)
        samples_set.append(min(timeit.repeat(lambda: ip.run_line_magic("envset", "MGE_DEFAULT_DEVICE=gpu0"),
                                             number=200, repeat=1)) / 200)
        samples_torch.append(min(timeit.repeat(lambda: ip.run_line_magic("envset", ALLOCATOR_CONF),
                                               number=200, repeat=1)) / 200)
    e, s, t = (statistics.median(x) for x in (samples_env, samples_set, samples_torch))
    return {"envset_us": s * 1e6, "ipython_env_us": e * 1e6, "ratio": s / e, "torch_us": t * 1e6,
            "torch_ratio": t / e}


def import_watcher_overhead() -> dict[str, float]:
    """In one process, alternately with and without the watcher installed, import 1,000 fresh modules (dropped from
    sys.modules between rounds, bytecode cached) and compare the medians."""
    from mgenv_jupyter.catalog import catalog
    from mgenv_jupyter.runtime._import_watcher import ImportWatcher

    watcher = ImportWatcher({module for entry in catalog() for module in entry.readers})  # as session() makes it
    names = [f"bench_mod_{i}" for i in range(1000)]
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            Path(folder, f"{name}.py").write_text("VALUE = 1\n")
        sys.path.insert(0, folder)
        try:
            plain: list[float] = []
            watched: list[float] = []
            for round_number in range(PAIRS + 1):
                order = ((False, plain), (True, watched))
                for watch, into in order if round_number % 2 else order[::-1]:  # neither always goes first
                    for name in names:
                        sys.modules.pop(name, None)
                    if watch:
                        watcher.install()
                    start = time.perf_counter()
                    for name in names:
                        __import__(name)
                    elapsed = time.perf_counter() - start
                    watcher.uninstall()
                    if round_number:  # the first round compiles the bytecode
                        into.append(elapsed)
        finally:
            sys.path.remove(folder)
            for name in names:
                sys.modules.pop(name, None)
    p, w = statistics.median(plain), statistics.median(watched)
    # Each round's pair ran back to back, so its ratio cancels the machine's drift; the median ratio is the figure.
    ratio = statistics.median(b / a for a, b in zip(plain, watched, strict=True))
    return {"plain_ms": p * 1e3, "watched_ms": w * 1e3, "overhead_pct": (ratio - 1) * 100}


# Each case: the lines the calls take in turn. The third changes the value on every call, half the time to a longer
# one: a change that grows the environment is checked against what the whole environment holds.
AGAINST_CASES = {"catalog variable (MGE_DEFAULT_DEVICE=gpu0)": ["MGE_DEFAULT_DEVICE=gpu0"],
                 "variable outside the catalog (MGENV_BENCH_PLAIN=1)": ["MGENV_BENCH_PLAIN=1"],
                 "a new value every call (MGE_DEFAULT_DEVICE=gpu1, then gpu12)": ["MGE_DEFAULT_DEVICE=gpu1",
                                                                                  "MGE_DEFAULT_DEVICE=gpu12"]}
AGAINST_PROCESSES = 8  # per tree
# One process: the magics in alternating rounds (which goes first alternates), each round's calls timed by the
# thread's CPU clock (this machine's other load moves wall time far more), the garbage collector off as timeit has it.
_AGAINST = """
import contextlib, gc, io, json, statistics, sys, time
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "mgenv_jupyter")
cases, rounds, calls = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def timed(magic, lines):
    run, turns = ip.run_line_magic, lines * (calls // len(lines))
    start = time.thread_time()
    for line in turns:
        run(magic, line)
    return (time.thread_time() - start) / len(turns) * 1e6
gc.disable()
figures = {}
with contextlib.redirect_stdout(io.StringIO()):  # %env prints every assignment
    for label, lines in cases.items():
        timed("envset", lines), timed("env", lines)
        ours, theirs = [], []
        for index in range(rounds):
            for magic in ("env", "envset") if index % 2 == 0 else ("envset", "env"):
                (ours if magic == "envset" else theirs).append(timed(magic, lines))
        figures[label] = {"envset_us": statistics.median(ours), "env_us": statistics.median(theirs),
                          "ratio": statistics.median(o / t for o, t in zip(ours, theirs))}
print("FIGURES " + json.dumps(figures))
"""


def envset_against_env(trees: dict[str, str], processes: int = AGAINST_PROCESSES, rounds: int = 20,
                       calls: int = 200) -> dict[str, dict[str, dict[str, list[float]]]]:
    """Per tree (label → the folder holding its `mgenv_jupyter`, "" for this checkout's) and per case: each fresh
    process's median µs of CPU per `%envset` and per `%env`, and its median ratio of the rounds. The processes
    alternate between the trees, rotating which goes first; bytecode is cached, as an installed package has it. They
    run in an empty folder: `python -c` puts its working directory first on the path, before the tree's."""
    root = Path(__file__).resolve().parent.parent
    found: dict[str, dict[str, dict[str, list[float]]]] = {
        label: {case: {"envset_us": [], "env_us": [], "ratio": []} for case in AGAINST_CASES} for label in trees}
    with tempfile.TemporaryDirectory() as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPYCACHEPREFIX=cache, MGENV_SIMULATE_GPU="")

        def child(label: str, how_many: int) -> dict[str, dict[str, float]]:
            paths = os.pathsep.join(path for path in (trees[label], str(root)) if path)
            out = subprocess.run([sys.executable, "-c", _AGAINST, json.dumps(AGAINST_CASES), str(how_many),
                                  str(calls)], env={**env, "PYTHONPATH": paths}, capture_output=True, text=True,
                                 check=True, cwd=cache).stdout
            return json.loads(next(line for line in out.splitlines() if line.startswith("FIGURES "))[8:])

        labels = list(trees)
        for label in labels:
            child(label, 1)  # compiles and caches the bytecode
        for index in range(processes):
            shift = index % len(labels)
            for label in labels[shift:] + labels[:shift]:
                for case, figures in child(label, rounds).items():
                    for key, value in figures.items():
                        found[label][case][key].append(value)
    return found


def against_rows(found: dict[str, dict[str, dict[str, list[float]]]]) -> list[str]:
    """RESULTS.md rows: per tree and case, the medians over the processes, and the range of the processes' ratios."""
    median = statistics.median
    rows = ["| code | case | `%env` (µs of CPU) | `%envset` (µs of CPU) | ratio (median of the processes; their range) "
            "| target |", "|---|---|---|---|---|---|"]
    for label, cases in found.items():
        for case, figures in cases.items():
            rows.append(f"| {label} | {case} | {median(figures['env_us']):.1f} | {median(figures['envset_us']):.1f} "
                        f"| ×{median(figures['ratio']):.2f} ({min(figures['ratio']):.2f}–{max(figures['ratio']):.2f}) "
                        "| ≤ ×2 |")
    return rows


def report() -> str:
    s, e, w, n = startup(), envset_cost(), import_watcher_overhead(), catalog_size()
    return "\n".join([
        "## Foundation (issues 2 and 11)",
        "",
        f"The catalog: {n['entries']} entries, {n['new']} of them PyTorch, JAX and TensorFlow (issue 11).",
        "",
        "| what | measured | side by side | target |",
        "|---|---|---|---|",
        f"| `%load_ext mgenv_jupyter` added to a bare IPython start | {s['added_ms']:.0f} ms "
        f"| bare {s['bare_ms']:.0f} ms vs loaded {s['loaded_ms']:.0f} ms (×{s['ratio']:.2f}); building the "
        f"catalog alone adds {s['catalog_ms']:.0f} ms | ≤ 150 ms |",
        f"| one `%envset` (median) | {e['envset_us']:.0f} µs "
        f"| IPython's `%env NAME=VALUE` {e['ipython_env_us']:.0f} µs (×{e['ratio']:.1f}) | ≤ 200 µs |",
        f"| one `%envset` of PyTorch's allocator config, three keys (median) | {e['torch_us']:.0f} µs "
        f"| IPython's `%env` ×{e['torch_ratio']:.1f} | ≤ 200 µs |",
        f"| import watcher (every module the catalog names), 1,000 unrelated modules | {w['overhead_pct']:+.2f} % "
        f"| {w['plain_ms']:.1f} ms without vs "
        f"{w['watched_ms']:.1f} ms with | ≤ 2 % |",
        "",
        f"Medians of {ROUNDS} alternating rounds; the import watcher: median of {PAIRS} paired ratios, in one "
        "process, alternating which of the pair goes first.",
    ])


if __name__ == "__main__":
    if sys.argv[1:2] == ["against"]:
        print("\n".join(against_rows(envset_against_env({"this checkout": "",
                                                          **dict(arg.split("=", 1) for arg in sys.argv[2:])}))))
    else:
        print(report())
