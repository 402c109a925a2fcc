"""What the extension costs every kernel that loads it (issue 21), side by side in one run:

- whole processes, alternating: a bare IPython shell running one cell, against the same shell that first runs
  `%load_ext mgenv_jupyter`: each process's wall time, CPU time (user + system) and peak RSS from the kernel's own
  accounting (`os.wait4`), and, inside the loaded one, the time until `%load_ext` returns, the modules it added,
  and whether any module or thread appeared in the second after it returned (a thread importing behind the user's
  back). With `--before REF`, the package as it was at git REF (exported to a temporary directory) loads in a third
  process each round, so before and after are measured side by side in the same run;
- one `%envset` against IPython's own `%env NAME=VALUE`, for a catalog variable and a variable outside the catalog,
  in alternating rounds in one shell.

Children run with bytecode cached (a warm-up run first, into a temporary cache), as an installed package runs;
`--no-bytecode` runs them with PYTHONDONTWRITEBYTECODE=1 and no cache, so every process compiles what it imports.
Every child runs in a directory of its own with the package's source first on PYTHONPATH, so which copy it loads never
depends on the directory the bench was started from.
Run: `python -m bench.footprint_bench [--before REF] [--no-bytecode] [--rounds N]`.
"""

from __future__ import annotations

import argparse
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
from typing import Any

SOURCE = Path(__file__).resolve().parents[1]  # the checkout whose package is measured

ROUNDS = 15
SET_ROUNDS = 15
SETS = 300

_SHELL = """
import sys, threading, time
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
"""
# The process's own peak RSS, from the kernel's high-water mark of its memory (VmHWM): `ru_maxrss` of a child keeps
# the parent's size from before exec, so it cannot tell a small child of a big benchmark process.
_PEAK = """
with open('/proc/self/status') as status:
    print('PEAK', next(line.split()[1] for line in status if line.startswith('VmHWM:')))
"""
BARE = _SHELL + "ip.run_cell('x = 1')\n" + _PEAK
LOADED = _SHELL + """
before = len(sys.modules)
start, cpu = time.perf_counter(), time.process_time()
ip.run_line_magic('load_ext', 'mgenv_jupyter')
load_ms, load_cpu_ms = 1000 * (time.perf_counter() - start), 1000 * (time.process_time() - cpu)
after = len(sys.modules)
ip.run_cell('x = 1')
import json
print(json.dumps({"load_ms": load_ms, "load_cpu_ms": load_cpu_ms, "modules_before": before, "modules_after": after,
                  "heavy": [m for m in ("numpy", "pandas") if m in sys.modules]}))
""" + _PEAK
# Apart from the timed processes: what appears after `%load_ext` returns (IPython's own first-cell imports done first).
AFTERWARDS = _SHELL + """
ip.run_cell('warm = 1')
threads = {t.ident for t in threading.enumerate()}
ip.run_line_magic('load_ext', 'mgenv_jupyter')
loaded = set(sys.modules)
started = sorted(t.name for t in threading.enumerate() if t.ident not in threads)
ip.run_cell('x = 1')
time.sleep(2.5)
import json
print(json.dumps({"imported_after": sorted(set(sys.modules) - loaded), "threads_started": started}))
"""


