"""The out-of-memory report as the front end receives it: a display output under the failing cell whose bundle holds,
beside text/plain and text/html, `OOM_MIME` with an `OomReportData`. The labextension renders that one with a button
per remedy, and the Framework Env panel shows the last report, sent over its comm as an `OomNotice`. A click sends
only the remedy's id (and the report's) as a "remedy" request over the comm (`RemedyRequest`): the kernel looks the
id up in its own last report and sets that remedy's assignments through the session (source "oom_report": catalog
variables only, never force), so what is applied is the record the shown `%envset` text was made from, whatever the
output's data says. Nothing in it is executed: names and values are data for display.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from . import _gpus
from ._freeing import FigureInfo, HoldersData
from ._memory import Snapshot

OOM_MIME = "application/vnd.mgenv-jupyter.oom+json"
# 2: the timeline became its own part, drawn by the memory chart; 3: each remedy carries the kernel's id
OOM_VERSION = 3


class OomRemedyInfo(TypedDict):
    """One remedy: its id (made by the kernel, stable within its report: what a click sends back), the catalog
    variables it sets (name, value) in order, the `%envset` line made from the same record, whether the kernel needs a
    restart for it to take effect, and its reason and caveat in the report's language."""

    id: str
    cause: str
    assignments: list[list[str]]
    envset: str
    restart: bool
    when: str
    why: str
    caveat: str | None
    try_cell: str | None  # "try it first": a %%envsweep cell of the failing cell, current setting against this one


class OomTimeline(TypedDict):
    """The timeline: its title line, the failing cell's memory curve as the chart component's own snapshot (the
    failing device's series from shortly before the cell to the failure, the cell's marker, and overlay lines for the
    device total, the earlier cells' peaks and what was held plus what was asked; null when nothing was recorded), and
    the same facts as text lines (what the text fallback says, without its sparkline)."""

    title: str
    chart: Snapshot | None
    lines: list[str]


class OomFreeOffer(TypedDict):
    """The report's first remedy when the kernel decides it applies: "Free what the failed cell holds" (its title,
    why, the magic that does the same, the button's label and what it leaves alone, in the report's language). A
    click sends the comm's "free" request; the answer is a `FreeResultData` (protocol/_freeing.py)."""

    title: str
    why: str
    magic: str
    button: str
    note: str


class OomKernelHolder(TypedDict):
    """Another kernel of this Jupyter server holds most of the failing GPU (its server extension said so,
    memory/_server_owners.py): its kernel id, notebooks, the bytes NVML lists for it on the GPU, the GPU's index,
    whether it is running a user's cell, and how long it has been idle since its last one (`idle_since`, as
    protocol/_gpus.py's GpuKernelInfo; null: running or unknown). The front end offers to shut it down through the
    server's kernel API after the user confirms, and takes the notebook and memory it names from the server again:
    this is data for a button, never consent."""

    kernel_id: str
    notebooks: list[str]
    bytes: int | None
    gpu: int
    idle_seconds: float | None
    idle_since: _gpus.IdleSince | None
    running_cell: bool


class OomFreed(TypedDict):
    """The report's failed cell was given back since the report was made (%memfree, the report's button, `free()`):
    when (seconds since the epoch), the line saying so with what came back and what was left ("Given back at
    14:03:05: gpu0: this kernel (NVML) 38 GiB → 2 GiB; ..."), and every figure before → after."""

    time: float
    summary: str
    figures: list[FigureInfo]


class OomReportParts(TypedDict, total=False):
    """Parts a report made before they existed lacks: the free offer (null: nothing to give back), what a free since
    the report gave back (null: none yet; then there is no offer), another kernel of this server holding most of the
    GPU (null: none, or the server has no extension) and what holds memory now, by name."""

    free: OomFreeOffer | None
    freed: OomFreed | None
    kernel_holder: OomKernelHolder | None
    holders: HoldersData
    # The label of the button that turns allocation-site recording on (a "memtrace" request), where a loaded framework
    # records only when asked; null: nothing to turn on. The sites themselves are one of `sections`.
    memtrace_button: str | None


class OomReportData(OomReportParts):
    """The report in the report's language: the headline, the lines of the verdict, numbers and other processes
    (`sections`, each a title line then its lines), the timeline, the remedies best first (or `no_remedy`), the
    footer."""

    v: int
    id: str
    language: str
    headline: str
    sections: list[list[str]]
    timeline: OomTimeline
    remedies: list[OomRemedyInfo]
    remedies_title: str
    no_remedy: str | None
    footer: str


class RemedyRequest(TypedDict):
    """Front end → kernel, over the sidebar's comm: apply the remedy `remedy_id` of the report `report_id`, a click
    on its button. No names, values or force travel: the kernel resolves the id against its own last report and
    refuses an unknown or stale one, changing nothing. Answered by "result", or "error"."""

    v: int
    id: str
    type: Literal["remedy"]
    report_id: str
    remedy_id: str


class OomNotice(TypedDict):
    """Kernel → sidebar, over its comm: a cell ran out of memory (sent to every open sidebar as the report is made, and
    after a sidebar's hello when the kernel has one), so the panel shows the last report."""

    v: int
    type: Literal["oom"]
    report: OomReportData


class MemtraceRequest(TypedDict):
    """Front end → kernel, over the sidebar's comm: record where memory is allocated in every cell from the next one
    on (`on`), or stop: what `%memtrace on|off` does. Answered by "result", or "error"."""

    v: int
    id: str
    type: Literal["memtrace"]
    on: bool
