"""Out-of-memory forensics (issue 12), measured side by side in one run on the simulated GPU:

- the always-on recorder's cost: the CPU of the kernel's one sampler thread (its own thread clock) with only the
  recorder subscribed (1 Hz), and with a chart at 10 Hz with and without the recorder beside it, windows alternating;
- the report's latency: in a real IPython shell with mgenv_jupyter loaded, from the moment a cell raises a recognised
  out-of-memory error to the moment the cell has finished with the normal traceback and the report shown under it
  (the report's own making, `OomReport.took`, beside it).
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
    from . import sampler_bench
except ImportError:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench import sampler_bench

WINDOW_SECONDS = 4.0
WINDOWS = 5
REPORTS = 20
TARGET_RECORDER = 0.2  # % of one core
TARGET_LATENCY = 300.0  # ms


def _thread_share(seconds: float) -> float:
    clock = sampler_bench._thread_cpu_clock("mgenv-memory-sampler")
    cpu, start = time.clock_gettime(clock), time.perf_counter()
    time.sleep(seconds)
    return 100 * (time.clock_gettime(clock) - cpu) / (time.perf_counter() - start)


def recorder_cost(windows: int = WINDOWS, seconds: float = WINDOW_SECONDS) -> dict[str, list[float]]:
    """% of one core used by the sampler thread: the recorder alone; a 10 Hz chart alone; the chart and the recorder."""
    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler
    from mgenv_jupyter.oom._recorder import Recorder

    shares: dict[str, list[float]] = {"recorder alone": [], "chart": [], "chart + recorder": []}
    with sampler_bench.simulated(1):
        close_kernel_sampler()
        recorder = Recorder().start()
        time.sleep(1.5)
        for _ in range(windows):
            shares["recorder alone"].append(_thread_share(seconds))
        sampler = kernel_sampler()
        chart = sampler.subscribe(lambda batch: None, interval=0.1)
        time.sleep(0.5)
        for round_ in range(windows):  # which goes first alternates, so drift in the machine's load cancels
            for with_recorder in ((True, False) if round_ % 2 else (False, True)):
                if with_recorder:
                    recorder.start()
                else:
                    recorder.stop()
                time.sleep(0.3)
                shares["chart + recorder" if with_recorder else "chart"].append(_thread_share(seconds))
        chart.close()
        recorder.stop()
        close_kernel_sampler()
    return shares


TORCH_MESSAGE = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which "
                 "1.50 GiB is free. Including non-PyTorch memory, this process has 60.00 GiB memory in use. Of the "
                 "allocated memory 40.00 GiB is allocated by PyTorch, and 19.00 GiB is reserved by PyTorch but "
                 "unallocated.")


def report_latency(reports: int = REPORTS) -> dict[str, list[float]]:
    """Milliseconds from the raise to the end of the cell (traceback and report shown), in the listeners after the
    cell (ours: recognise, make and show the report; IPython's traceback comes before them), and the report's making.
    """
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    import mgenv_jupyter

    with sampler_bench.simulated(1):
        ip = InteractiveShell.instance()
        marks: dict[str, float] = {}
        # listeners run in the order they were registered: one before ours and one after time what ours take
        ip.events.register("post_run_cell", lambda result: marks.update(before=time.perf_counter(),
                                                                         cpu_before=time.thread_time()))
        ip.run_line_magic("load_ext", "mgenv_jupyter")
        ip.events.register("post_run_cell", lambda result: marks.update(after=time.perf_counter(),
                                                                         cpu_after=time.thread_time()))
        for _ in range(3):  # cells before the failure, each with its peak; the recorder has history
            ip.run_cell("import time; time.sleep(0.7)", store_history=True)
        # A stand-in named as PyTorch's class (tests/data/cuda_facts_h100.json), PyTorch's wording.
        ip.user_ns["OutOfMemoryError"] = type("OutOfMemoryError", (RuntimeError,), {"__module__": "torch"})
        ip.user_ns["MESSAGE"] = TORCH_MESSAGE
        latencies: list[float] = []
        made: list[float] = []
        listeners: list[float] = []
        listeners_cpu: list[float] = []
        timeline: list[float] = []
        peaks: list[float] = []
        for _ in range(reports):
            with capture_output() as captured:
                ip.run_cell("import time\n_raised = time.perf_counter()\nraise OutOfMemoryError(MESSAGE)")
            done = time.perf_counter()
            report = mgenv_jupyter.last_oom()
            assert report is not None and captured.outputs, "no report was shown"
            latencies.append(1000 * (done - ip.user_ns["_raised"]))
            made.append(1000 * report.took)
            listeners.append(1000 * (marks["after"] - marks["before"]))
            listeners_cpu.append(1000 * (marks["cpu_after"] - marks["cpu_before"]))
            # the first failure also imports what a report needs (nothing is imported ahead on a thread)
            timeline.append(float(len(report.timeline.values)))
            peaks.append(float(len(report.timeline.earlier_peaks)))
            time.sleep(0.2)
        ip.run_line_magic("unload_ext", "mgenv_jupyter")
    return {"latency": latencies, "made": made, "listeners": listeners, "listeners_cpu": listeners_cpu,
            "timeline": timeline, "peaks": peaks}


ROOT = Path(__file__).resolve().parent.parent
FIRST_ROUNDS = 12
# A kernel's first failure, in a fresh process: what report_latency() measures, for one failure and the one after it.
_FIRST = """
import json, sys
from bench import oom_bench
figures = oom_bench.report_latency(2)
print("FIGURES " + json.dumps({key: values for key, values in figures.items()}))
"""
# IPython's own first traceback, without the extension: the part of the first failure that is not ours.
_BARE = """
import json, time
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
ip = InteractiveShell.instance()
for _ in range(3):
    ip.run_cell("import time; time.sleep(0.05)", store_history=True)
with capture_output():
    ip.run_cell("import time\\n_raised = time.perf_counter()\\nraise RuntimeError('CUDA out of memory.')")
print("FIGURES " + json.dumps({"latency": [1000 * (time.perf_counter() - ip.user_ns["_raised"])]}))
"""


def first_reports(trees: dict[str, str], rounds: int = FIRST_ROUNDS) -> dict[str, list[dict[str, Any]]]:
    """A kernel's first out-of-memory report, each in a fresh process, for each code tree (label → the folder holding
    its `mgenv_jupyter`; "" for the installed one), and a bare IPython's first traceback; the processes alternate and
    rotate which goes first, so the machine's drift hits each alike. Bytecode is cached (a warm-up run first, into a
    temporary cache), as an installed package has it. They run in an empty folder: `python -c` puts its working
    directory first on the path, before the tree's."""
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in (*trees, "bare IPython")}
    with tempfile.TemporaryDirectory() as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache

        def child(label: str) -> dict[str, Any]:
            tree = trees.get(label, "")
            paths = [path for path in (tree, str(ROOT)) if path]
            code = _BARE if label == "bare IPython" else _FIRST
            out = subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONPATH": os.pathsep.join(paths)},
                                 capture_output=True, text=True, check=True, cwd=cache).stdout
            return json.loads(next(line for line in out.splitlines() if line.startswith("FIGURES "))[8:])

        labels = list(runs)
        for label in labels:
            child(label)  # compiles and caches the bytecode
        for round_ in range(rounds):
            shift = round_ % len(labels)
            for label in labels[shift:] + labels[:shift]:
                runs[label].append(child(label))
    return runs