def _run(code: str, env: dict[str, str], cwd: str) -> tuple[dict[str, float], str]:
    """Run `code` in a new interpreter: its wall time (s), CPU time (s, user + system, from `os.wait4`, which reaps it
    and returns its own rusage) and peak RSS (MiB, as it printed it); and what it printed."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"the child failed (exit status {process.returncode})")
    printed = out.decode()
    peak = [line.split()[1] for line in printed.splitlines() if line.startswith("PEAK ")]
    return ({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": int(peak[-1]) / 1024 if peak else 0.0},
            printed)


def _exported(ref: str, into: str) -> str:
    """The package's source at git `ref`, written under `into`; the directory to put on PYTHONPATH."""
    archive = subprocess.run(["git", "-C", str(SOURCE), "archive", ref, "mgenv_jupyter"], check=True,
                             capture_output=True).stdout
    os.makedirs(into)
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def whole_process(rounds: int = ROUNDS, before: str | None = None, bytecode: bool = True) -> dict[str, Any]:
    """Bare against loaded (and against the package at git `before`, if given), alternating, `rounds` of each."""
    with tempfile.TemporaryDirectory() as work:
        base = {key: value for key, value in os.environ.items()
                if key not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH")}
        base["MGENV_SIMULATE_GPU"] = ""
        if bytecode:
            base["PYTHONPYCACHEPREFIX"] = os.path.join(work, "pycache")
        else:
            base["PYTHONDONTWRITEBYTECODE"] = "1"
        runs = {"bare": (BARE, {**base, "PYTHONPATH": str(SOURCE)}),
                "loaded": (LOADED, {**base, "PYTHONPATH": str(SOURCE)})}
        if before is not None:
            old = _exported(before, os.path.join(work, "before"))
            runs = {"bare": runs["bare"], "before": (LOADED, {**base, "PYTHONPATH": old}), "loaded": runs["loaded"]}
        for code, env in runs.values():
            _run(code, env, work)  # bytecode compiled and cached, as an installed package has it
        load = os.getloadavg()[0]
        figures: dict[str, list[dict[str, float]]] = {name: [] for name in runs}
        inside: dict[str, list[dict[str, Any]]] = {name: [] for name in runs if name != "bare"}
        names = list(runs)
        for index in range(rounds):
            shift = index % len(names)
            for name in names[shift:] + names[:shift]:  # each takes each place in the order equally often
                code, env = runs[name]
                measured, printed = _run(code, env, work)
                figures[name].append(measured)
                if name != "bare":
                    inside[name].append(json.loads(printed.strip().splitlines()[-2]))
        afterwards = [json.loads(_run(AFTERWARDS, runs["loaded"][1], work)[1].strip().splitlines()[-1])
                      for _ in range(3)]
        load_after = os.getloadavg()[0]

    def median(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    bare = figures["bare"]
    result: dict[str, Any] = {"rounds": rounds, "bytecode": bytecode, "before_ref": before, "load": (load, load_after),
                              "bare": {key: median(bare, key) for key in ("wall", "cpu", "rss")},
                              "modules_before": inside["loaded"][-1]["modules_before"]}
    for name in inside:
        rows, within = figures[name], inside[name]
        result[name] = {
            **{key: median(rows, key) for key in ("wall", "cpu", "rss")},
            # the median of each pair's difference and ratio, so the machine's drift cancels
            "added": {key: statistics.median(r[key] - b[key] for r, b in zip(rows, bare, strict=True))
                      for key in ("wall", "cpu", "rss")},
            "cpu_ratio": statistics.median(r["cpu"] / b["cpu"] for r, b in zip(rows, bare, strict=True)),
            "load_ms": statistics.median(float(row["load_ms"]) for row in within),
            "load_cpu_ms": statistics.median(float(row["load_cpu_ms"]) for row in within),
            "modules_after": within[-1]["modules_after"],
            "heavy": sorted({m for row in within for m in row["heavy"]}),
        }
    result["imported_after"] = sorted({m for row in afterwards for m in row["imported_after"]})
    result["threads_started"] = sorted({t for row in afterwards for t in row["threads_started"]})
    return result


def envset_against_env(rounds: int = SET_ROUNDS, sets: int = SETS) -> dict[str, dict[str, float]]:
    """Microseconds per magic, medians of alternating rounds, and the median of the rounds' ratios."""
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    cases = {"catalog variable (MGE_DEFAULT_DEVICE=gpu0)": "MGE_DEFAULT_DEVICE=gpu0",
             "variable outside the catalog (MGENV_BENCH_PLAIN=1)": "MGENV_BENCH_PLAIN=1"}
    results = {}
    for label, line in cases.items():
        ours: list[float] = []
        theirs: list[float] = []
        ip.run_line_magic("envset", line)
        for index in range(rounds):
            for magic in ("env", "envset") if index % 2 == 0 else ("envset", "env"):
                with contextlib.redirect_stdout(io.StringIO()):  # %env prints every assignment
                    seconds = timeit.timeit(f"ip.run_line_magic({magic!r}, {line!r})", number=sets, globals={"ip": ip})
                (ours if magic == "envset" else theirs).append(seconds / sets * 1e6)
        results[label] = {"envset_us": statistics.median(ours), "env_us": statistics.median(theirs),
                          "ratio": statistics.median(o / t for o, t in zip(ours, theirs, strict=True))}
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    return results


def _loaded_cells(whole: dict[str, Any], names: list[str], cell: Any) -> str:
    return " | ".join(cell(whole[name]) for name in names)


def report(before: str | None = None, bytecode: bool = True, rounds: int = ROUNDS) -> str:
    whole, sets = whole_process(rounds, before, bytecode), envset_against_env()
    bare, first = whole["bare"], int(whole["modules_before"])
    names = ["before", "loaded"] if before is not None else ["loaded"]
    heads = ([f"+ `%load_ext`, the package at {before}", "+ `%load_ext`, this checkout"] if before is not None
             else ["IPython + `%load_ext mgenv_jupyter`"])
    dashes = " | ".join("—" for _ in names[1:])
    rows = [
        "## A light footprint (issue 21)",
        "",
        f"{rounds} rounds of {len(names) + 1} alternating processes, bytecode "
        f"{'cached' if bytecode else 'not cached (PYTHONDONTWRITEBYTECODE=1)'}, load average "
        f"{whole['load'][0]:.1f} before and {whole['load'][1]:.1f} after; loaded columns: the median, then the median "
        "of the pairs' differences from bare (and ratios) in brackets.",
        "",
        f"| what | bare IPython | {' | '.join(heads)} | target |",
        "|---|---|" + "---|" * len(names) + "---|",
        f"| whole process, wall | {1000 * bare['wall']:.0f} ms | "
        + _loaded_cells(whole, names, lambda v: f"{1000 * v['wall']:.0f} ms ({1000 * v['added']['wall']:+.0f} ms)")
        + " | — |",
        f"| whole process, CPU (user + system) | {1000 * bare['cpu']:.0f} ms | "
        + _loaded_cells(whole, names, lambda v: f"{1000 * v['cpu']:.0f} ms ({1000 * v['added']['cpu']:+.0f} ms, "
                                                f"×{v['cpu_ratio']:.2f})")
        + " | ≤ +60 ms |",
        f"| whole process, peak RSS | {bare['rss']:.1f} MiB | "
        + _loaded_cells(whole, names, lambda v: f"{v['rss']:.1f} MiB ({v['added']['rss']:+.1f} MiB)")
        + " | ≤ +15 MiB |",
        "| until `%load_ext` returns (in the process) | — | "
        + _loaded_cells(whole, names, lambda v: f"{v['load_ms']:.0f} ms, {v['load_cpu_ms']:.0f} ms of CPU")
        + " | — |",
        f"| modules in `sys.modules` | {whole['modules_before']} | "
        + _loaded_cells(whole, names, lambda v: f"{v['modules_after']} ({v['modules_after'] - first:+d}); numpy or "
                                                f"pandas: {', '.join(v['heavy']) or 'neither'}")
        + " | — |",
        f"| threads `%load_ext` started (this checkout) | — | {dashes + ' | ' if dashes else ''}"
        f"{', '.join(whole['threads_started']) or 'none'} | the sampler's at most |",
        "| modules imported in the 2.5 s after it returned (a cell ran, the sampler ticked), 3 runs (this checkout) "
        f"| — | {dashes + ' | ' if dashes else ''}{len(whole['imported_after'])} | none |",
    ]
    for label, figures in sets.items():
        rows.append(f"| one `%envset` vs IPython's `%env NAME=VALUE`, {label} | `%env` {figures['env_us']:.0f} µs "
                    f"| {dashes + ' | ' if dashes else ''}`%envset` {figures['envset_us']:.0f} µs "
                    f"(×{figures['ratio']:.1f}) | ≤ ×2 |")
    return "\n".join(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="What loading the extension costs a kernel (issue 21).")
    parser.add_argument("--before", metavar="REF", help="also load the package as it was at this git ref")
    parser.add_argument("--no-bytecode", action="store_true", help="children compile what they import every time")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    arguments = parser.parse_args()
    print(report(arguments.before, not arguments.no_bytecode, arguments.rounds))
