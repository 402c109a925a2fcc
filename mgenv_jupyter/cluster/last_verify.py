"""The kernel's last `cluster.verify()` result, kept for the Framework Env sidebar, and its wire form.

`verify()` hands its report to `remember()`, which keeps it and tells every observer (each open sidebar's comm); a
sidebar that opens later gets `last()` after its hello. `notice()` turns a report into the sidebar's "verify" message
(protocol/sidebar.py VerifyNotice): node by node, each variable's session value and what that node's workers hold,
except secrets, which travel only as match or mismatch, never as a value or a mask. Nothing here imports Ray.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..catalog.secrets import MASK, is_secret
from ..last_result import LastResult
from ..protocol.sidebar import PROTOCOL_VERSION, VerifyArrival, VerifyNodeInfo, VerifyNotice, VerifyVariableInfo
from .verify import AT_START, MISSING

if TYPE_CHECKING:
    from .verify import ClusterReport, Seen

MAX_VALUE = 500  # characters of a value sent to the sidebar (it shows less; the rest is in the notebook's report)
MAX_REASON = 300

LAST: LastResult[tuple[ClusterReport, float]] = LastResult("verify() result")


@dataclass(frozen=True)
class _Told:
    """An observer of (report, made) as LastResult tells it one value; equal for the same callback, so `unobserve`
    finds it."""

    callback: Callable[[ClusterReport, float], None]

    def __call__(self, result: tuple[ClusterReport, float]) -> None:
        self.callback(*result)


def remember(report: ClusterReport) -> None:
    """Keep `report` as the last verify() result, made now, and hand it to every observer (the open sidebars)."""
    LAST.remember((report, time.time()))


def last() -> tuple[ClusterReport, float] | None:
    """The last result and when it was made (epoch seconds), or None before the first verify() in this process."""
    return LAST.get()


def forget() -> None:
    LAST.forget()


def observe(callback: Callable[[ClusterReport, float], None]) -> None:
    LAST.observe(_Told(callback))


def unobserve(callback: Callable[[ClusterReport, float], None]) -> None:
    LAST.unobserve(_Told(callback))


def notice(report: ClusterReport, made: float) -> VerifyNotice:
    """The sidebar's "verify" message for `report`: one entry per node, in the report's order, nodes that did not
    answer last with their reason."""
    nodes: list[VerifyNodeInfo] = []
    for node in dict.fromkeys(s.node for s in report.seen if s.node not in report.unanswered):
        variables = [_variable(s) for s in report.seen if s.node == node]
        missing = sum(1 for v in variables if not v["matches"] and v["arrived"] == "missing")
        mismatch = sum(1 for v in variables if not v["matches"]) - missing
        nodes.append({"node": node, "state": "mismatch" if missing or mismatch else "ok", "reason": None,
                      "ok": len(variables) - missing - mismatch, "mismatch": mismatch, "missing": missing,
                      "variables": variables})
    for node, why in report.unanswered.items():
        nodes.append({"node": node, "state": "lost", "reason": _cut(why, MAX_REASON), "ok": 0, "mismatch": 0,
                      "missing": 0, "variables": []})
    return {"v": PROTOCOL_VERSION, "type": "verify", "time": made, "ok": report.ok, "nodes": nodes}


def _variable(item: Seen) -> VerifyVariableInfo:
    # The report already masks what it knows to be secret; a value shaped like a credential is judged here again, so
    # neither the value nor the mask reaches the front end.
    secret = (MASK in (item.expected, item.seen) or is_secret(item.name, item.expected)
              or is_secret(item.name, item.seen))
    arrived: VerifyArrival = ("missing" if item.arrived == MISSING
                              else "at_start" if item.arrived == AT_START else "after_start")
    return {"name": item.name, "secret": secret,
            "expected": None if secret or item.expected is None else _cut(item.expected, MAX_VALUE),
            "seen": None if secret or item.seen is None else _cut(item.seen, MAX_VALUE),
            "matches": item.matches, "arrived": arrived, "imported_before": list(item.imported_before)}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


__all__ = ["forget", "last", "notice", "observe", "remember", "unobserve"]
