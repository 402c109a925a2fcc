"""`OomView`: an out-of-memory report as every front end shows it, in English or Chinese — the failure, the verdict
with its evidence, the numbers per device, the other processes on the GPU, the timeline before the failure, and the
remedies best first as `%envset` lines (with whether each applies live or needs a restart).

The plain text is the fallback for front ends without HTML, and what a user copies the `%envset` lines from.
"""

from __future__ import annotations

import html
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..catalog.values import format_size
from ..oom.causes import size
from ..protocol import CellInfo, OverlayInfo, Snapshot
from ..protocol.oom import OOM_MIME, OOM_VERSION, OomRemedyInfo, OomReportData, OomTimeline
from ..text import Text, current_language
from .freeing import offer_info, offer_line, report_holders, report_offer

if TYPE_CHECKING:
    from ..oom.remedies import Remedy
    from ..oom.report import OomReport, Timeline

T = Text
HEADLINE = T("Out of memory on {where} ({exception}){asked}", "{where}内存不足({exception}){asked}")
ASKED = T(": {size} asked for", ":申请 {size}")
GPU = T("gpu{index}", "gpu{index} ")
HOST = T("the host", "主机")
VERDICT = T("Verdict", "结论")
ALSO = T("also possible", "其他可能")
NUMBERS = T("Numbers", "数据")
DEVICE_LINE = T("{device}: total {total}; this kernel {kernel} (NVML); other processes {others}; free {free}",
                "{device}:总量 {total};本内核 {kernel}(NVML);其他进程 {others};空闲 {free}")
ALLOCATOR = T("; allocator allocated {allocated}, reserved {reserved}", ";分配器已分配 {allocated},已预留 {reserved}")
FRAGMENT = T("; reserved but unallocated {free} ({ratio}× the request)", ";已预留未分配 {free}(为申请量的 {ratio} 倍)")
HOST_LINE = T("host: total {total}, available {available}; the kernel's processes {rss}",
              "主机:总量 {total},可用 {available};内核进程占用 {rss}")
PROCESSES = T("Other processes on the GPU", "GPU 上的其他进程")
PROCESS_LINE = T("gpu{gpu}: pid {pid} {user} {name} {bytes}", "gpu{gpu}:pid {pid} {user} {name} {bytes}")
UNSEEN = T("(not visible here)", "(在此不可见)")
TIMELINE = T("Timeline ({series}, last {minutes} min)", "时间线({series},最近 {minutes} 分钟)")
CELL_CLIMB = T("cell [{cell}] went from {first} to {last} (peak {peak})",
               "单元 [{cell}] 从 {first} 升至 {last}(峰值 {peak})")
EARLIER = T("earlier cells' peaks", "之前各单元的峰值")
NO_TIMELINE = T("no samples recorded before the failure", "失败前没有记录到采样")
CHART_TITLE = T("Timeline of {series}: cell [{cell}] up to the failure, against the earlier cells' peaks",
                "{series} 的时间线:单元 [{cell}] 直到失败,对比之前各单元的峰值")
CHART_TITLE_NO_CELL = T("Timeline of {series}: the last {seconds} s before the failure",
                        "{series} 的时间线:失败前的最后 {seconds} 秒")
SAMPLES = T("samples while the cell ran: {count} (about {interval} s apart){failure}",
            "单元运行期间的采样:{count} 个(间隔约 {interval} 秒){failure}")
NO_SAMPLES = T("no sample while the cell ran (the recorder takes one a second, and pauses while a cell imports a "
               "framework for the first time){failure}",
               "单元运行期间没有采样(记录器每秒采样一次,单元首次导入框架时暂停){failure}")
