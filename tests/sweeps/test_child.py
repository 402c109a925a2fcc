"""The probe inside a point, in a real IPython shell: each cell's time and outcome from the cell hooks (out of memory
as the report recognises it), the measured phase's memory over time, and the values the process had."""

from __future__ import annotations

import json

import pytest

from mgenv_jupyter.base._kernel_state import kernel_state
from mgenv_jupyter.sweeps import _child


@pytest.fixture
def probe(ip, monkeypatch, tmp_path):
    monkeypatch.setenv(_child.NAMES_ENV, "SWEEP_PROBE_X")
    monkeypatch.setenv("SWEEP_PROBE_X", "7")
    monkeypatch.setenv(_child.REPORT_ENV, str(tmp_path / "report.json"))
    monkeypatch.setitem(kernel_state().values, _child._PROBE, None)
    _child.attach(ip)
    yield ip, tmp_path / "report.json"
    _child._current().close()


def test_the_report_of_a_measured_phase(probe):
    shell, path = probe
    shell.run_cell("setup_value = 1", store_history=True)
    _child.begin()
    assert json.loads(path.read_text())["final"] is False  # written at once, for a point that may never end
    shell.run_cell("import time\nblock = bytearray(50 * 2**20)\ntime.sleep(0.3)", store_history=True)
    shell.run_cell("raise MemoryError()", store_history=True)
    report = _child.end()
    assert json.loads(path.read_text()) == json.loads(json.dumps(report))
    assert [c["outcome"] for c in report["setup"]][-1] == "ok"
    ok, oom = report["runs"]
    assert ok["outcome"] == "ok" and 0.3 <= ok["seconds"] < 5
    assert oom["outcome"] == "oom" and oom["failure"]["framework"] == "python"
    assert report["values"] == {"SWEEP_PROBE_X": "7"} and report["peak_host_bytes"] > 50 * 2**20
    assert len(report["timeline"]["t"]) >= 3 and all(t >= 0 for t in report["timeline"]["t"])
    assert report["peak_device_bytes"] is None  # no GPU here


def test_an_error_message_is_bounded_and_masks_credentials(probe):
    shell, _ = probe
    _child.begin()
    shell.run_cell("raise ValueError('token ghp_" + "a" * 36 + " ' + 'x' * 10000)", store_history=True)
    failure = _child.end()["runs"][0]["failure"]
    assert failure["type"] == "builtins.ValueError" and "ghp_" + "a" * 36 not in failure["message"]
    assert len(failure["message"]) <= _child.MAX_MESSAGE
