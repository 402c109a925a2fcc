"""The figure as a static SVG picture: what a saved notebook, GitHub and nbviewer show without a kernel or the
widget's script. The same three charts as the live one (time and peak against the setting, failed points marked,
the budget line, the best point ringed; each point's memory over time), drawn from the same `SweepFigure` data.

Text and axes use `currentColor` inline (the page's text colour, light or dark); as a standalone image they are
drawn in `standalone_color`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from ...protocol._memory import OVERLAY_REACH
from ...protocol._sweep import SweepFigure

PANEL_WIDTH = 300
HEIGHT = 250
TOP, BOTTOM, LEFT, RIGHT = 34, 56, 56, 12
COLORS = ("#1976d2", "#388e3c", "#7800c2", "#0097a7", "#f57c00", "#5d4037", "#c2185b", "#455a64")
FAIL = "#d32f2f"
BEST = "#f9a825"


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _ticks(high: float, count: int = 4) -> list[float]:
    """Round steps from 0 to at least `high`."""
    if high <= 0:
        return [0.0, 1.0]
    raw = high / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [step * i for i in range(int(math.ceil(high / step)) + 1)]


def _size_ticks(high: float) -> list[float]:
    unit = next((u for u in (1024**4, 1024**3, 1024**2, 1024) if high >= 2 * u), 1)
    return [t * unit for t in _ticks(high / unit)]


_UNITS = ((1024**4, "TiB"), (1024**3, "GiB"), (1024**2, "MiB"), (1024, "KiB"))


def _size_labels(ticks: Sequence[float]) -> list[str]:
    """An axis's sizes in one unit, the largest tick's, as the live chart writes them (0, 250 MiB, 500 MiB, 750 MiB,
    1000 MiB, not 0 B … 1000 MiB, 1.46 GiB), with the decimals the step needs."""
    largest = max((abs(t) for t in ticks), default=0)
    unit, name = next(((u, n) for u, n in _UNITS if largest >= u), (1, "B"))
    step = min((b - a for a, b in zip(ticks, ticks[1:], strict=False) if b > a), default=unit) / unit
    decimals = 0 if step >= 1 or step <= 0 else min(3, math.ceil(-math.log10(step) - 1e-9))
    return ["0" if t == 0 else f"{t / unit:.{decimals}f} {name}" for t in ticks]


def _x_room(count: int, slot: float) -> tuple[int, int]:
    """How the setting axis labels `count` points `slot` pixels apart (~5.6 px a character): every k-th one, each
    cut to this many characters, so that labels never overlap."""
    chars = int(slot // 5.6)
    every = 1
    while chars * every < 4 and every < count:
        every *= 2
    return every, max(4, chars * every - 1)


def _frame(x0: float, title: str, ticks: Sequence[float], sizes: bool, axis_label: str) -> list[str]:
    """A panel's title, its y grid with labels, and its axis lines."""
    inner_h = HEIGHT - TOP - BOTTOM
    top = ticks[-1] or 1
    parts = [f'<text x="{x0 + LEFT}" y="16" font-weight="600">{_esc(_short(title, 48))}</text>']
    labels = _size_labels(ticks) if sizes else [f"{tick:g}" for tick in ticks]
    for tick, text in zip(ticks, labels, strict=True):
        y = TOP + inner_h * (1 - tick / top)
        parts.append(f'<line x1="{x0 + LEFT}" x2="{x0 + PANEL_WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                     'stroke="currentColor" stroke-opacity="0.15"/>')
        parts.append(f'<text x="{x0 + LEFT - 4}" y="{y + 3:.1f}" text-anchor="end" opacity="0.7">{_esc(text)}</text>')
    parts.append(f'<text x="{x0 + 12}" y="{TOP + inner_h / 2}" transform="rotate(-90 {x0 + 12} {TOP + inner_h / 2})" '
                 f'text-anchor="middle" opacity="0.7">{_esc(axis_label)}</text>')
    parts.append(f'<line x1="{x0 + LEFT}" x2="{x0 + LEFT}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" stroke="currentColor" '
                 'stroke-opacity="0.5"/>')
    return parts


def _category_panel(x0: float, figure: SweepFigure, title: str, values: Sequence[float | None], axis_label: str,
                    sizes: bool, budget: int | None = None) -> list[str]:
    points = figure["points"]
    measured = [v for v in values if v is not None]
    # The budget is drawn where it is within reach of the points, or named at the top when it would flatten them
    # (a host's 22 GiB over points of 50-600 MiB), by the memory chart's rule.
    far = budget is not None and bool(measured) and budget > OVERLAY_REACH * max(measured)
    high = max([*measured, *([budget] if budget and not far else [])], default=1.0)
    ticks = _size_ticks(high) if sizes else _ticks(high)
    top = ticks[-1] or 1
    inner_w = PANEL_WIDTH - LEFT - RIGHT
    inner_h = HEIGHT - TOP - BOTTOM
    parts = _frame(x0, title, ticks, sizes, axis_label)

    def x_of(i: int) -> float:
        return x0 + LEFT + inner_w * (i + 0.5) / max(1, len(points))

    def y_of(v: float) -> float:
        return TOP + inner_h * (1 - v / top)

    on_top: list[str] = []  # drawn after the points
    if budget is not None and sizes and far:
        parts.append(f'<text x="{x0 + PANEL_WIDTH - RIGHT}" y="{TOP - 4}" text-anchor="end" fill="{FAIL}">'
                     f'{_esc(_short("↑ " + figure["budget_label"], 46))}</text>')
    elif budget is not None and sizes:
        y = y_of(budget)
        parts.append(f'<line x1="{x0 + LEFT}" x2="{x0 + PANEL_WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="{FAIL}" stroke-dasharray="5 3"/>')
        # A halo of the page's colour (CSS's Canvas; a renderer without it draws none): readable over the points of
        # a largest-fit search, which straddle the line.
        on_top.append(f'<text x="{x0 + LEFT + 4}" y="{y - 3:.1f}" fill="{FAIL}" stroke="Canvas" stroke-width="3" '
                      f'stroke-opacity="0.85" paint-order="stroke">{_esc(figure["budget_label"])}</text>')
    segments: list[list[str]] = [[]]  # a failed point breaks the line, as a failed run breaks the seed's curve
    for i, (point, value) in enumerate(zip(points, values, strict=True)):
        if value is None or point["failed"] or point["outcome"] == "not_run":
            segments.append([])
        else:
            segments[-1].append(f"{x_of(i):.1f},{y_of(value):.1f}")
    for path in segments:
        if len(path) > 1:
            parts.append(f'<polyline points="{" ".join(path)}" fill="none" stroke="{COLORS[0]}" stroke-width="1.5"/>')
    every, room = _x_room(len(points), inner_w / max(1, len(points)))
    for i, (point, value) in enumerate(zip(points, values, strict=True)):
        x = x_of(i)
        label = _short(point["label"], room) if i % every == 0 else ""
        note = f' — {point["note"]}' if point["note"] else ""
        tip = f'<title>{_esc(point["label"])}: {_esc(point["outcome_label"])}{_esc(note)}</title>'
        if point["outcome"] == "not_run":  # interrupted: a hollow grey mark where it had got to, never a result
            y = y_of(value) if value is not None else HEIGHT - BOTTOM - 6
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="none" stroke="currentColor" '
                         f'stroke-opacity="0.5" stroke-dasharray="2 2">{tip}</circle>')
        elif value is not None and not point["failed"]:
            parts.append(f'<circle cx="{x:.1f}" cy="{y_of(value):.1f}" r="3.5" fill="{COLORS[0]}">{tip}</circle>')
        if point["best"] and value is not None:
            parts.append(f'<circle cx="{x:.1f}" cy="{y_of(value):.1f}" r="7" fill="none" stroke="{BEST}" '
                         'stroke-width="2.5"/>')
        if point["failed"]:
            # A time-out ran past the limit: drawn at the top with an arrow, never at 0 s; other failures where
            # their peak was, or on the floor without one.
            timed_out = point["outcome"] == "timeout" and not sizes
            y = TOP + 6 if timed_out else y_of(value) if value is not None else HEIGHT - BOTTOM - 6
            parts.append(f'<g stroke="{FAIL}" stroke-width="2"><line x1="{x - 4:.1f}" y1="{y - 4:.1f}" '
                         f'x2="{x + 4:.1f}" y2="{y + 4:.1f}"/><line x1="{x - 4:.1f}" y1="{y + 4:.1f}" '
                         f'x2="{x + 4:.1f}" y2="{y - 4:.1f}"/>{tip}</g>')
            if timed_out:
                parts.append(f'<text x="{x:.1f}" y="{TOP - 1}" text-anchor="middle" fill="{FAIL}">↑</text>')
        if point["failed"] or point["outcome"] == "not_run":
            parts.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 26}" text-anchor="middle" fill="{FAIL}" '
                         f'font-size="9">{_esc(_short(point["outcome_label"], room + 2))}</text>')
        parts.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 14}" text-anchor="middle">'
                     f'{_esc(label)}<title>{_esc(point["label"])}</title></text>')
    parts.append(f'<text x="{x0 + LEFT + inner_w / 2}" y="{HEIGHT - 6}" text-anchor="middle" opacity="0.7">'
                 f'{_esc(_short(figure["axis"], 40))}</text>')
    return parts + on_top


