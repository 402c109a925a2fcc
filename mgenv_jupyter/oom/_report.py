"""`OomReport`: everything said about one out-of-memory failure, as data — the error, the numbers per device, the
other processes, the timeline before the failure, the verdict and the remedies. `build_report` makes one;
`last_report()` is the latest (what `%oom` shows and `mgenv_jupyter.last_oom()` returns). How a report looks is the
presentation layer's (`presentation.oom.OomView`); the magics register it as the report's display in IPython.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..base._display import Shown
from ..base._kernel_state import LastResultSlot, Slot
from ..base._last_result import LastResult
from ..memory._holders import Holders, memory_holders
from ._causes import Finding, diagnose
from ._free import FREES, FreeOffer, FreeResult, free, offer
from ._recognise import OutOfMemory
from ._remedies import Remedy, remedies
from ._state import MemoryState, read_state

if TYPE_CHECKING:
    from ..memory._cells import CellMarker
    from ..memory._memtrace_sites import Sites
    from ..memory._sampler import Sampler
    from ..protocol import SeriesInfo
    from ..runtime import EnvSession

TIMELINE_SECONDS = 300.0  # of history before the failure kept in a report
HOLDERS_SECONDS = 0.1  # of the report's making, at most, for what holds memory (the report comes within 300 ms)
CELL_CODE_CHARS = 100_000  # of the failing cell's code kept for "try it first"
_EARLIER_CELLS = 10
# What the memory must grow by between two cells to be said (allocator noise stays below; the cells' records' bar).
BETWEEN_MIN_BYTES = 16 << 20


@dataclass(frozen=True)
class Between:
    """The memory grew while no cell ran: from `before` (the first reading after cell `after_cell` ended) to `after`
    (the first reading once cell `before_cell` started), in bytes. A DataLoader's workers, a background thread, a
    framework's lazy start, or the simulated GPU's clock grow it so."""

    after_cell: int
    before_cell: int
    before: int
    after: int

    @property
    def grew(self) -> int:
        return self.after - self.before


def growth_between(times: tuple[float, ...], values: tuple[int, ...],
                   cells: list[tuple[int, float, float | None]]) -> tuple[Between, ...]:
    """Where the series grew by BETWEEN_MIN_BYTES or more between two consecutive cells (`cells`: number, start, end;
    the failing cell last, its end None), from the first reading after the one ended to the first once the next
    started: the cells' records take a reading at both moments (memory/_cell_records.py). A gap with no reading of
    its own is left unsaid: its growth cannot be told from the cell's."""
    found = []
    for (number, _, end), (following, start, _) in zip(cells, cells[1:], strict=False):
        if end is None or start < end:
            continue
        before = next((v for t, v in zip(times, values, strict=True) if end <= t < start), None)
        after = next((v for t, v in zip(times, values, strict=True) if t >= start), None)
        if before is not None and after is not None and after - before >= BETWEEN_MIN_BYTES:
            found.append(Between(number, following, before, after))
    return tuple(found)


@dataclass(frozen=True)
class Timeline:
    """The failing device's headline series (`series`, e.g. "gpu0 process"): its values over the last minutes
    (`times` in seconds since the epoch, `values` in bytes), when the failing cell started, the peaks of the cells
    before it (cell number → bytes), and `info`, what the sampler recorded of the series (device, quantity, source).
    `between` is the growth that happened while no cell ran (see `growth_between`): never charged to a cell."""

    series: str | None = None
    times: tuple[float, ...] = ()
    values: tuple[int, ...] = ()
    cell: int | None = None
    cell_start: float | None = None
    earlier_peaks: tuple[tuple[int, int], ...] = ()
    info: SeriesInfo | None = None
    between: tuple[Between, ...] = ()

    def during_cell(self) -> tuple[int, ...]:
        if self.cell_start is None:
            return ()
        return tuple(v for t, v in zip(self.times, self.values, strict=True) if t >= self.cell_start)


