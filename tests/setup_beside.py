"""What `./dev test` is still setting up while the tests run. It starts pytest as soon as .venv and the front end are
ready and makes the rest beside it: one venv per framework and the two JupyterLab versions (.venvs/), and the oldest
front-end packages (build/frontend-oldest/), holding an exclusive lock on .venvs/.setting-up.lock until all are made.
A test that needs one of them asks here first: `venv(name)` waits for that lock (at once when nothing is being set
up, as in any other pytest run), then names the venv.

A test marked `setup_venvs` (tests/conftest.py marks the tiers that need the venvs; a test elsewhere is marked by
hand) waits before its time limit starts (`pytest_runtest_protocol` below, ahead of pytest-timeout's own): set-up on
a loaded machine can take longer than a test may, and a newcomer's first `./dev test tests/frameworks/...` in a fresh
clone would otherwise fail every test for the set-up's sake, not the test's."""

from __future__ import annotations

import fcntl
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENVS = ROOT / ".venvs"
LOCK = VENVS / ".setting-up.lock"


def setting_up() -> bool:
    """Whether `./dev test`'s set-up is still running beside the tests (it holds the lock exclusively)."""
    if not LOCK.exists():
        return False
    with LOCK.open("rb") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    return False


def wait_for_setup() -> None:
    """Return once `./dev test`'s set-up running beside the tests has finished (failed or not: a venv it did not make
    is then missing, and the test that needs it says so)."""
    if not LOCK.exists():
        return
    with LOCK.open("rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)  # blocks while the set-up holds it; released when the file closes


def venv(name: str) -> Path:
    """.venvs/<name>, once set up: "paddle", "megengine", "ray", "lab-oldest", ..."""
    wait_for_setup()
    return VENVS / name


@pytest.hookimpl(hookwrapper=True, tryfirst=True)  # the outermost wrapper: before pytest-timeout starts the clock
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    if item.get_closest_marker("setup_venvs") is not None and setting_up():
        started = time.monotonic()
        # Said on the process's own stderr: a pytest-xdist worker's reports carry no output of a test not yet begun.
        print(f"{item.nodeid}: waiting for ./dev test's set-up of .venvs (test-artifacts/setup-venvs.log) before "
              "its time limit starts", file=sys.stderr, flush=True)
        wait_for_setup()
        item.add_report_section("setup", "set-up", f"waited {time.monotonic() - started:.0f} s for ./dev test's "
                                "set-up of .venvs before the test's time limit started")
    yield