def _timeline_panel(x0: float, figure: SweepFigure) -> list[str]:
    lines = figure["timelines"]
    high_t = max((t for line in lines for t in line["t"]), default=1.0) or 1.0
    high_b = max((b for line in lines for b in line["bytes"] if b is not None), default=1)
    budget = figure["budget"]
    if budget is not None and figure["peak_kind"] == "device" and budget <= OVERLAY_REACH * high_b:
        high_b = max(high_b, budget)
    ticks = _size_ticks(high_b)
    top = ticks[-1] or 1
    inner_w = PANEL_WIDTH - LEFT - RIGHT
    inner_h = HEIGHT - TOP - BOTTOM
    parts = _frame(x0, figure["timeline_title"], ticks, True, figure["bytes_label"])
    for order, line in enumerate(lines):
        color = COLORS[order % len(COLORS)]
        path = [f"{x0 + LEFT + inner_w * t / high_t:.1f},{TOP + inner_h * (1 - b / top):.1f}"
                for t, b in zip(line["t"], line["bytes"], strict=True) if b is not None]
        if path:
            parts.append(f'<polyline points="{" ".join(path)}" fill="none" stroke="{color}" stroke-width="1.3">'
                         f'<title>{_esc(line["label"])}</title></polyline>')
        ly = TOP + 4 + 11 * order
        if order < 8:
            parts.append(f'<text x="{x0 + PANEL_WIDTH - RIGHT}" y="{ly + 6}" text-anchor="end" fill="{color}" '
                         f'font-size="9">{_esc(_short(line["label"], 24))}</text>')
    parts.append(f'<text x="{x0 + LEFT + inner_w / 2}" y="{HEIGHT - 6}" text-anchor="middle" opacity="0.7">'
                 f'{_esc(figure["elapsed_label"])} (0–{high_t:.3g})</text>')
    return parts


