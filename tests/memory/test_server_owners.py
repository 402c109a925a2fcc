"""The kernel asks its own Jupyter server which notebook holds a GPU process: the server found by its runtime file
(named by the kernel's parent pid), the reply read field by field as data (hostile replies are left out or cut), and
nothing at all — never an exception — without a server, without the extension, or when the server refuses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mgenv_jupyter.memory._server_owners import NotebookOwner, _parse, notebook_owners, own_server

KERNEL = {"id": "k-1", "name": "python3", "notebooks": ["big.ipynb"], "execution_state": "idle",
          "last_activity": "2026-01-01T00:00:00+00:00", "idle_seconds": 7200.5, "pid_known": True}


def test_the_reply_is_read_as_data_and_anything_of_another_shape_is_left_out():
    reply = {"v": 1, "owners": [
        {"pid": 10, "kernel": KERNEL},
        {"pid": 11, "kernel": None},
        {"pid": "12", "kernel": KERNEL},
        {"pid": 13, "kernel": {**KERNEL, "notebooks": "big.ipynb"}},
        {"pid": 14, "kernel": {**KERNEL, "idle_seconds": True, "notebooks": ["x" * 5000, 7] + ["n"] * 40}},
        "nonsense",
    ]}
    found = _parse(reply)
    assert found[10] == NotebookOwner("k-1", ("big.ipynb",), "idle", 7200.5)
    assert set(found) == {10, 14}
    assert found[14].idle_seconds is None and len(found[14].notebooks) == 15 and len(found[14].notebooks[0]) == 1024
    for hostile in (None, [], {"owners": "x"}, {"owners": [None]}, 7):
        assert _parse(hostile) == {}


def test_its_own_server_is_the_runtime_file_of_its_parent(tmp_path: Path):
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    assert own_server(str(runtime), parent=4242) is None
    (runtime / "jpserver-4242.json").write_text(json.dumps(
        {"url": "http://127.0.0.1:8888/jh/", "base_url": "/jh/", "token": "t0k", "pid": 4242}))
    assert own_server(str(runtime), parent=4242) == ("http://127.0.0.1:8888/jh/", "t0k")
    (runtime / "jpserver-4243.json").write_text(json.dumps({"url": "file:///etc/passwd", "token": "t"}))
    assert own_server(str(runtime), parent=4243) is None
    (runtime / "jpserver-4244.json").write_text("not json")
    assert own_server(str(runtime), parent=4244) is None
    assert own_server(str(runtime), parent=os.getpid()) is None


@pytest.mark.parametrize("pids", [[], [0, -1, 2**32]])
def test_nothing_to_ask_asks_nothing(pids):
    assert notebook_owners(pids, server=("http://127.0.0.1:9/", "t")) == {}


def test_a_server_that_does_not_answer_gives_nothing_quickly():
    assert notebook_owners([1], server=("http://127.0.0.1:9/", "t"), timeout=0.5) == {}