@dataclass(frozen=True, repr=False)
class OomReport(Shown):
    """One out-of-memory failure explained. `findings` are the likely causes, likeliest first; `remedies` the
    catalog settings that address them, best first; `holders` the variables holding memory at the failure (what
    the walk found within its bounds, and what it left out). `took` is how long the report took to make (seconds).
    Shown as presentation's `OomView`, as under the failing cell."""

    display_kind: ClassVar[str] = "oom_report"

    event: OutOfMemory
    time: float
    state: MemoryState
    timeline: Timeline
    findings: tuple[Finding, ...]
    remedies: tuple[Remedy, ...]
    took: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)
    holders: Holders | None = None
    # Where the memory live at the failure was allocated (None: no framework recorded it), and the loaded frameworks
    # that record it only when asked (`%memtrace on`): the report says how.
    sites: Sites | None = None
    record_offer: tuple[str, ...] = ()
    # The report's id: a random token, so a remedy id (`remedy_id`) names one remedy of this report and no other.
    key: str = field(default_factory=lambda: secrets.token_hex(8))
    # The failing cell's code as the user wrote it (at most CELL_CODE_CHARS), for "try it first": a sweep of that cell
    # under the current setting and a remedy's. None when the shell did not say.
    cell_code: str | None = None

    @property
    def verdict(self) -> Finding:
        return self.findings[0]

    def remedy_id(self, index: int) -> str:
        """The id of the remedy at `index` (what its button sends back): the report's id and the remedy's place."""
        return f"{self.key}-{index}"

    def free(self, outputs: bool = False) -> FreeResult:
        """Give back what the failed cell holds (oom/_free.py: its traceback's frames, Python's and IPython's hold on
        the error, garbage, the loaded frameworks' cached blocks), never the user's variables; `outputs=True` also
        clears the output cache. `%memfree` does the same."""
        return free(outputs=outputs)

    def free_offer(self) -> FreeOffer | None:
        """Whether this report offers "Free what the failed cell holds" now: the failed call's locals still hold
        framework memory, or the failing device's allocator held reserved but unallocated memory at the failure (and
        the failed cell has not been freed since)."""
        cached: dict[str, int] = {}
        event = self.event
        for device in self.state.devices:
            if device.cached_free:  # a reading's, or the error's where none read it (MemoryState.with_error)
                cached[device.device] = device.cached_free
        if not cached and event.facts.get("cached_free"):  # no device of the error's read at all
            where = f"gpu{event.gpu}" if event.gpu is not None else "the GPU"
            cached[where] = event.facts["cached_free"]
        return offer(cached)

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (JSON-ready)."""
        return {
            "event": self.event.to_json(), "time": self.time, "took": self.took,
            "devices": [{**asdict(d), "others": d.others, "cached_free": d.cached_free} for d in self.state.devices],
            "processes": [asdict(p) for p in self.state.processes],
            "host": {"total": self.state.host_total, "available": self.state.host_available,
                     "kernel_rss": self.state.kernel_rss},
            "timeline": {**asdict(self.timeline)},
            "findings": [{"cause": f.cause.value, "score": f.score, "evidence": f.evidence.en} for f in self.findings],
            "remedies": [r.to_json() for r in self.remedies],
            "notes": list(self.notes),
            "holders": self.holders.to_json() if self.holders is not None else None,
            "sites": self.sites.to_json() if self.sites is not None else None,
            "record_offer": list(self.record_offer),
        }



def _timeline(sampler: Sampler | None, event: OutOfMemory, state: MemoryState, now: float) -> Timeline:
    if sampler is None:
        return Timeline()
    from ..memory._cells import headline_series

    history = sampler.history  # read as plain lists: a report imports neither numpy nor pandas, so it comes at once
    if not len(history):
        return Timeline()
    headlines = headline_series(sampler.series_infos(history.series))
    device = state.gpu(event.gpu) if event.device == "gpu" else None
    wanted = device.device if device is not None else ("host" if event.device == "host" else None)
    series = headlines.get(wanted) if wanted is not None else None
    if event.device == "host" and device is None:  # the host's figure, charted or kept beside the GPUs
        return _host_timeline(sampler, state, now)
    if series is None:  # the host's figure when no GPU answers
        series = headlines.get("host") or next(iter(headlines.values()), None)
    if series is None:
        return Timeline()
    pairs = [(t, int(v)) for t, v in history.points(series, since=now - TIMELINE_SECONDS)]
    markers = sampler.cells.markers
    running = sampler.cells.running
    failing = running if running is not None else (markers[-1] if markers else None)
    earlier = [m for m in markers if failing is None or m.cell != failing.cell]
    peaks = []
    for marker in earlier[-_EARLIER_CELLS:]:
        # A cell shorter than a sampling interval saw no sample of its own: the value around it stands for it.
        peak = marker.peak.get(series)
        if peak is None:
            peak = history.value_near(series, marker.end or marker.start, after=False)
        if peak is not None:
            peaks.append((marker.cell, int(peak)))
    times, values = tuple(t for t, _ in pairs), tuple(v for _, v in pairs)
    return Timeline(series, times, values,
                    failing.cell if failing is not None else None, failing.start if failing is not None else None,
                    tuple(peaks), sampler.series_info(series), _between(times, values, earlier, failing))


def _between(times: tuple[float, ...], values: tuple[int, ...], earlier: list[CellMarker],
             failing: CellMarker | None) -> tuple[Between, ...]:
    """The growth between the last cells before the failure and up to the failing cell (`growth_between`)."""
    cells = [(m.cell, m.start, m.end) for m in earlier[-_EARLIER_CELLS:]]
    if failing is not None:
        cells.append((failing.cell, failing.start, None))
    return growth_between(times, values, cells)


HOST_SERIES = "host process"


def _host_timeline(sampler: Sampler, state: MemoryState, now: float) -> Timeline:
    """A host-memory error: what the kernel's process tree held in RAM, as charted (the host is charted GPU or not),
    and the figure read at the failure; the cells' peaks from the same readings."""
    since = now - TIMELINE_SECONDS
    charted = [(t, int(v)) for t, v in sampler.history.points(HOST_SERIES, since=since)] if (
        HOST_SERIES in sampler.history.series) else []
    pairs = sorted(set(charted))
    if state.kernel_rss is not None:
        pairs.append((now, int(state.kernel_rss)))
    if not pairs:
        return Timeline()
    markers = sampler.cells.markers
    running = sampler.cells.running
    failing = running if running is not None else (markers[-1] if markers else None)
    peaks = []
    for marker in [m for m in markers if failing is None or m.cell != failing.cell][-_EARLIER_CELLS:]:
        during = [v for t, v in pairs if marker.start <= t <= (marker.end or marker.start)]
        before = [v for t, v in pairs if t <= (marker.end or marker.start)]
        if during or before:
            peaks.append((marker.cell, max(during) if during else before[-1]))
    info: SeriesInfo = sampler.series_info(HOST_SERIES) or {
        "key": HOST_SERIES, "device": "host", "framework": None, "quantity": "process", "source": "host",
        "simulated": False, "node": None}
    times, values = tuple(t for t, _ in pairs), tuple(v for _, v in pairs)
    earlier = [m for m in markers if failing is None or m.cell != failing.cell]
    return Timeline(HOST_SERIES, times, values,
                    failing.cell if failing is not None else None, failing.start if failing is not None else None,
                    tuple(peaks), info, _between(times, values, earlier, failing))