def _short(text: str, most: int = 14) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


MAX_NOTES = 8
NOTE_LINE = 14


def _notes(figure: SweepFigure) -> list[str]:
    """Below the panels, each point that failed or did not finish, with its reason: the picture says why."""
    marked = [point for point in figure["points"] if point["failed"] or point["outcome"] == "not_run"]
    lines = [f'✕ {point["label"]}: {point["outcome_label"]}' + (f' — {point["note"]}' if point["note"] else "")
             for point in marked[:MAX_NOTES]]
    if len(marked) > MAX_NOTES:
        lines.append(f"… +{len(marked) - MAX_NOTES}")
    return [f'<text x="{LEFT}" y="{HEIGHT + NOTE_LINE * (row + 1) - 3}" fill="{FAIL}">{_esc(_short(line, 150))}'
            '</text>' for row, line in enumerate(lines)]


def sweep_svg(figure: SweepFigure, color: str = "currentColor") -> str:
    """The figure as one SVG element, 3 panels wide, scaling to its container's width, with a line under the
    panels for each point that failed or did not finish."""
    seconds = [p["seconds"] for p in figure["points"]]
    peaks = [None if p["peak"] is None else float(p["peak"]) for p in figure["points"]]
    notes = _notes(figure)
    parts = [*_category_panel(0, figure, figure["time_title"], seconds, figure["seconds_label"], sizes=False),
             *_category_panel(PANEL_WIDTH, figure, figure["peak_title"], peaks, figure["bytes_label"], sizes=True,
                              budget=figure["budget"]),
             *_timeline_panel(2 * PANEL_WIDTH, figure), *notes]
    width = 3 * PANEL_WIDTH
    height = HEIGHT + NOTE_LINE * len(notes) + (4 if notes else 0)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
            f'style="max-width:{width}px;color:{color}" font-family="sans-serif" font-size="10" '
            f'fill="{color}" role="img" aria-label="{_esc(figure["title"])}">'
            f'<title>{_esc(figure["title"])}</title>{"".join(parts)}</svg>')