def first_report_rows(runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """RESULTS.md rows: per tree the first failure's whole cell, our listeners' wall and CPU time, and the report's
    timeline and peaks; the failure after it; and a bare IPython's first traceback."""
    median = statistics.median
    rows = ["| code | the first failure, raise → end of the cell | of it ours (wall) | ours (CPU) "
            "| timeline points, earlier cells' peaks | the second failure | ours (CPU) |",
            "|---|---|---|---|---|---|---|"]
    for label, figures in runs.items():
        if label == "bare IPython":
            continue
        first = [run["latency"][0] for run in figures]
        rows.append(
            f"| {label} | {median(first):.0f} ms ({min(first):.0f}–{max(first):.0f}) "
            f"| {median(run['listeners'][0] for run in figures):.1f} ms "
            f"| {median(run['listeners_cpu'][0] for run in figures):.1f} ms "
            f"| {min(run['timeline'][0] for run in figures):.0f}, {min(run['peaks'][0] for run in figures):.0f} "
            f"| {median(run['latency'][1] for run in figures):.0f} ms "
            f"| {median(run['listeners_cpu'][1] for run in figures):.1f} ms |")
    bare = [run["latency"][0] for run in runs["bare IPython"]]
    rows.append(f"| bare IPython (its own first traceback, no extension) | {median(bare):.0f} ms "
                f"({min(bare):.0f}–{max(bare):.0f}) | — | — | — | — | — |")
    return rows


def report() -> str:
    cost = recorder_cost()
    latency = report_latency()
    median = statistics.median
    added = [with_ - without for with_, without in zip(cost["chart + recorder"], cost["chart"], strict=True)]
    alone = median(cost["recorder alone"])
    rows = [
        "## Out-of-memory forensics (issue 12)",
        "",
        "| what | measured | side by side | target |",
        "|---|---|---|---|",
        f"| the always-on recorder alone: the kernel's sampler at 1 Hz | {alone:.3f}% of one core (median of "
        f"{len(cost['recorder alone'])} windows, {min(cost['recorder alone']):.3f}–"
        f"{max(cost['recorder alone']):.3f}%) | no sampler at all: 0% | ≤ {TARGET_RECORDER}% |",
        f"| the recorder beside a chart at 10 Hz | {median(added):+.3f}% of one core (median of the paired "
        f"differences) | chart alone {median(cost['chart']):.2f}%, chart + recorder "
        f"{median(cost['chart + recorder']):.2f}% | ≤ {TARGET_RECORDER}% |",
        f"| report shown after the exception (raise → end of the cell, traceback and report) | "
        f"{median(latency['latency']):.0f} ms median, {max(latency['latency']):.0f} ms at most "
        f"({len(latency['latency'])} failures) | the report's own making {median(latency['made']):.1f} ms median, "
        f"{max(latency['made']):.1f} ms at most | ≤ {TARGET_LATENCY:.0f} ms |",
        f"| … the first failure, which imports what a report needs (no thread imports it ahead) | "
        f"{latency['latency'][0]:.0f} ms, {latency['listeners'][0]:.0f} ms of it ours (after IPython's traceback; "
        f"{latency['listeners_cpu'][0]:.0f} ms of CPU); "
        f"its timeline {latency['timeline'][0]:.0f} points, the peaks of {latency['peaks'][0]:.0f} earlier cells "
        f"| the later ones {median(latency['latency'][1:]):.0f} ms median, "
        f"{median(latency['listeners'][1:]):.0f} ms of it ours "
        f"| ≤ {TARGET_LATENCY:.0f} ms, with a timeline and per-cell peaks |",
        "",
        "The sampler thread's CPU from its own clock over windows of "
        f"{WINDOW_SECONDS:.0f} s, on a simulated H100 through the fake NVML library (Python stands in for the driver, "
        "so a tick costs more here than on hardware). The latency runs in a real IPython shell with the extension "
        "loaded and the recorder running, a PyTorch-named stand-in error with PyTorch's wording (fragmentation "
        "verdict, a remedy checked against the catalog); it includes IPython's own traceback.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    if sys.argv[1:2] == ["first"]:  # `first [LABEL=TREE ...]`: only the first reports, against other code trees
        trees = {"this checkout": "", **dict(arg.split("=", 1) for arg in sys.argv[2:])}
        print("\n".join(first_report_rows(first_reports(trees))))
    else:
        print(report())
