"""`MemoryPicture`: the memory chart as a static picture, the view a saved notebook keeps of it (a notebook reopened
without its kernel, GitHub, nbviewer). It is drawn from the chart's own snapshot (the series, overlay lines and cell
markers the live chart gets), fitted as the live chart fits its y-axis (an overlay line far above the data, such as
the device's total over a small curve, is a label at the top: OVERLAY_REACH), over the whole session; the legend
gives each series' latest value and peak. Text for front ends without HTML, HTML (the title, the SVG and when it
was drawn) for notebooks, and the SVG alone as an image.

Colours are the chart's own in JupyterLab's light theme (labextension/src/chart/theme.ts' fallbacks); text and axes
take the page's colour (`currentColor`), so the picture reads on a dark page too.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base._display import text_and_html
from ..base._text import Text, current_language
from ..catalog._values import format_size
from ..memory._series_words import series_words
from ..protocol import CellInfo, OverlayInfo, SeriesInfo, Snapshot
from ..protocol._memory import OVERLAY_LOOKS, OVERLAY_REACH

SVG_MIME = "image/svg+xml"
WIDTH = 720
PLOT_LEFT, PLOT_TOP, PLOT_WIDTH, PLOT_HEIGHT = 64, 14, 520, 170
LEGEND_ROW = 16
MARKER_GAP = 16  # px between two cell markers' lines, at least
COLUMNS = 360  # the data is drawn as each column's lowest and highest value: peaks are kept however long the session
SERIES_COLOURS = ("#1976d2", "#388e3c", "#7800c2", "#0097a7", "#0d47a1", "#1b5e20", "#64b5f6", "#006064")

SAVED = Text("A picture of the chart as of {clock}, {span} since the kernel started; run the cell again for the "
             "live chart.", "图表在 {clock} 的静态图,内核启动后 {span};重新运行此单元即可看到实时图表。")
NO_DATA = Text("No memory was sampled yet.", "尚未采样到内存数据。")
NOW_PEAK = Text("{name}: now {now}, peak {peak}", "{name}:当前 {now},峰值 {peak}")
SINCE_START = Text("since kernel start", "自内核启动")
CELLS = Text("{count} cells", "{count} 个单元")
ABOVE = Text("above the data shown", "高于所显示的数据")


@dataclass(frozen=True)
class MemoryPicture:
    """The chart's snapshot as a picture; `title` is the chart's."""

    snapshot: Snapshot
    title: str
    language: str = field(default_factory=current_language)
    drawn: float = field(default_factory=time.time)

    # ---- what is drawn -------------------------------------------------------------------------------------------

    def shown_series(self) -> list[SeriesInfo]:
        """The series the chart draws: a device's total is its overlay line, not a series of its own."""
        totals = {o["series"] for o in self.snapshot.get("overlays", []) if o["kind"] == "total"}
        return [s for s in self.snapshot.get("series", []) if not (s["quantity"] == "total" and s["key"] in totals)]

    def figures(self) -> list[tuple[SeriesInfo, int | None, int | None]]:
        """Each shown series with its latest value and its peak (None: never read)."""
        columns = self.snapshot["columns"]
        result = []
        for info in self.shown_series():
            values = [v for v in columns.get(info["key"], []) if v is not None]
            result.append((info, int(values[-1]) if values else None, int(max(values)) if values else None))
        return result

    def span(self) -> str:
        times = self.snapshot["t"]
        start = self.snapshot.get("started", times[0] if times else 0.0)
        return (f"{elapsed(times[0] - start)}–{elapsed(times[-1] - start)}" if times else "–")

    # ---- text and HTML -------------------------------------------------------------------------------------------

    def lines(self) -> list[str]:
        language = self.language
        if not self.snapshot["t"]:
            return [self.title, NO_DATA.get(language)]
        lines = [self.title]
        for info, now, peak in self.figures():
            lines.append("  " + NOW_PEAK.get(language).format(name=series_words(info, language), now=_size(now),
                                                              peak=_size(peak)))
        lines.extend(f"  {o['label']}" for o in self.snapshot.get("overlays", []))
        lines.append(self.note())
        return lines

    def note(self) -> str:
        clock = time.strftime("%H:%M:%S", time.localtime(self.drawn))
        return SAVED.get(self.language).format(clock=clock, span=self.span())

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        body = self.svg() if self.snapshot["t"] else f"<div>{html.escape(NO_DATA.get(self.language))}</div>"
        return (f"<div class='mgenv-chart-picture' style='max-width: 760px'>"
                f"<div style='font-weight: 600'>{html.escape(self.title)}</div>{body}"
                f"<div style='font-size: 11px; opacity: 0.7'>{html.escape(self.note())}</div></div>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = text_and_html(self)
        if self.snapshot["t"]:
            bundle[SVG_MIME] = self.svg(standalone=True)
        return bundle

    # ---- the picture ---------------------------------------------------------------------------------------------

    def svg(self, standalone: bool = False) -> str:
        """The chart as SVG; `standalone` (an image of its own, read without a page around it) says its title and
        when it was drawn too, and writes in black rather than the page's colour."""
        frame = _Frame.of(self)
        figures = self.figures()
        parts = [*frame.axes(self.language), *frame.markers(self.snapshot.get("cells", [])),
                 *frame.overlays(self.language), *frame.series(figures)]
        legend_top = PLOT_TOP + PLOT_HEIGHT + 30
        for index, (info, now, peak) in enumerate(figures):
            x, y = PLOT_LEFT, legend_top + index * LEGEND_ROW
            text = NOW_PEAK.get(self.language).format(name=series_words(info, self.language), now=_size(now),
                                                      peak=_size(peak))
            parts.append(f'<line x1="{x}" x2="{x + 14}" y1="{y - 4}" y2="{y - 4}" stroke="{_colour(index)}" '
                         f'stroke-width="2"/><text x="{x + 20}" y="{y}">{_esc(text)}</text>')
        height = legend_top + len(figures) * LEGEND_ROW
        colour, caption = "currentColor", ""
        if standalone:  # without the page around it, the picture says what it is and when it was drawn
            colour = "#212121"
            parts = ['<g transform="translate(0 16)">', *parts, "</g>"]
            caption = (f'<text x="4" y="12" font-weight="bold">{_esc(self.title)}</text>'
                       f'<text x="{PLOT_LEFT}" y="{height + 30}" fill-opacity="0.7">{_esc(self.note())}</text>')
            height += 36
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="100%" '
                f'style="max-width: {WIDTH}px" font-family="sans-serif" font-size="11" fill="{colour}" '
                f'color="{colour}" role="img"><title>{_esc(self.title)}</title>{caption}{"".join(parts)}</svg>')


