"""The kernel's last `cluster.verify()` result (the kernel state's `VERIFIES`), kept for the Framework Env sidebar.

`verify()` hands its report to `remember()`, which keeps it and tells every observer (each open sidebar's comm); a
sidebar that opens later gets `last()` after its hello. Its wire form (the "verify" notice) is built by the
presentation layer (presentation/_wire.py `verify_notice`). Nothing here imports Ray.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..base._kernel_state import LastResultSlot
from ._verify_report import ClusterReport

# The last verify() and when it was made.
VERIFIES: LastResultSlot[tuple[ClusterReport, float]] = LastResultSlot("verify() result")


@dataclass(frozen=True)
class _Told:
    """An observer of (report, made) as LastResult tells it one value; equal for the same callback, so `unobserve`
    finds it."""

    callback: Callable[[ClusterReport, float], None]

    def __call__(self, result: tuple[ClusterReport, float]) -> None:
        self.callback(*result)


def remember(report: ClusterReport) -> None:
    """Keep `report` as the last verify() result, made now, and hand it to every observer (the open sidebars)."""
    VERIFIES.last().remember((report, time.time()))


def last() -> tuple[ClusterReport, float] | None:
    """The last result and when it was made (epoch seconds), or None before the first verify() in this process."""
    return VERIFIES.last().get()


def forget() -> None:
    VERIFIES.last().forget()


def observe(callback: Callable[[ClusterReport, float], None]) -> None:
    VERIFIES.last().observe(_Told(callback))


def unobserve(callback: Callable[[ClusterReport, float], None]) -> None:
    VERIFIES.last().unobserve(_Told(callback))


__all__ = ["forget", "last", "observe", "remember", "unobserve"]
