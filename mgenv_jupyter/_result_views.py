"""Which view shows which result (`_display.Shown`): the domains hold data and never import presentation, which sits
above them, so the package face tells them once, when it loads (`register()`). Each view is imported only when a
result of its kind is first shown: loading the package stays light."""

from __future__ import annotations

from typing import Any

from ._display import View, show_with


def _set_report(report: Any) -> View:
    from .presentation._changes import SetReportView

    return SetReportView(report)


def _oom_report(report: Any) -> View:
    from .presentation.oom import OomView

    return OomView(report)


def _free_result(result: Any) -> View:
    from .presentation._freeing import FreeView

    return FreeView(result)


def _holders(holders: Any) -> View:
    from .presentation._freeing import HoldersView

    return HoldersView(holders)


def _cluster_report(report: Any) -> View:
    from .presentation._verify import VerifyView

    return VerifyView(report)


def register() -> None:
    """Show each kind of result as its view (idempotent)."""
    for kind, view in (("set_report", _set_report), ("oom_report", _oom_report), ("free_result", _free_result),
                       ("holders", _holders), ("cluster_report", _cluster_report)):
        show_with(kind, view)
