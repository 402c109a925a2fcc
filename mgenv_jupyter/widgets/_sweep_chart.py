"""`SweepChart`: a sweep's figure, live while its points run, drawn by the memory chart's component (uPlot) from
labextension/src/sweep, built into mgenv_jupyter/static/sweep_chart.js (an anywidget).

Its output carries the static view too (an SVG picture, HTML and text: `presentation.sweep.SweepView`), so a notebook
saved after the sweep shows the figure without a kernel, on GitHub and in nbviewer. Without its built script (a copy
installed without its front end) the sweep shows the static view alone (`sweep_display`).
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from ..base._text import LANGUAGES, current_language, learn_language
from ..presentation.sweep import SweepView
from ..protocol._output import OUTPUT_MIME, OUTPUT_VERSION
from ..sweeps._result import SweepResult
from ._memory_chart import _read_static


class SweepChart(anywidget.AnyWidget):
    """Time and peak memory against the setting (failed points marked, the budget line, the best point ringed) and
    each point's memory over time, for one sweep; `update(result)` redraws it."""

    _esm = _read_static("sweep_chart.js")
    _css = _read_static("sweep_chart.css")
    data = traitlets.Dict().tag(sync=True)
    height = traitlets.Int(240).tag(sync=True)
    live = True

    def __init__(self, result: SweepResult, running: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = SweepView(result, running=running)
        self.data = dict(self.view.figure())
        self.on_msg(self._on_front_end_message)

    @property
    def result(self) -> SweepResult:
        return self.view.result

    def update(self, result: SweepResult, running: bool | None = None) -> None:
        self.view.update(result, running)
        self.data = dict(self.view.figure())

    def _on_front_end_message(self, widget: Any, content: Any, buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "sweep.hello":
            language = content.get("language")
            if language in LANGUAGES:
                learn_language(language)
                self.view.language = current_language()
                self.data = dict(self.view.figure())

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget's view, with the static picture, HTML and text beside it for every front end without it."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = dict(data or {})
        data.update(self.view._repr_mimebundle_())
        data["text/html"] = self.view._repr_html_()
        data["text/plain"] = repr(self.view)
        data[OUTPUT_MIME] = {"v": OUTPUT_VERSION}  # the labextension's output host: live, or the static view saved
        return data, metadata


class _StaticSweep(SweepView):
    live = False


def sweep_display(result: SweepResult, running: bool = True) -> Any:
    """What shows a sweep: the live chart, or the static view where its script is not installed."""
    if SweepChart._esm:
        return SweepChart(result, running=running)
    return _StaticSweep(result, running=running)
