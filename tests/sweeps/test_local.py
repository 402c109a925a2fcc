"""One point in a fresh local kernel: its environment (the sweeping kernel's, with the point's values, the probe's
two parameters and its GPU), and a whole point run through jupyter_client."""

from __future__ import annotations

import threading

from mgenv_jupyter.sweeps._kernels import kernel_for_points
from mgenv_jupyter.sweeps._local import Job, Measure, point_environment, run_local_point, warm_imports
from mgenv_jupyter.sweeps._point import Outcome
from mgenv_jupyter.sweeps._replay import given_setup


def test_the_points_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ALREADY_HERE", "kept")
    monkeypatch.setenv("JPY_PARENT_PID", "1")
    env = point_environment(Job(0, {"X": "1GB"}, {"X": "1073741824"}, gpu=2), tmp_path / "r.json", ["X"])
    assert env["X"] == "1073741824" and env["ALREADY_HERE"] == "kept" and env["CUDA_VISIBLE_DEVICES"] == "2"
    assert env["MGENV_SWEEP_REPORT"] == str(tmp_path / "r.json") and env["MGENV_SWEEP_VARIABLES"] == "X"
    assert "JPY_PARENT_PID" not in env  # jupyter_client sets the point's own


def test_a_point_runs_its_setup_then_its_cell_in_a_fresh_kernel(tmp_path):
    measure = Measure("import os\nprint('held', os.environ['SWEEP_X'], base)", given_setup("base = 41 + 1"), 2,
                      60.0, None)
    point = run_local_point(Job(0, {"SWEEP_X": "a"}, {"SWEEP_X": "a"}), measure, kernel_for_points(), tmp_path,
                            threading.Event())
    assert point.outcome is Outcome.OK and len(point.runs) == 2 and point.kernel_values == {"SWEEP_X": "a"}
    assert point.printed.count("held a 42") == 2 and point.peak_host_bytes and point.pid
    assert not list(tmp_path.glob("*.partial"))


def test_only_what_the_setup_imports_before_anything_else_is_imported_ahead():
    setup = given_setup(["from __future__ import annotations\nimport numpy as np, json\nfrom os import path",
                         "import xml.dom\nos.environ['X'] = '1'\nimport torch", "import never"])
    assert warm_imports(setup) == ["numpy", "json", "os", "xml.dom"]
    assert warm_imports(given_setup("%load_ext mgenv_jupyter\nimport numpy")) == []
    assert warm_imports(given_setup("from . import here\nimport numpy")) == []
    assert warm_imports(given_setup("import numpy\nthis ( is not python")) == []


class CountingClient:
    """A real kernel client whose IOPub reads are counted."""

    def __init__(self, client: object) -> None:
        self.client = client
        self.reads = 0

    def get_iopub_msg(self, timeout: float | None = None) -> dict:
        message = self.client.get_iopub_msg(timeout=timeout)  # type: ignore[attr-defined]
        self.reads += 1
        return message


def test_one_tick_reads_a_bounded_number_of_messages_however_many_wait():
    """What keeps the deadline and the interrupt in force while a point prints without pause: a tick of the read loop
    takes at most COLLECT_MOST of the messages waiting, then the caller checks the clock and the sweep's cancel."""
    from jupyter_client.manager import start_new_kernel

    from mgenv_jupyter.sweeps import _local

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        message_id = client.execute("for _ in range(3000):\n    print('x', flush=True)")
        while client.get_shell_msg(timeout=60)["parent_header"].get("msg_id") != message_id:
            pass  # the reply comes after the prints: they wait now, hundreds of them
        while not client.iopub_channel.msg_ready():
            pass
        counting = CountingClient(client)
        _local._collect(counting, message_id, _local._Printed())
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert 0 < counting.reads <= 32  # _local.COLLECT_MOST, of the 1,000 or so waiting


def test_a_reply_larger_than_an_output_message_may_be_still_arrives(tmp_path):
    """Output messages over 4 MiB are dropped (a flood is never held); the cell's reply, on its own socket, is not."""
    measure = Measure("raise ValueError('x' * 10**7)", given_setup(""), 1, 60.0, None)
    point = run_local_point(Job(0, {"SWEEP_X": "a"}, {"SWEEP_X": "a"}), measure, kernel_for_points(), tmp_path,
                            threading.Event())
    assert point.outcome is Outcome.ERROR and point.failure and point.failure.kind == "builtins.ValueError"
