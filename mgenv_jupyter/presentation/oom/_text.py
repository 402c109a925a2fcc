"""`OomText`: the report in words, section by section (the headline, the verdict, the numbers, the other processes,
the timeline, the remedies), in the report's language. The plain text is the fallback for front ends without HTML,
and what a user copies the `%envset` lines from; the HTML and the renderer's data reuse the same lines."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ...base._text import Text, current_language
from ...memory._series_words import series_name
from ...oom._causes import size
from ...oom._free import FreeOffer
from .._freeing import freed_info, offer_line, report_holders
from ._words import (
    ALLOCATOR,
    ALSO,
    ASKED,
    AT_FAILURE,
    BETWEEN,
    CAVEAT,
    CELL_CLIMB,
    DEVICE_LINE,
    EARLIER,
    ERROR_ABOVE_READING,
    ERROR_ALLOCATOR,
    FOOTER,
    FRAGMENT,
    GPU,
    HEADLINE,
    HOST,
    HOST_LINE,
    NO_REMEDY,
    NO_SAMPLES,
    NO_TIMELINE,
    NUMBERS,
    ONCE_SET,
    PROCESS_LINE,
    PROCESSES,
    RECORD_HINT,
    REMEDIES,
    RESTART,
    SAMPLES,
    SIMULATED,
    TIMELINE,
    UNLISTED,
    UNSEEN,
    VERDICT,
)

if TYPE_CHECKING:
    from ...oom._remedies import Remedy
    from ...oom._report import OomReport, Timeline

_BARS = "▁▂▃▄▅▆▇█"
_AT_FAILURE_SECONDS = 0.5  # a sample this close to the report's time was taken at the failure


def sparkline(values: tuple[int, ...] | list[int], width: int = 48) -> str:
    """Values as a line of block characters, at most `width` of them (each the highest value of its slice)."""
    if not values:
        return ""
    step = max(1, -(-len(values) // width))
    points = [max(values[i:i + step]) for i in range(0, len(values), step)]
    low, high = min(points), max(points)
    span = high - low or 1
    return "".join(_BARS[min(7, int((v - low) / span * 7.999))] for v in points)


@dataclass(frozen=True)
class OomText:
    report: OomReport
    language: str | None = None

    @property
    def lang(self) -> str:
        return self.language or current_language()

    @cached_property
    def free_offer(self) -> FreeOffer | None:
        """What the kernel offers to free now (the report's `free_offer()`), asked once for this view: its text, its
        HTML and its renderer's data are made one after the other, and asking walks the failed call's locals."""
        return self.report.free_offer()

    def say(self, text: Text, **fields: Any) -> str:
        return text.get(self.lang).format(**fields)

    def headline(self) -> str:
        event = self.report.event
        where = self.say(GPU, index=event.gpu if event.gpu is not None else "") if event.device == "gpu" else (
            HOST.get(self.lang))
        asked = self.say(ASKED, size=size(event.requested)) if event.requested is not None else ""
        return self.say(HEADLINE, where=where, exception=event.exception, asked=asked)

    def verdict_lines(self) -> list[str]:
        first, *rest = self.report.findings
        lines = [f"{VERDICT.get(self.lang)}: {first.cause.label.get(self.lang)} — {first.evidence.get(self.lang)}"]
        lines += [f"  {ALSO.get(self.lang)}: {f.cause.label.get(self.lang)} — {f.evidence.get(self.lang)}"
                  for f in rest]
        return lines

    def number_lines(self) -> list[str]:
        state, event = self.report.state, self.report.event
        lines = [f"{NUMBERS.get(self.lang)}:"]
        for d in state.devices:
            label = d.device.replace(" (simulated)", "") + (SIMULATED.get(self.lang) if d.simulated else "")
            line = self.say(DEVICE_LINE, device=label, total=size(d.total), kernel=size(d.kernel),
                           others=size(d.others), free=size(d.free))
            if d.unlisted:
                line += self.say(UNLISTED, size=size(d.unlisted))
            if d.allocated is not None:  # a framework source's counters, or the error's (oom/_state.py with_error)
                said = ERROR_ALLOCATOR if d.allocator_from_error else ALLOCATOR
                line += self.say(said, allocated=size(d.allocated), reserved=size(d.reserved))
                if d.error_above_reading:
                    line += self.say(ERROR_ABOVE_READING, kernel=size(d.kernel))
                if d.cached_free and event.requested:
                    line += self.say(FRAGMENT, free=size(d.cached_free), ratio=f"{d.cached_free / event.requested:.1f}")
            lines.append("  " + line)
        if event.device == "host" or not state.devices:
            lines.append("  " + self.say(HOST_LINE, total=size(state.host_total), available=size(state.host_available),
                                        rss=size(state.kernel_rss)))
        return lines

    def process_lines(self) -> list[str]:
        if not self.report.state.processes:
            return []
        unseen = UNSEEN.get(self.lang)
        return [f"{PROCESSES.get(self.lang)}:"] + [
            "  " + self.say(PROCESS_LINE, gpu=p.gpu, pid=p.pid, user=p.user or unseen, name=p.name or "",
                           bytes=size(p.bytes)).replace("  ", " ")
            for p in self.report.state.processes[:10]]

    def timeline_lines(self, sparklines: bool = True) -> list[str]:
        """The timeline in words, with sparklines for the text fallback; without them beside the chart."""
        timeline: Timeline = self.report.timeline
        if not timeline.values:
            return [NO_TIMELINE.get(self.lang)]
        minutes = max(1, round((timeline.times[-1] - timeline.times[0]) / 60)) if len(timeline.times) > 1 else 1
        series = series_name(timeline.series or "", self.lang)
        lines = [f"{self.say(TIMELINE, series=series, minutes=minutes)}: {sparkline(timeline.values)}"]
        if not sparklines:
            lines = []
        during = timeline.during_cell()
        # Growth while no cell ran is said as its own fact, never charged to a cell; it comes first when the
        # failing cell itself climbed by less (the cell's "went from A to A" is then no headline).
        between = ["  " + self.say(BETWEEN, grew=size(b.grew), after_cell=b.after_cell, before_cell=b.before_cell,
                                   first=size(b.before), last=size(b.after)) for b in timeline.between]
        climbed = during[-1] - during[0] if during else 0
        first = bool(between) and climbed < max(b.grew for b in timeline.between)
        lines.extend(between if first else [])
        if during and timeline.cell is not None:
            lines.append("  " + self.say(CELL_CLIMB, cell=timeline.cell, first=size(during[0]), last=size(during[-1]),
                                        peak=size(max(during))) + (f"  {sparkline(during, 24)}" if sparklines else ""))
            lines.append("  " + self._samples_line())
        lines.extend([] if first else between)
        if timeline.earlier_peaks:
            peaks = ", ".join(f"[{cell}] {size(peak)}" for cell, peak in timeline.earlier_peaks)
            lines.append(f"  {EARLIER.get(self.lang)}: {peaks}")
        return lines

    def _samples_line(self) -> str:
        """How many readings the failing cell's curve has: those the recorder took while the cell ran, and the one
        taken as the report was made (read_state's sample, with any the sampler took at that moment)."""
        timeline, failed = self.report.timeline, self.report.time
        start = timeline.cell_start or 0.0
        before = [t for t in timeline.times if start <= t < failed - _AT_FAILURE_SECONDS]
        at_failure = any(abs(t - failed) < _AT_FAILURE_SECONDS for t in timeline.times)
        failure = AT_FAILURE.get(self.lang) if at_failure else ""
        if not before:
            return self.say(NO_SAMPLES, failure=failure)
        # How far apart the cell's own samples are; with one, the timeline's (the recorder's rate). Not the whole
        # timeline's always: the readings taken as each earlier cell started and ended crowd it.
        spaced = before if len(before) > 1 else timeline.times
        gaps = [b - a for a, b in zip(spaced, spaced[1:], strict=False) if b - a > 0.05]
        interval = f"{statistics.median(gaps):.1f}".removesuffix(".0") if gaps else "?"  # 0.97 → "1", 0.25 → "0.2"
        return self.say(SAMPLES, count=len(before), interval=interval, failure=failure)

    def site_lines(self) -> list[str]:
        """Where the memory live at the failure was allocated, by line (when a framework recorded it), and how to
        have it recorded where a loaded framework records only when asked."""
        from ...catalog._frameworks import BY_KEY
        from .._memtrace import SitesView

        sites = self.report.sites
        lines = SitesView(sites, self.lang).lines() if sites is not None and sites.frameworks else []
        if self.report.record_offer:
            names = ", ".join(BY_KEY[key].label.get(self.lang) if key in BY_KEY else key
                              for key in self.report.record_offer)
            lines.append(("  " if lines else "") + self.say(RECORD_HINT, frameworks=names))
        return lines

    def when(self, remedy: Remedy) -> str:
        """When a remedy takes effect: what the session will say of it once set ("applied live", "takes effect at
        first use"...), the words %envdiff and the sidebar use; a restart names the button that does it."""
        if remedy.restart:
            return RESTART.get(self.lang)
        return ONCE_SET.get(self.lang).format(status=remedy.when.get(self.lang))

    def remedy_lines(self) -> list[str]:
        free = self.free_offer
        done = freed_info(self.report, self.lang)
        # The offer first, on a line of its own: it sets nothing, so it is not one of the numbered remedies; where
        # the cell was given back since, that is said instead of offering again.
        lines = [done["summary"]] if done is not None else [offer_line(free, self.lang)] if free is not None else []
        lines.append(f"{REMEDIES.get(self.lang)}:")
        if not self.report.remedies:
            return lines + ["  " + NO_REMEDY.get(self.lang)]
        for number, remedy in enumerate(self.report.remedies, start=1):
            when = self.when(remedy)
            lines.append(f"  {number}. {remedy.envset}   — {when}; {remedy.why.get(self.lang)}")
            if remedy.caveat is not None:
                lines.append(f"     {CAVEAT.get(self.lang)}: {remedy.caveat.get(self.lang)}")
        return lines

    def holder_lines(self) -> list[str]:
        holders = report_holders(self.report, self.lang)
        return holders.lines() if holders is not None else []

    def lines(self) -> list[str]:
        return [self.headline(), *self.verdict_lines(), *self.number_lines(), *self.process_lines(),
                *self.timeline_lines(), *self.site_lines(), *self.remedy_lines(), *self.holder_lines(),
                self.footer()]

    def footer(self) -> str:
        return self.say(FOOTER, ms=f"{self.report.took * 1000:.0f}")
