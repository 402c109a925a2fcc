"""Waiting for a condition instead of for a while: a test states what it waits for, and a slow machine only makes it
wait longer, never fail."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], timeout_s: float = 10, what: str = "the condition") -> None:
    """Return once `condition()` is true; fail after `timeout_s` seconds, naming `what` was waited for."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout_s:.0f} s"
        time.sleep(0.01)
