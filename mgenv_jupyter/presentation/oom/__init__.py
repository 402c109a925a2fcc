"""`OomView`: an out-of-memory report as every front end shows it, in English or Chinese — the failure, the verdict
with its evidence, the numbers per device, the other processes on the GPU, the timeline before the failure, and the
remedies best first as `%envset` lines (with whether each applies live or needs a restart).

Its parts, one role each: `words` (the bilingual sentences), `text` (each section in words; the plain text is the
fallback for front ends without HTML, and what a user copies the `%envset` lines from), `timeline` (the memory chart's
snapshot of the failure), `html` (the HTML fallback) and `wire` (the labextension renderer's data).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...base._display import text_and_html
from ...protocol import Snapshot
from ...protocol._oom import OOM_MIME, OomReportData
from ._html import oom_html
from ._text import OomText, sparkline
from ._timeline import CHART_MIN_POINTS, CHART_PEAK_LINES, timeline_chart, timeline_title
from ._wire import oom_data

__all__ = ["CHART_MIN_POINTS", "CHART_PEAK_LINES", "OomView", "sparkline"]


@dataclass(frozen=True)
class OomView(OomText):
    """The report's text, with its chart, its HTML and its renderer's data: what IPython displays."""

    def timeline_title(self) -> str:
        return timeline_title(self)

    def timeline_chart(self) -> Snapshot | None:
        return timeline_chart(self)

    def data(self) -> OomReportData:
        return oom_data(self)

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The labextension renderer's data, with the text and HTML beside it for every other front end."""
        return {OOM_MIME: self.data(), **text_and_html(self)}

    def _repr_html_(self) -> str:
        return oom_html(self)
