"""tests/setup_beside.py: a test that needs a venv waits while `./dev test` is still making it beside the tests, and
not at all otherwise."""

from __future__ import annotations

import fcntl
import threading
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
