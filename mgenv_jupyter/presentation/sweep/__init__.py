"""`SweepView`: a sweep as every front end shows it — the figure (time and peak against the setting, failed points
marked, the budget line, the best point ringed, each point's memory over time), the recommendation, one row a point,
and exactly what ran before the cell — as text, as HTML with a static SVG picture, and as the live chart's data.

Its parts: `_words` (the sentences), `_figure` (the figure's data, in the view's language), `_svg` (the static picture)
and `_applied` (what `.apply()` did, in words).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ...base._markup import TABLE_STYLE
from ...base._text import current_language
from ...catalog._secrets import shown
from ...catalog._values import format_size
from ...protocol._sweep import SweepFigure
from ...sweeps._point import PointResult
from ...sweeps._result import Applied, Choice, SweepResult
from . import _words as words
from ._figure import failure_note, figure, point_label, seconds_text, status_text, title
from ._svg import sweep_svg

__all__ = ["AppliedView", "ChoiceView", "PointView", "SweepView", "figure", "sweep_svg"]

SVG_MIME = "image/svg+xml"
STANDALONE_TEXT = "#333333"


@dataclass
class SweepView:
    """A sweep result in `language` (the session's by default); `running` while its points still run."""

    result: SweepResult
    language: str = field(default_factory=current_language)
    running: bool = False

    def update(self, result: SweepResult, running: bool | None = None) -> None:
        self.result = result
        if running is not None:
            self.running = running

    def figure(self) -> SweepFigure:
        return figure(self.result, self.language, self.running)

    # ---- text ----------------------------------------------------------------------------------------------------

    def lines(self) -> list[str]:
        language, result = self.language, self.result
        out = [title(result, language),
               status_text(result, language, self.running), self._kernel_line()]
        out.extend(self._setup_lines())
        for point in result.points:
            out.append("  " + "; ".join(part for part in self._row(point) if part))
        return out

    def _kernel_line(self) -> str:
        language, result = self.language, self.result
        if result.kernel is None:
            line = words.KERNEL_OWN.get(language)
        else:
            line = words.KERNEL_SAME.get(language).format(kernel=result.kernel)
        if result.runner == "ray":  # the same kernel on a node Ray chose
            line += "; " + words.KERNEL_RAY.get(language)
        gpus = [slot for slot in result.slots if slot is not None]
        if gpus:
            names = ", ".join(f"gpu{gpu}" for gpu in gpus)
            if result.simulated_devices:
                names += f" ({words.SIMULATED.get(language)})"
            line += "; " + words.SLOTS_GPUS.get(language).format(gpus=names)
        return line

    def _setup_lines(self) -> list[str]:
        language, setup = self.language, self.result.setup
        if not setup.cells:
            lines = [words.SETUP_NONE.get(language)]
        elif setup.replayed:
            cells = ", ".join(f"[{cell.number}]" for cell in setup.cells)
            lines = [words.SETUP_REPLAYED.get(language).format(count=len(setup.cells), cells=cells)]
        else:
            lines = [words.SETUP_GIVEN.get(language).format(count=len(setup.cells))]
        if setup.left_out:
            left = ", ".join(f"[{number}] {words.LEFT_OUT[reason.value].get(language)}"
                             for number, reason in setup.left_out)
            lines.append(words.LEFT_OUT_LINE.get(language).format(cells=left))
        return lines

    def _row(self, point: Any) -> list[str]:
        language, result = self.language, self.result
        best = result.best if not self.running else None
        mark = f" ({words.BEST_MARK.get(language)})" if best is not None and best.index == point.index else ""
        return point_parts(point, f"{point_label(result, point)}{mark}", language, result.timeout)

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    # ---- HTML and the picture ------------------------------------------------------------------------------------

    def svg(self, color: str = "currentColor") -> str:
        return sweep_svg(self.figure(), color)

    def _repr_html_(self) -> str:
        language, result = self.language, self.result
        head = "".join(f"<div class='mgenv-table-note'>{html.escape(line)}</div>"
                       for line in [self._kernel_line(), *self._setup_lines()])
        headers = [*result.variables, *(words.HEADERS[key].get(language)
                                        for key in ("outcome", "seconds", "peak_device", "peak_host", "gpu", "note"))]
        best = result.best if not self.running else None
        rows = []
        for point in result.points:
            mark = f" ★ {words.BEST_MARK.get(language)}" if best is not None and best.index == point.index else ""
            cells = [*point.values.values(), words.OUTCOMES[point.outcome.value].get(language) + mark,
                     "" if point.seconds is None else seconds_text(point.seconds),
                     "" if point.peak_device_bytes is None else format_size(point.peak_device_bytes),
                     "" if point.peak_host_bytes is None else format_size(point.peak_host_bytes),
                     "" if point.gpu is None else f"gpu{point.gpu}",
                     failure_note(point, language, result.timeout)]
            rows.append("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in cells) + "</tr>")
        table = ("<div class='mgenv-table-wrap'><table class='mgenv-table'><thead><tr>"
                 + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr></thead><tbody>"
                 + "".join(rows) + "</tbody></table></div>")
        status = html.escape(status_text(result, language, self.running))
        return (f"{TABLE_STYLE}<div class='mgenv-report mgenv-sweep'><div><b>{status}</b></div>{self.svg()}"
                f"{table}{head}</div>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The static picture as an image too (GitHub and nbviewer show it); IPython adds text and HTML."""
        return {SVG_MIME: self.svg(STANDALONE_TEXT)}


def point_parts(point: PointResult, label: str, language: str, timeout: float | None = None) -> list[str]:
    """A point's row in words: its label and outcome, its figures, why it failed (`timeout`: the sweep's time limit),
    what its kernel had instead."""
    parts = [f"{label}: {words.OUTCOMES[point.outcome.value].get(language)}"]
    if point.seconds is not None:
        parts.append(f"{seconds_text(point.seconds)} {words.SECONDS.get(language)}")
    if point.peak_device_bytes is not None:
        parts.append(f"{words.HEADERS['peak_device'].get(language)} {format_size(point.peak_device_bytes)}")
    if point.peak_host_bytes is not None:
        parts.append(f"{words.HEADERS['peak_host'].get(language)} {format_size(point.peak_host_bytes)}")
    if point.gpu is not None:
        parts.append(f"gpu{point.gpu}")
    if point.node:
        parts.append(str(point.node))
    parts.append(failure_note(point, language, timeout))
    if point.kernel_values and not point.values_held:
        held = ", ".join(f"{name}={shown(name, value)}" for name, value in point.kernel_values.items())
        parts.append(words.VALUES_DIFFER.get(language).format(values=held))
    return parts


@dataclass(frozen=True)
class PointView:
    """One point as `print(result.best)` shows it: its values (a secret's masked) and its row, in words."""

    point: PointResult
    language: str = field(default_factory=current_language)

    def lines(self) -> list[str]:
        label = ", ".join(f"{name}={value}" for name, value in self.point.values.items())
        return ["; ".join(part for part in point_parts(self.point, label, self.language) if part)]

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"text/plain": repr(self)}


@dataclass(frozen=True)
class ChoiceView:
    """Why a sweep's `.best` is what it is, as the view's headline says it."""

    choice: Choice
    language: str = field(default_factory=current_language)

    def lines(self) -> list[str]:
        return [words.CHOICES[self.choice.value].get(self.language)]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"text/plain": "\n".join(self.lines())}


@dataclass(frozen=True)
class AppliedView:
    """What `SweepResult.apply()` did, in words: what was set, and what needs a restart (and where it went)."""

    applied: Applied
    language: str = field(default_factory=current_language)

    def lines(self) -> list[str]:
        language, applied = self.language, self.applied
        names = ", ".join(change.name for change in applied.report.changes)
        lines = [words.APPLIED.get(language).format(names=names)]
        if applied.restart:
            restart = ", ".join(applied.restart)
            if applied.profile_offered:
                lines.append(words.APPLIED_RESTART.get(language).format(names=restart,
                                                                        count=applied.profile_offered))
            else:
                assignments = " ".join(f"{name}={shown(name, applied.point.environment[name])}"
                                       for name in applied.restart)
                lines.append(words.APPLIED_RESTART_NO_PANEL.get(language).format(names=restart,
                                                                                 assignments=assignments))
        return lines

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"text/plain": repr(self)}

