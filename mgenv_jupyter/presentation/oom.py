"""`OomView`: an out-of-memory report as every front end shows it, in English or Chinese — the failure, the verdict
with its evidence, the numbers per device, the other processes on the GPU, the timeline before the failure, and the
remedies best first as `%envset` lines (with whether each applies live or needs a restart).

The plain text is the fallback for front ends without HTML, and what a user copies the `%envset` lines from.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..oom.causes import size
from ..protocol.oom import OOM_MIME, OOM_VERSION, OomRemedyInfo, OomReportData
from ..text import Text, current_language

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
REMEDIES = T("Remedies, best first", "解决办法(按推荐顺序)")
NO_REMEDY = T("no catalog setting addresses this cause: reduce the batch or the model, or free memory first",
              "没有目录变量能解决这个原因:请减小批大小或模型,或先释放显存")
LIVE = T("applies live", "可实时生效")
RESTART = T("needs a restart (Framework Env sidebar: Restart and apply)",
            "需要重启内核(Framework Env 侧边栏:重启并应用)")
CAVEAT = T("caveat", "注意")
FOOTER = T("Report made in {ms} ms. %oom shows it again; mgenv_jupyter.last_oom() returns it as data; "
           "remedy.apply() sets one through the session.",
           "报告生成用时 {ms} 毫秒。%oom 可再次显示;mgenv_jupyter.last_oom() 以数据形式返回;"
           "remedy.apply() 通过会话设置。")
SIMULATED = T(" (simulated)", "(模拟)")
_BARS = "▁▂▃▄▅▆▇█"


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

    def timeline_lines(self) -> list[str]:
        timeline: Timeline = self.report.timeline
        if not timeline.values:
            return [NO_TIMELINE.get(self.lang)]
        minutes = max(1, round((timeline.times[-1] - timeline.times[0]) / 60)) if len(timeline.times) > 1 else 1
        lines = [f"{self._t(TIMELINE, series=timeline.series, minutes=minutes)}: {sparkline(timeline.values)}"]
        during = timeline.during_cell()
        if during and timeline.cell is not None:
            lines.append("  " + self._t(CELL_CLIMB, cell=timeline.cell, first=size(during[0]), last=size(during[-1]),
                                        peak=size(max(during))) + f"  {sparkline(during, 24)}")
        if timeline.earlier_peaks:
            peaks = ", ".join(f"[{cell}] {size(peak)}" for cell, peak in timeline.earlier_peaks)
            lines.append(f"  {EARLIER.get(self.lang)}: {peaks}")
        return lines

    def remedy_lines(self) -> list[str]:
        lines = [f"{REMEDIES.get(self.lang)}:"]
        if not self.report.remedies:
            return lines + ["  " + NO_REMEDY.get(self.lang)]
        for number, remedy in enumerate(self.report.remedies, start=1):
            when = (RESTART if remedy.restart else LIVE).get(self.lang)
            lines.append(f"  {number}. {remedy.envset}   — {when}; {remedy.why.get(self.lang)}")
            if remedy.caveat is not None:
                lines.append(f"     {CAVEAT.get(self.lang)}: {remedy.caveat.get(self.lang)}")
        return lines

    def lines(self) -> list[str]:
        return [self.headline(), *self.verdict_lines(), *self.number_lines(), *self.process_lines(),
                *self.timeline_lines(), *self.remedy_lines(),
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
             "envset": r.envset, "restart": r.restart, "when": (RESTART if r.restart else LIVE).get(self.lang),
             "why": r.why.get(self.lang), "caveat": r.caveat.get(self.lang) if r.caveat is not None else None}
            for r in self.report.remedies]
        sections = [lines for lines in (self.verdict_lines(), self.number_lines(), self.process_lines(),
                                        self.timeline_lines()) if lines]
        return {"v": OOM_VERSION, "language": self.lang, "headline": self.headline(), "sections": sections,
                "remedies": remedies, "remedies_title": REMEDIES.get(self.lang),
                "no_remedy": None if remedies else NO_REMEDY.get(self.lang),
                "footer": self._t(FOOTER, ms=f"{self.report.took * 1000:.0f}")}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The renderer's data; IPython adds text/plain and text/html from the methods below for other front ends."""
        return {OOM_MIME: self.data()}

    def _repr_html_(self) -> str:
        def block(lines: list[str]) -> str:
            return "".join(f"<div>{html.escape(line.strip())}</div>" for line in lines)

        def when(remedy: Remedy) -> str:
            return html.escape((RESTART if remedy.restart else LIVE).get(self.lang))

        remedies = "".join(
            f"<li><code>{html.escape(r.envset)}</code> — <b>{when(r)}</b>; {html.escape(r.why.get(self.lang))}"
            + (f"<br><small>{html.escape(CAVEAT.get(self.lang))}: {html.escape(r.caveat.get(self.lang))}</small>"
               if r.caveat is not None else "") + "</li>"
            for r in self.report.remedies) or f"<li>{html.escape(NO_REMEDY.get(self.lang))}</li>"
        return (f"<div class='mgenv-oom'><div><b>{html.escape(self.headline())}</b></div>"
                f"{block(self.verdict_lines())}{block(self.number_lines())}{block(self.process_lines())}"
                f"{block(self.timeline_lines())}<div>{html.escape(REMEDIES.get(self.lang))}:</div><ol>{remedies}</ol>"
                f"<div><small>{html.escape(self._t(FOOTER, ms=f'{self.report.took * 1000:.0f}'))}</small></div></div>")
