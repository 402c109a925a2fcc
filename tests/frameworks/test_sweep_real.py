"""Sweeps of real workloads on this machine's CPU: NumPy under glibc's MALLOC_ARENA_MAX, and a MegEngine training
step under DTR's eviction threshold. The frame's figures come from each point's own kernel, differ per point, and
match a separate run of the same cell in a fresh kernel started with the same value (no sweep, no extension)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import megengine_step
import nbformat
import pytest
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient
from setup_beside import venv

ROOT = Path(__file__).resolve().parents[2]

ARENA_SETUP = """import threading
import numpy as np

def churn(seed, rounds=8):
    # Eight threads allocate and mostly free NumPy arrays at once, each keeping one in 64: with an arena per thread
    # each arena keeps its own fragments (a higher peak), with one arena they wait for its lock.
    keep = []
    for _ in range(rounds):
        gate.wait()
        chunk = [np.ones(4000 + (i * 37 + seed) % 3000, dtype=np.uint8) for i in range(6000)]
        keep.extend(chunk[::64])
        del chunk
    return keep
"""
ARENA_CELL = """gate = threading.Barrier(8)
threads = [threading.Thread(target=churn, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""

MEGENGINE_SETUP = megengine_step.setup("mge.dtr.enable()")
MEGENGINE_CELL = "for _ in range(4):\n    loss = step()\nprint('loss', loss)\n"

FACTS = """import json as _json
_r = mgenv_jupyter.last_sweep()
print("FACTS", _json.dumps({"frame": _r.frame().astype(object).where(_r.frame().notna(), None).to_dict("records"),
    "pids": [p.pid for p in _r.points], "held": [dict(p.kernel_values) for p in _r.points],
    "statuses": [dict(p.kernel_statuses) for p in _r.points], "sweeper": __import__("os").getpid(),
    "timelines": [len(p.timeline.t) for p in _r.points],
    "failures": [None if p.failure is None else [p.outcome.value, p.failure.kind, p.failure.message, p.printed[-500:]]
                 for p in _r.points]}))"""

# The kernel's own high-water mark of resident memory, VmHWM: not getrusage's ru_maxrss, which Linux carries across
# execve from the process that started the kernel (in a long pytest run, pytest's own 1.9 GB became every separate
# run's "peak").
MEASURE = ("import time as _time, json as _json\n_t0 = _time.perf_counter()\n{cell}\n"
           "_hwm = next(int(_l.split()[1]) for _l in open('/proc/self/status') if _l.startswith('VmHWM:'))\n"
           "print('SEPARATE', _json.dumps({{'seconds': _time.perf_counter() - _t0, 'peak': _hwm * 1024}}))")


def sweep_in_kernel(kernel: str, setup: str, line: str, cell: str) -> dict:
    cells = ["%load_ext mgenv_jupyter\nimport mgenv_jupyter", setup, f"%%envsweep {line}\n{cell}", FACTS]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=400, kernel_name=kernel, allow_errors=True).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    assert "FACTS" in text, [o for c in nb.cells for o in c.outputs if o.output_type == "error"]
    return json.loads(text.split("FACTS", 1)[1].strip().splitlines()[0])


def separate_run(kernel: str, setup: str, cell: str, name: str, value: str, env: dict[str, str] | None = None) -> dict:
    """The same cell in a fresh kernel of the same spec, started with the value; measured by the cell itself."""
    manager, client = start_new_kernel(kernel_name=kernel, env={**(env or os.environ), name: value})
    try:
        client.execute_interactive(setup, timeout=150)
        found: list[str] = []

        def output(message: dict) -> None:
            if message["msg_type"] == "stream" and "SEPARATE" in message["content"]["text"]:
                found.append(message["content"]["text"].split("SEPARATE", 1)[1].strip().splitlines()[0])

        client.execute_interactive(MEASURE.format(cell=cell), timeout=150, output_hook=output)
    finally:
        manager.shutdown_kernel(now=True)
        client.stop_channels()
    return json.loads(found[0])


def check_against_separate_runs(facts: dict, separate: dict[str, dict], name: str, within: float = 0.2) -> None:
    """Each point's peak is within `within` of its separate run's (a share of it), its seconds within ten times."""
    assert len(set(facts["pids"])) == len(facts["pids"]) and facts["sweeper"] not in facts["pids"]
    for row in facts["frame"]:
        alone = separate[row[name]]
        assert row["outcome"] == "ok", facts["failures"]  # what failed says why (in CI's log too)
        assert abs(row["peak_host_bytes"] - alone["peak"]) <= within * alone["peak"], (row, alone)
        # Seconds agree only loosely on a shared machine (other tiers' processes run beside it); a tighter figure,
        # measured side by side, is bench/RESULTS.md's. Off by ten times would be a wrong clock, not load.
        assert alone["seconds"] / 10 <= row["seconds"] <= alone["seconds"] * 10, (row, alone)
    assert len({row["peak_host_bytes"] for row in facts["frame"]}) == len(facts["frame"])  # from each point's own
    assert all(count > 2 for count in facts["timelines"])  # memory over time, sampled in the point


def test_numpy_under_malloc_arena_max():
    name = "MALLOC_ARENA_MAX"
    facts = sweep_in_kernel("python3", ARENA_SETUP, f"{name}=1,8 --setup-timeout 120", ARENA_CELL)
    assert facts["held"] == [{name: "1"}, {name: "8"}]
    separate = {value: separate_run("python3", ARENA_SETUP, ARENA_CELL, name, value) for value in ("1", "8")}
    # One arena's peak depends on how its eight threads meet at its lock, which the machine's load decides: on an
    # idle machine a point and its separate run differ by up to 8% (three pairs: 278/257, 263/260, 258/242 MiB), and
    # in a fresh clone's run beside the browser tier a point was 24% above (303/243 MiB). Eight arenas' peak stays
    # within 1%. The bound still tells a point's own figure from a wrong one: the rows swapped fail the line below.
    check_against_separate_runs(facts, separate, name, within=0.35)
    peaks = {row[name]: row["peak_host_bytes"] for row in facts["frame"]}
    assert peaks["8"] - peaks["1"] > 30 * 1024**2  # an arena per thread keeps more fragments at its peak


def megengine_kernel(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A kernelspec for a Python with MegEngine and ipykernel: .venvs/megengine (./dev installs ipykernel there), or
    the one MGENV_MEGENGINE_KERNEL_PYTHON names; JUPYTER_PATH to find it."""
    python = os.environ.get("MGENV_MEGENGINE_KERNEL_PYTHON") or str(venv("megengine") / "bin" / "python")
    problem = None
    if not Path(python).exists():
        problem = f"{python} is missing (./dev setup makes .venvs/megengine)"
    elif subprocess.run([python, "-c", "import ipykernel, megengine"], capture_output=True).returncode:
        problem = f"{python} cannot import ipykernel and megengine (./dev installs ipykernel in .venvs/megengine)"
    if problem:
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail(problem)
        pytest.skip(problem)
    spec = tmp_path / "data" / "kernels" / "megengine-sweep"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "MegEngine (sweep)", "language": "python"}))
    paths = [str(tmp_path / "data"), *filter(None, [os.environ.get("JUPYTER_PATH")])]
    return "megengine-sweep", {**os.environ, "JUPYTER_PATH": os.pathsep.join(paths)}


def test_megengine_dtr_eviction_threshold_over_four_values(tmp_path, monkeypatch):
    name = "MEGENGINE_DTR_EVICTION_THRESHOLD"
    kernel, env = megengine_kernel(tmp_path)
    monkeypatch.setenv("JUPYTER_PATH", env["JUPYTER_PATH"])
    line = f"{name}=1MB,16MB,64MB,1GB --repeat 2 --timeout 120 --setup-timeout 120"
    facts = sweep_in_kernel(kernel, MEGENGINE_SETUP, line, MEGENGINE_CELL)
    sizes = {"1MB": 1024**2, "16MB": 16 * 1024**2, "64MB": 64 * 1024**2, "1GB": 1024**3}
    # Each kernel had the threshold in bytes (MegEngine reads "5GB" from the environment as 5 bytes) and read it at
    # import with that value: the session in the point says "effective".
    assert facts["held"] == [{name: str(sizes[row[name]])} for row in facts["frame"]]
    assert facts["statuses"] == [{name: "effective"}] * 4
    separate = {value: separate_run(kernel, MEGENGINE_SETUP, MEGENGINE_CELL, name, str(sizes[value]), env)
                for value in ("1MB", "1GB")}
    check_against_separate_runs({**facts, "frame": [row for row in facts["frame"] if row[name] in separate]},
                                separate, name)