def build_report(event: OutOfMemory, sampler: Sampler | None, session: EnvSession, sites: Sites | None = None,
                 record_offer: tuple[str, ...] = (), cell_code: str | None = None) -> OomReport:
    """Explain `event` with what `sampler` recorded and what `session` has set; `sites` are where the memory was
    allocated, `record_offer` the frameworks that would say so with recording on, `cell_code` the failing cell's."""
    started = time.perf_counter()
    now = time.time()
    state = read_state(sampler).with_error(event.gpu, event.facts)
    findings = diagnose(event, state, session)
    chosen = remedies(event, findings, state, session)
    timeline = _timeline(sampler, event, state, now)
    # The walk never raises and keeps its time bound, whatever the namespace holds (memory/_holders.py).
    holders = memory_holders(max_seconds=HOLDERS_SECONDS)
    code = cell_code[:CELL_CODE_CHARS] if isinstance(cell_code, str) and cell_code.strip() else None
    return OomReport(event, now, state, timeline, tuple(findings), tuple(chosen), time.perf_counter() - started,
                     state.notes, holders=holders, sites=sites, record_offer=record_offer, cell_code=code)


_REPORTS: LastResultSlot[OomReport] = LastResultSlot("out-of-memory report")
# The free that gave the last report's cell back, by the report's key; and whether the reports follow the frees yet.
_FREED: Slot[tuple[str, FreeResult]] = Slot("the free after the last out-of-memory report")
_FOLLOWS_FREES: Slot[bool] = Slot("out-of-memory reports follow frees")


def reports() -> LastResult[OomReport]:
    """The kernel's last report and the views told of each."""
    return _REPORTS.last()


def remember(report: OomReport) -> None:
    """Keep `report` as the kernel's last one and hand it to every observer (the open sidebars)."""
    _FOLLOWS_FREES.get_or_make(_follow_frees)
    _REPORTS.last().remember(report)


def _follow_frees() -> bool:
    FREES.last().observe(_on_free)
    return True


# What was done about the last report since it was made (`_FREED`): the free that gave its
# failed cell back, by the report's key. Its observers hear of the report again then, so that no view offers again
# what was done.
def freed(report: OomReport) -> FreeResult | None:
    """The free (%memfree, the report's button, `free()`) that gave `report`'s failed cell back, if one has: the first
    after the report, whose figures say what it gave back and what was left."""
    done = _FREED.get()
    return done[1] if done is not None and done[0] == report.key else None


def _on_free(result: FreeResult) -> None:
    report = last_report()
    if report is None or freed(report) is not None or result.after.time < report.time:
        return
    _FREED.set((report.key, result))
    _REPORTS.last().remember(report)  # every open view hears of it: the offer goes, what was given back, what is left


def observe(callback: Callable[[OomReport], None]) -> None:
    _REPORTS.last().observe(callback)


def unobserve(callback: Callable[[OomReport], None]) -> None:
    _REPORTS.last().unobserve(callback)


def made_remedy(report_id: str, remedy_id: str) -> Remedy | None:
    """The remedy that a report's button names, from this kernel's own last report (None: no such report, a stale
    one, or no such remedy in it). Only the kernel's own record is applied, never what a message carries."""
    last = last_report()
    if last is None or report_id != last.key:
        return None
    for index, remedy in enumerate(last.remedies):
        if remedy_id == last.remedy_id(index):
            return remedy
    return None


def last_report() -> OomReport | None:
    """The latest out-of-memory report of this kernel (None: no cell has run out of memory since loading)."""
    return _REPORTS.last().get()