AT_FAILURE = T(", and one at the failure", ",另有一个在失败时")
TOTAL_LINE = T("{device} total ({size})", "{device} 总量({size})")
TOTAL_SHORT = T("total", "总量")
TOTAL_NOTE = T("the device's memory", "设备的内存")
ONE_CELL = T("cell [{cells}]", "单元 [{cells}]")
MANY_CELLS = T("cells [{cells}]", "单元 [{cells}]")
PEAK_LINE = T("{cells} peak ({size})", "{cells} 峰值({size})")
PEAK_SHORT = T("[{cells}] peak", "[{cells}] 峰值")
PEAK_NOTE = T("the highest {series} sample while the cell ran (for a cell shorter than a sampling interval, the sample "
              "nearest it)", "该单元运行期间 {series} 的最高采样值(单元短于采样间隔时取最接近的采样)")
ASKED_LINE = T("held at the failure + the {asked} asked for ({size})", "失败时占用 + 申请的 {asked}({size})")
ASKED_SHORT = T("+ asked", "+ 申请")
ASKED_NOTE = T("{series} at the failure plus what the failing allocation asked for",
               "失败时的 {series} 加上失败的分配所申请的大小")
REMEDIES = T("Remedies, best first", "解决办法(按推荐顺序)")
NO_REMEDY = T("no catalog setting addresses this cause: reduce the batch or the model, or free memory first",
              "没有目录变量能解决这个原因:请减小批大小或模型,或先释放显存")
ONCE_SET = T("once set: {status}", "设置后:{status}")  # the status the session will give it (%envdiff's words)
RESTART = T("needs a restart (Framework Env sidebar: Restart and apply)",
            "需要重启内核(Framework Env 侧边栏:重启并应用)")
CAVEAT = T("caveat", "注意")
FOOTER = T("Report made in {ms} ms. %oom shows it again; mgenv_jupyter.last_oom() returns it as data; "
           "remedy.apply() sets one through the session.",
           "报告生成用时 {ms} 毫秒。%oom 可再次显示;mgenv_jupyter.last_oom() 以数据形式返回;"
           "remedy.apply() 通过会话设置。")
