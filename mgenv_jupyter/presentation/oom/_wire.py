"""The report as the labextension's renderer receives it (protocol/_oom.py, under OOM_MIME): the same words as the
text, the timeline as the chart's snapshot, the remedies as data so each can be a button."""

from __future__ import annotations

from ...oom._holder import kernel_holder
from ...protocol._oom import OOM_VERSION, OomKernelHolder, OomRemedyInfo, OomReportData, OomTimeline
from .._freeing import freed_info, offer_info, report_holders
from ..sweep._cell import try_cell
from ._text import OomText
from ._timeline import timeline_chart, timeline_title
from ._words import NO_REMEDY, RECORD_BUTTON, REMEDIES


def oom_data(view: OomText) -> OomReportData:
    """The report for the labextension's renderer (protocol/_oom.py): the same words as the text, the remedies as
    data so each can be a button, each with the id the kernel resolves a click against (its envset text and
    assignments come from that same remedy)."""
    report = view.report
    remedies: list[OomRemedyInfo] = [
        {"id": report.remedy_id(index), "cause": r.cause.value,
         "assignments": [[name, value] for name, value in r.assignments],
         "envset": r.envset, "restart": r.restart, "when": view.when(r),
         "why": r.why.get(view.lang), "caveat": r.caveat.get(view.lang) if r.caveat is not None else None,
         "try_cell": try_cell(report, r, view.lang)}
        for index, r in enumerate(report.remedies)]
    sections = [lines for lines in (view.verdict_lines(), view.number_lines(), view.process_lines(),
                                    view.site_lines()) if lines]
    timeline: OomTimeline = {"title": timeline_title(view), "chart": timeline_chart(view),
                             "lines": [line.strip() for line in view.timeline_lines(sparklines=False)]}
    data: OomReportData = {
        "v": OOM_VERSION, "id": report.key, "language": view.lang, "headline": view.headline(),
        "sections": sections,
        "timeline": timeline,
        "remedies": remedies, "remedies_title": REMEDIES.get(view.lang),
        "no_remedy": None if remedies else NO_REMEDY.get(view.lang),
        "footer": view.footer(),
        "free": offer_info(free, view.lang) if (free := view.free_offer) else None,
        "freed": freed_info(view.report, view.lang),
        "kernel_holder": _kernel_holder(view),
        "memtrace_button": RECORD_BUTTON.get(view.lang) if report.record_offer else None}
    holders = report_holders(report, view.lang)
    if holders is not None:
        data["holders"] = holders.data()
    return data


def _kernel_holder(view: OomText) -> OomKernelHolder | None:
    """Another kernel of this server holding most of the GPU, for the renderer's Shut down offer (oom/_holder.py)."""
    report = view.report
    holder = kernel_holder(report.findings, report.state, report.event)
    if holder is None or holder.owner is None:
        return None
    owner = holder.owner
    return {"kernel_id": owner.kernel_id, "notebooks": list(owner.notebooks), "bytes": holder.bytes,
            "gpu": holder.gpu, "idle_seconds": owner.idle_seconds, "idle_since": owner.idle_since,
            "running_cell": owner.running_cell}

