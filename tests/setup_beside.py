"""What `./dev test` is still setting up while the tests run. It starts pytest as soon as .venv and the front end are
ready and makes the rest beside it: one venv per framework and the two JupyterLab versions (.venvs/), and the oldest
front-end packages (build/frontend-oldest/), holding an exclusive lock on .venvs/.setting-up.lock until all are made.
A test that needs one of them asks here first: `venv(name)` waits for that lock (at once when nothing is being set
up, as in any other pytest run), then names the venv."""

from __future__ import annotations

import fcntl
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENVS = ROOT / ".venvs"
LOCK = VENVS / ".setting-up.lock"


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
