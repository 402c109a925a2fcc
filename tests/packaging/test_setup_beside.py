"""tests/setup_beside.py: a test that needs a venv waits while `./dev test` is still making it beside the tests, and
not at all otherwise."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import setup_beside


def test_a_venv_is_named_only_once_the_setup_holding_the_lock_lets_go(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    lock = tmp_path / ".setting-up.lock"
    monkeypatch.setattr(setup_beside, "LOCK", lock)
    monkeypatch.setattr(setup_beside, "VENVS", tmp_path)
    named: list[Path] = []
    with lock.open("wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # what ./dev test takes before pytest starts
        waiting = threading.Thread(target=lambda: named.append(setup_beside.venv("paddle")), daemon=True)
        waiting.start()
        waiting.join(0.5)
        assert waiting.is_alive() and named == []  # still setting up: the test waits
    waiting.join(10)  # the set-up ended: its lock is released with the file
    assert named == [tmp_path / "paddle"]


def test_without_a_setup_running_a_venv_is_named_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(setup_beside, "VENVS", tmp_path)
    monkeypatch.setattr(setup_beside, "LOCK", tmp_path / ".setting-up.lock")  # never made: no ./dev test around
    assert setup_beside.venv("ray") == tmp_path / "ray"
    (tmp_path / ".setting-up.lock").touch()  # left by an earlier ./dev test that has ended
    assert setup_beside.venv("ray") == tmp_path / "ray"


def test_a_test_that_needs_the_setup_waits_for_it_before_its_time_limit_starts(tmp_path: Path) -> None:
    """A fresh clone's `./dev test tests/frameworks/...` on a loaded machine: the set-up outlasts a test's time limit.
    A pytest of its own (the suite's hook, a 2 s limit) runs one test that needs a venv while the set-up's lock is held
    for longer than that: the test waits outside its limit, says so, and passes. Before the hook, it timed out."""
    lock = tmp_path / ".setting-up.lock"
    (tmp_path / "conftest.py").write_text(
        "import pathlib\nimport setup_beside\n"
        f"setup_beside.LOCK = pathlib.Path({str(lock)!r})\n"
        "from setup_beside import pytest_runtest_protocol  # noqa: F401\n"
        "def pytest_configure(config):\n    config.addinivalue_line('markers', 'setup_venvs: needs the venvs')\n")
    (tmp_path / "test_needs_a_venv.py").write_text(
        "import pytest\nimport setup_beside\n\n@pytest.mark.setup_venvs\n"
        "def test_needs_a_venv():\n    setup_beside.venv('paddle')\n")
    env = {**os.environ, "PYTHONPATH": str(Path(setup_beside.__file__).parent)}
    with lock.open("wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # what ./dev test takes before pytest starts
        inner = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout", "2",
                                  "test_needs_a_venv.py"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        time.sleep(4)  # the scenario: a set-up that lasts twice the test's time limit
    output, _ = inner.communicate(timeout=120)
    assert inner.returncode == 0, output
    assert "1 passed" in output and "Timeout" not in output
    assert "waiting for ./dev test's set-up of .venvs" in output
