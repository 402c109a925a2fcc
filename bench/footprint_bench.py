"""What the extension costs every kernel that loads it (issue 21), side by side in one run:

- whole processes, alternating: a bare IPython shell running one cell, against the same shell that first runs
  `%load_ext mgenv_jupyter`: each process's wall time, CPU time (user + system) and peak RSS from the kernel's own
  accounting (`os.wait4`), and, inside the loaded one, the time until `%load_ext` returns, the modules it added,
  and whether any module or thread appeared in the second after it returned (a thread importing behind the user's
  back);
- one `%envset` against IPython's own `%env NAME=VALUE`, for a catalog variable and a variable outside the catalog,
  in alternating rounds in one shell.

Children run with bytecode cached (a warm-up run first, into a temporary cache), as an installed package runs.
Run: `python -m bench.footprint_bench`.
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
from typing import Any

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


def _run(code: str, env: dict[str, str]) -> tuple[dict[str, float], str]:
    """Run `code` in a new interpreter: its wall time (s), CPU time (s, user + system, from `os.wait4`, which reaps it
    and returns its own rusage) and peak RSS (MiB, as it printed it); and what it printed."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
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


def whole_process(rounds: int = ROUNDS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPYCACHEPREFIX=cache, MGENV_SIMULATE_GPU="")
        _run(BARE, env), _run(LOADED, env)  # bytecode compiled and cached, as an installed package has it
        bare: list[dict[str, float]] = []
        loaded: list[dict[str, float]] = []
        inside: list[dict[str, Any]] = []
        for index in range(rounds):
            order = ((BARE, bare), (LOADED, loaded))
            for code, into in order if index % 2 == 0 else order[::-1]:
                figures, printed = _run(code, env)
                into.append(figures)
                if code is LOADED:
                    inside.append(json.loads(printed.strip().splitlines()[-2]))
        afterwards = [json.loads(_run(AFTERWARDS, env)[1].strip().splitlines()[-1]) for _ in range(3)]

    def median(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    # the median of each pair's difference, so the machine's drift cancels
    added = {key: statistics.median(lo[key] - b[key] for lo, b in zip(loaded, bare, strict=True))
             for key in ("wall", "cpu", "rss")}
    return {
        "bare": {key: median(bare, key) for key in ("wall", "cpu", "rss")},
        "loaded": {key: median(loaded, key) for key in ("wall", "cpu", "rss")},
        "added": added,
        "load_ms": statistics.median(float(row["load_ms"]) for row in inside),
        "load_cpu_ms": statistics.median(float(row["load_cpu_ms"]) for row in inside),
        "modules_before": inside[-1]["modules_before"], "modules_after": inside[-1]["modules_after"],
        "imported_after": sorted({m for row in afterwards for m in row["imported_after"]}),
        "threads_started": sorted({t for row in afterwards for t in row["threads_started"]}),
        "heavy": sorted({m for row in inside for m in row["heavy"]}),
    }


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


def report() -> str:
    whole, sets = whole_process(), envset_against_env()
    bare, loaded, added = whole["bare"], whole["loaded"], whole["added"]
    rows = [
        "## A light footprint (issue 21)",
        "",
        "| what | bare IPython | IPython + `%load_ext mgenv_jupyter` | added | target |",
        "|---|---|---|---|---|",
        f"| whole process, wall | {1000 * bare['wall']:.0f} ms | {1000 * loaded['wall']:.0f} ms "
        f"| {1000 * added['wall']:+.0f} ms | — |",
        f"| whole process, CPU (user + system) | {1000 * bare['cpu']:.0f} ms | {1000 * loaded['cpu']:.0f} ms "
        f"| {1000 * added['cpu']:+.0f} ms | ≤ 60 ms |",
        f"| whole process, peak RSS | {bare['rss']:.1f} MiB | {loaded['rss']:.1f} MiB | {added['rss']:+.1f} MiB "
        "| ≤ 15 MiB |",
        f"| until `%load_ext` returns (in the process) | — | {whole['load_ms']:.0f} ms, {whole['load_cpu_ms']:.0f} ms "
        "of CPU | — | ≤ 60 ms |",
        f"| modules in `sys.modules` | {whole['modules_before']} | {whole['modules_after']} "
        f"| {int(whole['modules_after']) - int(whole['modules_before']):+d}; numpy or pandas among them: "
        f"{', '.join(whole['heavy']) or 'neither'} | — |",
        f"| threads `%load_ext` started | — | {', '.join(whole['threads_started']) or 'none'} | — "
        "| the sampler's at most |",
        f"| modules imported in the 2.5 s after it returned (a cell ran, the sampler ticked), 3 runs | — "
        f"| {len(whole['imported_after'])} | — | none |",
    ]
    for label, figures in sets.items():
        rows.append(f"| one `%envset` vs IPython's `%env NAME=VALUE`, {label} | `%env` {figures['env_us']:.0f} µs "
                    f"| `%envset` {figures['envset_us']:.0f} µs | ×{figures['ratio']:.1f} | ≤ ×2 |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(report())