@dataclass(frozen=True)
class _Frame:
    """Where things go in the picture: the session's span on x, and on y from 0 to a little above the data and the
    overlay lines within OVERLAY_REACH of it (`drawn`); the lines farther up are labels at the top (`above`)."""

    snapshot: Snapshot
    first: float
    last: float
    top: float
    drawn: list[OverlayInfo]
    above: list[OverlayInfo]

    @classmethod
    def of(cls, picture: MemoryPicture) -> _Frame:
        snapshot, times = picture.snapshot, picture.snapshot["t"]
        data_max = max((peak for _, _, peak in picture.figures() if peak is not None), default=0)
        reach = data_max * OVERLAY_REACH
        overlays = snapshot.get("overlays", [])
        drawn = [o for o in overlays if o["bytes"] <= reach]
        top = max([data_max, *(o["bytes"] for o in drawn)]) * 1.08 or 1024**3
        return cls(snapshot, times[0], max(times[-1], times[0] + 1), top, drawn,
                   [o for o in overlays if o["bytes"] > reach])

    def x(self, t: float) -> float:
        return PLOT_LEFT + (t - self.first) / (self.last - self.first) * PLOT_WIDTH

    def y(self, value: float) -> float:
        return PLOT_TOP + PLOT_HEIGHT - value / self.top * PLOT_HEIGHT

    def axes(self, language: str) -> list[str]:
        """Round sizes up the y-axis (as the live chart steps: 1, 2, 5... of a unit, 256 and 512), in the chart's size
        format; the span since the kernel started along x."""
        parts = []
        step = _step(self.top)
        for value in (step * k for k in range(int(self.top // step) + 1)):
            y = self.y(value)
            parts.append(f'<line x1="{PLOT_LEFT}" x2="{PLOT_LEFT + PLOT_WIDTH}" y1="{y:.1f}" y2="{y:.1f}" '
                         f'stroke="currentColor" stroke-opacity="0.15"/><text x="{PLOT_LEFT - 6}" y="{y + 4:.1f}" '
                         f'text-anchor="end">{_esc(format_size(int(value)) if value else "0")}</text>')
        start, bottom = self.snapshot.get("started", self.first), PLOT_TOP + PLOT_HEIGHT + 14
        times = self.snapshot["t"]
        parts.append(f'<text x="{PLOT_LEFT}" y="{bottom}">{_esc(elapsed(times[0] - start))}</text>'
                     f'<text x="{PLOT_LEFT + PLOT_WIDTH}" y="{bottom}" text-anchor="end">'
                     f'{_esc(elapsed(times[-1] - start))}</text>'
                     f'<text x="{PLOT_LEFT + PLOT_WIDTH / 2:.0f}" y="{bottom}" text-anchor="middle" '
                     f'fill-opacity="0.7">{_esc(SINCE_START.get(language))}</text>')
        return parts

    def markers(self, cells: Sequence[CellInfo]) -> list[str]:
        """A thin line per cell, none nearer than MARKER_GAP to the one before: a busy stretch is one line, not a
        band."""
        parts, previous = [], -1e9
        for cell in cells:
            x = self.x(cell["start"])
            if PLOT_LEFT <= x <= PLOT_LEFT + PLOT_WIDTH and x - previous >= MARKER_GAP:
                parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{PLOT_TOP}" y2="{PLOT_TOP + PLOT_HEIGHT}" '
                             'stroke="currentColor" stroke-opacity="0.25"/>')
                previous = x
        return parts

    def overlays(self, language: str) -> list[str]:
        """The lines in range, labelled right of the plot; those above it, labelled at the top with an arrow."""
        parts, placed = [], -1e9
        labels = [(self.y(o["bytes"]), o, False) for o in self.drawn] + [(PLOT_TOP, o, True) for o in self.above]
        for y, overlay, above in sorted(labels, key=lambda item: item[0]):
            colour, dash = OVERLAY_LOOKS[overlay["kind"]]
            if not above:
                parts.append(f'<line x1="{PLOT_LEFT}" x2="{PLOT_LEFT + PLOT_WIDTH}" y1="{y:.1f}" y2="{y:.1f}" '
                             f'stroke="{colour}" stroke-dasharray="{dash}"/>')
            placed = max(y + 4, placed + 13)
            title = overlay["label"] + (f" ({ABOVE.get(language)})" if above else "")
            label = ("↑ " if above else "") + f"{overlay['short']} {format_size(overlay['bytes'])}"
            parts.append(f'<text x="{PLOT_LEFT + PLOT_WIDTH + 6}" y="{placed:.1f}" fill="{colour}">'
                         f"<title>{_esc(title)}</title>{_esc(label)}</text>")
        return parts

    def series(self, figures: Sequence[tuple[SeriesInfo, int | None, int | None]]) -> list[str]:
        """Each series as each column's lowest and highest value, with a gap where there was no reading."""
        parts = []
        for index, (info, _, _) in enumerate(figures):
            dash = ' stroke-dasharray="6 3"' if info["quantity"] == "reserved" else ""
            for run in _runs(self.snapshot["t"], self.snapshot["columns"].get(info["key"], []), self.first, self.last):
                points = " ".join(f"{self.x(t):.1f},{self.y(v):.1f}" for t, v in run)
                parts.append(f'<polyline points="{points}" fill="none" stroke="{_colour(index)}" '
                             f'stroke-width="1.5"{dash}/>')
        return parts


def elapsed(seconds: float) -> str:
    """Seconds as the chart's time axis writes them: "45s", "12m", "12m30s", "1h05m"."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s" if secs else f"{minutes}m"
    return f"{secs}s"


def _runs(times: Sequence[float], values: Sequence[int | float | None], first: float, last: float
          ) -> list[list[tuple[float, float]]]:
    """The series as runs of points without a gap, at most two points (lowest, highest) per column of the picture."""
    width = (last - first) / COLUMNS or 1.0
    runs: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] = []
    column, low, high = None, None, None
    for t, v in zip(times, values, strict=False):
        if v is None:
            if column is not None and low is not None and high is not None:
                current.extend(_pair(column, low, high, first, width))
            if current:
                runs.append(current)
            current, column, low, high = [], None, None, None
            continue
        index = int((t - first) / width)
        if index != column:
            if column is not None and low is not None and high is not None:
                current.extend(_pair(column, low, high, first, width))
            column, low, high = index, v, v
        else:
            low, high = min(low, v), max(high, v)  # type: ignore[type-var]
    if column is not None and low is not None and high is not None:
        current.extend(_pair(column, low, high, first, width))
    if current:
        runs.append(current)
    return runs


def _pair(column: int, low: float, high: float, first: float, width: float) -> list[tuple[float, float]]:
    t = first + (column + 0.5) * width
    return [(t, low)] if low == high else [(t, low), (t, high)]


def _step(top: float) -> float:
    """A round step for three or four ticks from 0 to `top`: 1, 2, 5, 10, 20, 50, 100, 200, 256 or 512 of a unit."""
    for unit in (1, 1024, 1024**2, 1024**3, 1024**4):
        for multiple in (1, 2, 5, 10, 20, 50, 100, 200, 256, 512):
            if top / (multiple * unit) <= 4:
                return float(multiple * unit)
    return top


def _colour(index: int) -> str:
    return SERIES_COLOURS[index % len(SERIES_COLOURS)]


def _size(value: int | None) -> str:
    return "–" if value is None else format_size(value)


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


__all__ = ["SVG_MIME", "MemoryPicture", "elapsed"]