SIMULATED = T(" (simulated)", "(模拟)")
_BARS = "▁▂▃▄▅▆▇█"
CHART_CONTEXT = 10.0  # seconds of history before the failing cell shown with it (more when the cell ran longer)
CHART_MIN_POINTS = 6  # however short the cell, at least these many samples are drawn (1 Hz: the cell's lead-up)
CHART_PEAK_LINES = 4  # earlier cells' peaks drawn as lines, the highest ones (the text lists them all)
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
class OomView:
    report: OomReport
    language: str | None = None

    @property
    def lang(self) -> str:
        return self.language or current_language()

    def _t(self, text: Text, **fields: Any) -> str:
        return text.get(self.lang).format(**fields)

    def headline(self) -> str:
        event = self.report.event
        where = self._t(GPU, index=event.gpu if event.gpu is not None else "") if event.device == "gpu" else (
            HOST.get(self.lang))
        asked = self._t(ASKED, size=size(event.requested)) if event.requested is not None else ""
        return self._t(HEADLINE, where=where, exception=event.exception, asked=asked)

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
            line = self._t(DEVICE_LINE, device=label, total=size(d.total), kernel=size(d.kernel),
                           others=size(d.others), free=size(d.free))
            allocated = d.allocated if d.allocated is not None else (
                event.facts.get("allocated") if d.gpu == event.gpu else None)
            cached = event.facts.get("cached_free") if d.gpu == event.gpu else None
            if allocated is not None:
                reserved = d.reserved if d.reserved is not None else (
                    allocated + cached if cached is not None else None)
                line += self._t(ALLOCATOR, allocated=size(allocated), reserved=size(reserved))
                free = cached if cached is not None else d.cached_free
                if free and event.requested:
                    line += self._t(FRAGMENT, free=size(free), ratio=f"{free / event.requested:.1f}")
            lines.append("  " + line)
        if event.device == "host" or not state.devices:
            lines.append("  " + self._t(HOST_LINE, total=size(state.host_total), available=size(state.host_available),
                                        rss=size(state.kernel_rss)))
        return lines

    def process_lines(self) -> list[str]:
        if not self.report.state.processes:
            return []
        unseen = UNSEEN.get(self.lang)
        return [f"{PROCESSES.get(self.lang)}:"] + [
            "  " + self._t(PROCESS_LINE, gpu=p.gpu, pid=p.pid, user=p.user or unseen, name=p.name or "",
                           bytes=size(p.bytes)).replace("  ", " ")
            for p in self.report.state.processes[:10]]

    def timeline_lines(self, sparklines: bool = True) -> list[str]:
        """The timeline in words, with sparklines for the text fallback; without them beside the chart."""
        timeline: Timeline = self.report.timeline
        if not timeline.values:
            return [NO_TIMELINE.get(self.lang)]
        minutes = max(1, round((timeline.times[-1] - timeline.times[0]) / 60)) if len(timeline.times) > 1 else 1
        lines = [f"{self._t(TIMELINE, series=timeline.series, minutes=minutes)}: {sparkline(timeline.values)}"]
        if not sparklines:
            lines = []
        during = timeline.during_cell()
        if during and timeline.cell is not None:
            lines.append("  " + self._t(CELL_CLIMB, cell=timeline.cell, first=size(during[0]), last=size(during[-1]),
                                        peak=size(max(during))) + (f"  {sparkline(during, 24)}" if sparklines else ""))
            lines.append("  " + self._samples_line())
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
            return self._t(NO_SAMPLES, failure=failure)
        gaps = [b - a for a, b in zip(timeline.times, timeline.times[1:], strict=False) if b - a > 0.05]
        interval = f"{statistics.median(gaps):.1f}".removesuffix(".0") if gaps else "?"  # 0.97 → "1", 0.25 → "0.2"
        return self._t(SAMPLES, count=len(before), interval=interval, failure=failure)

    def timeline_title(self) -> str:
        timeline = self.report.timeline
        if not timeline.values:
            return NO_TIMELINE.get(self.lang)
        if timeline.cell is not None and timeline.cell_start is not None:
            return self._t(CHART_TITLE, series=timeline.series, cell=timeline.cell)
        seconds = round(max(timeline.times[-1], self.report.time) - self._chart_window()[0])
        return self._t(CHART_TITLE_NO_CELL, series=timeline.series, seconds=seconds)

    def _chart_window(self) -> tuple[float, int]:
        """(from when, from which sample) the chart shows: CHART_CONTEXT seconds before the failing cell, or as long
        before it as the cell ran, and at least CHART_MIN_POINTS samples."""
        timeline = self.report.timeline
        end = max(timeline.times[-1], self.report.time)
        if timeline.cell_start is None:
            start = end - 60.0
        else:
            start = timeline.cell_start - max(CHART_CONTEXT, end - timeline.cell_start)
        first = next((i for i, t in enumerate(timeline.times) if t >= start), len(timeline.times) - 1)
        first = max(0, min(first, len(timeline.times) - CHART_MIN_POINTS))
        return min(start, timeline.times[first]), first

    def timeline_chart(self) -> Snapshot | None:
        """The timeline as the memory chart's own snapshot (protocol/memory.py), for the chart component: the failing
        device's series (the samples the recorder kept, the last one taken at the failure), the failing cell's
        marker, and overlay lines for the device's total, the earlier cells' peaks and what was held plus what was
        asked. None when nothing was recorded."""
        timeline, report = self.report.timeline, self.report
        if not timeline.values or timeline.series is None or timeline.info is None:
            return None
        series, info = timeline.series, timeline.info  # as the sampler recorded it: nothing parsed from the key
        device = info["device"]
        _, first = self._chart_window()
        times, values = timeline.times[first:], timeline.values[first:]
        overlays: list[OverlayInfo] = []
        figures = next((d for d in report.state.devices if d.device == device), None)
        total = figures.total if figures is not None else (report.state.host_total if device == "host" else None)
        if total:
            overlays.append({"key": f"total:{device}", "kind": "total", "device": device, "bytes": int(total),
                             "label": self._t(TOTAL_LINE, device=device, size=format_size(total)),
                             "short": TOTAL_SHORT.get(self.lang), "note": TOTAL_NOTE.get(self.lang)})
        event = report.event
        same_device = (event.device == "host") == (device == "host") and (
            event.gpu is None or figures is None or figures.gpu == event.gpu)
        if event.requested and same_device:
            needed = values[-1] + event.requested
            overlays.append({"key": f"oom_request:{device}", "kind": "oom_request", "device": device,
                             "bytes": int(needed),
                             "label": self._t(ASKED_LINE, asked=format_size(event.requested), size=format_size(needed)),
                             "short": ASKED_SHORT.get(self.lang), "note": self._t(ASKED_NOTE, series=series)})
        overlays.extend(self._peak_overlays(device, series))
        cells: list[CellInfo] = []
        if timeline.cell is not None and timeline.cell_start is not None:
            end = max(times[-1], report.time)
            during = timeline.during_cell()
            cells.append({"cell": timeline.cell, "start": round(timeline.cell_start, 3), "end": round(end, 3),
                          "duration": round(end - timeline.cell_start, 3), "ok": False,
                          "peak": {series: float(max(during))} if during else {}})
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        chart: Snapshot = {"type": "memory.snapshot", "seq": 0,
                           "interval": round(statistics.median(gaps), 3) if gaps else 1.0,
                           "t": [round(t, 3) for t in times], "columns": {series: [int(v) for v in values]},
                           "cells": cells, "series": [info], "sources": [], "overlays": overlays}
        started = _kernel_started()
        if started is not None:
            chart["started"] = started
        return chart

    def _peak_overlays(self, device: str, series: str) -> list[OverlayInfo]:
        """The earlier cells' peaks as lines: cells whose peaks read the same share one line; the highest
        CHART_PEAK_LINES lines."""
        by_size: dict[str, list[tuple[int, int]]] = {}
        for cell, peak in self.report.timeline.earlier_peaks:
            by_size.setdefault(format_size(peak), []).append((cell, peak))
        groups = sorted(by_size.values(), key=lambda group: -max(peak for _, peak in group))[:CHART_PEAK_LINES]
        lines: list[OverlayInfo] = []
        for group in groups:
            numbers = [str(cell) for cell, _ in group]
            peak = max(peak for _, peak in group)
            named = self._t(ONE_CELL if len(numbers) == 1 else MANY_CELLS, cells="], [".join(numbers))
            short = ", ".join(numbers[:3]) + (", …" if len(numbers) > 3 else "")
            lines.append({"key": f"cell_peak:{'+'.join(numbers)}", "kind": "cell_peak", "device": device,
                          "bytes": int(peak), "label": self._t(PEAK_LINE, cells=named, size=format_size(peak)),
                          "short": self._t(PEAK_SHORT, cells=short), "note": self._t(PEAK_NOTE, series=series)})
        return lines

    def when(self, remedy: Remedy) -> str:
        """When a remedy takes effect: what the session will say of it once set ("applied live", "takes effect at
        first use"...), the words %envdiff and the sidebar use; a restart names the button that does it."""
        if remedy.restart:
            return RESTART.get(self.lang)
        return ONCE_SET.get(self.lang).format(status=remedy.when.get(self.lang))

    def remedy_lines(self) -> list[str]:
        lines = [f"{REMEDIES.get(self.lang)}:"]
        free = report_offer(self.report)
        if free is not None:  # first, unnumbered: it sets nothing
            lines.append(offer_line(free, self.lang))
        if not self.report.remedies:
            return lines + ["  " + NO_REMEDY.get(self.lang)]
        for number, remedy in enumerate(self.report.remedies, start=1):
            when = self.when(remedy)
            lines.append(f"  {number}. {remedy.envset}   — {when}; {remedy.why.get(self.lang)}")
            if remedy.caveat is not None:
                lines.append(f"     {CAVEAT.get(self.lang)}: {remedy.caveat.get(self.lang)}")
        return lines

    def lines(self) -> list[str]:
        return [self.headline(), *self.verdict_lines(), *self.number_lines(), *self.process_lines(),
                *self.timeline_lines(), *self.remedy_lines(), *report_holders(self.lang).lines(),
                self._t(FOOTER, ms=f"{self.report.took * 1000:.0f}")]

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def data(self) -> OomReportData:
        """The report for the labextension's renderer (protocol/oom.py): the same words as the text, the remedies as
        data so each can be a button."""
        remedies: list[OomRemedyInfo] = [
            {"cause": r.cause.value, "assignments": [[name, value] for name, value in r.assignments],
             "envset": r.envset, "restart": r.restart, "when": self.when(r),
             "why": r.why.get(self.lang), "caveat": r.caveat.get(self.lang) if r.caveat is not None else None}
            for r in self.report.remedies]
        sections = [lines for lines in (self.verdict_lines(), self.number_lines(), self.process_lines()) if lines]
        timeline: OomTimeline = {"title": self.timeline_title(), "chart": self.timeline_chart(),
                                 "lines": [line.strip() for line in self.timeline_lines(sparklines=False)]}
        return {"v": OOM_VERSION, "language": self.lang, "headline": self.headline(), "sections": sections,
                "timeline": timeline,
                "remedies": remedies, "remedies_title": REMEDIES.get(self.lang),
                "no_remedy": None if remedies else NO_REMEDY.get(self.lang),
                "footer": self._t(FOOTER, ms=f"{self.report.took * 1000:.0f}"),
                "free": offer_info(free, self.lang) if (free := report_offer(self.report)) else None,
                "holders": report_holders(self.lang).data()}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The renderer's data; IPython adds text/plain and text/html from the methods below for other front ends."""
        return {OOM_MIME: self.data()}

    def _repr_html_(self) -> str:
        def block(lines: list[str]) -> str:
            return "".join(f"<div>{html.escape(line.strip())}</div>" for line in lines)

        def when(remedy: Remedy) -> str:
            return html.escape(self.when(remedy))

        remedies = "".join(
            f"<li><code>{html.escape(r.envset)}</code> — <b>{when(r)}</b>; {html.escape(r.why.get(self.lang))}"
            + (f"<br><small>{html.escape(CAVEAT.get(self.lang))}: {html.escape(r.caveat.get(self.lang))}</small>"
               if r.caveat is not None else "") + "</li>"
            for r in self.report.remedies) or f"<li>{html.escape(NO_REMEDY.get(self.lang))}</li>"
        if (free := report_offer(self.report)) is not None:
            remedies = f"<li>{html.escape(offer_line(free, self.lang).strip().removeprefix('• '))}</li>" + remedies
        return (f"<div class='mgenv-oom'><div><b>{html.escape(self.headline())}</b></div>"
                f"{block(self.verdict_lines())}{block(self.number_lines())}{block(self.process_lines())}"
                f"{block(self.timeline_lines())}<div>{html.escape(REMEDIES.get(self.lang))}:</div><ol>{remedies}</ol>"
                f"{report_holders(self.lang)._repr_html_()}"
                f"<div><small>{html.escape(self._t(FOOTER, ms=f'{self.report.took * 1000:.0f}'))}</small></div></div>")


def _kernel_started() -> float | None:
    """When this process (the kernel, which made the report) started: the chart counts time from it, as elsewhere."""
    try:
        import psutil

        return round(float(psutil.Process().create_time()), 3)
    except Exception:  # without it the chart counts from its first sample
        return None
