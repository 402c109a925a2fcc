"""Which view shows which result (`_display.Shown`): the domains hold data and never import presentation, which sits
above them, so the package face tells them once, when it loads (`register()`). Each view is imported only when a
result of its kind is first shown: loading the package stays light."""

from __future__ import annotations

from typing import Any

from ..base._display import View, show_with, text_and_html


def _set_report(report: Any) -> View:
    from ..presentation._changes import SetReportView

    return SetReportView(report)


def _oom_report(report: Any) -> View:
    from ..presentation.oom import OomView

    return OomView(report)


def _free_result(result: Any) -> View:
    from ..presentation._freeing import FreeView

    return FreeView(result)


def _holders(holders: Any) -> View:
    from ..presentation._freeing import HoldersView

    return HoldersView(holders)


def _cluster_report(report: Any) -> View:
    from ..presentation._verify import VerifyView

    return VerifyView(report)


class _SweepShown:
    """A sweep as `%%envsweep` shows it: the static view's words (`SweepView`), and as the bundle the live figure's
    where widgets draw (which carries the static picture, HTML and text beside it), the static view's otherwise."""

    def __init__(self, result: Any) -> None:
        from ..presentation.sweep import SweepView

        self.static = SweepView(result)

    def lines(self) -> list[str]:
        return self.static.lines()

    def __repr__(self) -> str:
        return repr(self.static)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from ..widgets._sweep_chart import sweep_display

        shown = sweep_display(self.static.result, running=False)
        bundle = shown._repr_mimebundle_()
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        return {**text_and_html(self.static), **data}


def _sweep_applied(applied: Any) -> View:
    from ..presentation.sweep import AppliedView

    return AppliedView(applied)


def _sweep_point(point: Any) -> View:
    from ..presentation.sweep import PointView

    return PointView(point)


def _sweep_choice(choice: Any) -> View:
    from ..presentation.sweep import ChoiceView

    return ChoiceView(choice)


def register() -> None:
    """Show each kind of result as its view (idempotent)."""
    for kind, view in (("set_report", _set_report), ("oom_report", _oom_report), ("free_result", _free_result),
                       ("holders", _holders), ("cluster_report", _cluster_report), ("sweep_result", _SweepShown),
                       ("sweep_applied", _sweep_applied), ("sweep_point", _sweep_point),
                       ("sweep_choice", _sweep_choice)):
        show_with(kind, view)
