"""The verdict: why a cell likely ran out of memory, each cause scored and backed by the numbers that point to it.

Causes, from the evidence a report has (the error's own figures, NVML, the allocator, the session's settings):

- fragmentation: the allocator holds much reserved-but-unallocated memory, at least the size that failed;
- another process holds the memory: processes outside the kernel hold most of the GPU, or enough that the request
  would have fit without them;
- DTR off: MegEngine ran out of GPU memory with DTR (tensor eviction and recomputation) disabled;
- a cap: the framework's own limit (JAX's memory fraction, PyTorch's per-process fraction, Paddle's fraction under
  naive_best_fit, TensorFlow mapping the whole GPU);
- too big: the request, or the cell's peak with it, exceeds what the device has;
- host memory: the allocation failed in the machine's memory, not a GPU's.

A framework's own causes (DTR off, its cap) are its catalog home's words (`OUT_OF_MEMORY`), shown where its adapter's
check (`oom_evidence`) finds them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base._text import Text
from ..catalog._out_of_memory import Room
from ..catalog._values import format_duration
from ..runtime.frameworks import adapter
from ._recognise import OutOfMemory
from ._state import DeviceFigures, MemoryState

if TYPE_CHECKING:
    from ..memory._server_owners import NotebookOwner


class Cause(str, enum.Enum):
    FRAGMENTATION = "fragmentation"
    OTHER_PROCESS = "other_process"
    DTR_OFF = "dtr_off"
    CAP = "cap"
    TOO_BIG = "too_big"
    HOST = "host"

    @property
    def label(self) -> Text:
        """Its words; a cause only one framework has (DTR off) is worded by that framework's catalog home."""
        return CAUSE_LABELS.get(self) or _own_label(self)


CAUSE_LABELS = {
    Cause.FRAGMENTATION: Text("fragmentation", "显存碎片"),
    Cause.OTHER_PROCESS: Text("another process holds the memory", "其他进程占用了显存"),
    Cause.CAP: Text("the framework's own memory cap", "框架自身的显存上限"),
    Cause.TOO_BIG: Text("simply too big", "需求确实超出容量"),
    Cause.HOST: Text("host memory", "主机内存不足"),
}


def _own_label(cause: Cause) -> Text:
    from ..catalog._homes import declared

    for facts in declared(lambda each: each.out_of_memory).values():
        for own in facts.causes:
            if own.cause == cause.value and own.label is not None:
                return own.label
    return Text(cause.value, cause.value)


@dataclass(frozen=True)
class Finding:
    """One likely cause with its score (0..1, higher is likelier) and the evidence, in both languages."""

    cause: Cause
    score: float
    evidence: Text


def size(n: int | None) -> str:
    """Bytes as a report shows them: 1024-based, three significant digits."""
    if n is None:
        return "?"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.3g} {unit}"
        value /= 1024
    return f"{value:.4g} PiB"


@dataclass(frozen=True)
class Figures:
    """The numbers a verdict weighs for the failing GPU, from NVML where it answers, else from the error message."""

    total: int | None
    kernel: int | None
    others: int | None
    cached_free: int | None
    requested: int | None
    device: DeviceFigures | None


def figures(event: OutOfMemory, state: MemoryState) -> Figures:
    device = state.gpu(event.gpu)
    facts = event.facts
    index = event.gpu if event.gpu is not None else (device.gpu if device is not None else None)
    listed = [p.bytes or 0 for p in state.processes if p.gpu == index]
    # The device's own figure (oom/_state.py DeviceFigures.others), the one the report's numbers say.
    others = device.others if device is not None else (sum(listed) if listed else None)
    total = device.total if device is not None and device.total is not None else facts.get("total")
    kernel = device.kernel if device is not None and device.kernel is not None else facts.get("in_use")
    # The device's figure (a reading's, or the error's where no framework source read one: MemoryState.with_error),
    # the one the report's numbers say; the error's alone where no device of it was read.
    cached_free = device.cached_free if device is not None and device.allocated is not None else facts.get(
        "cached_free")
    return Figures(total, kernel, others, cached_free, event.requested, device)


def filled(text: Text, figures: Mapping[str, float]) -> Text:
    """`text` with its fields filled in from `figures`: whole numbers are bytes, shown as sizes; other numbers as the
    text's own format says ("{fraction:.0%}")."""
    shown = {key: size(value) if isinstance(value, int) else value for key, value in figures.items()}
    return Text(text.en.format(**shown), text.zh.format(**shown))


def own_evidence(event: OutOfMemory, cause: str, f: Figures, session: object) -> dict[str, float] | None:
    """The figures with which a cause of the failing framework's own shows (None: it does not), from its adapter."""
    found = adapter(event.framework)
    check = found.oom_evidence if found is not None else None
    return check(cause, event.facts, Room(f.total, f.others), session) if check is not None else None


def _own_causes(event: OutOfMemory, f: Figures, session: object) -> list[Finding]:
    """The failing framework's own causes that show (its catalog home's words, its adapter's check)."""
    from ..catalog._homes import facts as framework_facts

    facts = framework_facts(event.framework).out_of_memory
    found = []
    for own in facts.causes if facts is not None else ():
        figures = own_evidence(event, own.cause, f, session)
        if figures is not None:
            found.append(Finding(Cause(own.cause), own.score, filled(own.evidence, figures)))
    return found


def diagnose(event: OutOfMemory, state: MemoryState, session: object) -> list[Finding]:
    """The likely causes of `event`, likeliest first."""
    if event.device == "host":
        return [_host(event, state)]
    f = figures(event, state)
    found: list[Finding] = []
    req = f.requested
    if f.cached_free is not None and f.cached_free > 0 and req:
        if f.cached_free >= req:
            found.append(Finding(Cause.FRAGMENTATION, 0.9, Text(
                f"the allocator holds {size(f.cached_free)} reserved but unallocated, {f.cached_free / req:.1f}× the "
                f"{size(req)} asked for: the memory is there, but not in one piece",
                f"分配器已预留但未分配的显存有 {size(f.cached_free)},"
                f"是所申请 {size(req)} 的 {f.cached_free / req:.1f} 倍:显存是有的,只是不连续")))
        elif f.kernel and f.cached_free >= 0.25 * f.kernel:
            found.append(Finding(Cause.FRAGMENTATION, 0.55, Text(
                f"{size(f.cached_free)} of the {size(f.kernel)} this kernel holds is reserved but unallocated",
                f"本内核占用的 {size(f.kernel)} 中有 {size(f.cached_free)} 已预留但未分配")))
    if f.others and f.total:
        top = next((p for p in _processes(state, event, f) if p.bytes), None)
        who = zh_who = ""
        if top is not None and top.owner is not None and top.owner.notebooks:
            # Another kernel of this Jupyter server, as its extension says: name its notebook and how long it idles.
            notebook = ", ".join(top.owner.notebooks)
            use = _use(top.owner)
            who = (f"; the largest, pid {top.pid}, is the kernel of notebook {notebook} on this server, {use.en}, "
                   f"holding {size(top.bytes)}")
            zh_who = (f";最大的是 pid {top.pid},即本服务器上笔记本 {notebook} 的内核,{use.zh},"
                      f"占用 {size(top.bytes)}")
        elif top is not None:
            named = ", ".join(x for x in (top.user, top.name) if x) or "not visible here"
            who = f"; the largest, pid {top.pid} ({named}), holds {size(top.bytes)}"
            zh_named = ", ".join(x for x in (top.user, top.name) if x) or "在此不可见"
            zh_who = f";最大的是 pid {top.pid}({zh_named}),占用 {size(top.bytes)}"
        fits_without = req is not None and f.kernel is not None and f.kernel + req <= f.total
        if f.others >= 0.5 * f.total or (fits_without and req is not None and f.others >= req):
            score = 0.85 if f.others >= 0.5 * f.total else 0.7
            found.append(Finding(Cause.OTHER_PROCESS, score, Text(
                f"other processes hold {size(f.others)} of the GPU's {size(f.total)}{who}",
                f"其他进程占用了该 GPU {size(f.total)} 中的 {size(f.others)}{zh_who}")))
    found.extend(_own_causes(event, f, session))
    if req is not None and f.total is not None:
        if req > f.total:
            found.append(Finding(Cause.TOO_BIG, 0.95, Text(
                f"{size(req)} asked for in one allocation, more than the GPU's {size(f.total)}",
                f"单次申请 {size(req)},超过了该 GPU 的总容量 {size(f.total)}")))
        elif f.kernel is not None and f.kernel + req > f.total and not found:
            found.append(Finding(Cause.TOO_BIG, 0.6, Text(
                f"the cell's peak, {size(f.kernel)} held plus {size(req)} asked for, exceeds the GPU's "
                f"{size(f.total)}", f"该单元的峰值(已占用 {size(f.kernel)} 加上申请的 {size(req)})超过了该 GPU 的 "
                f"{size(f.total)}")))
    if not found:
        found.append(Finding(Cause.TOO_BIG, 0.3, Text(
            "no other cause shows in the numbers: the work needs more memory than the GPU has free",
            "数据中看不出其他原因:这项计算需要的显存超过了 GPU 的空闲显存")))
    return sorted(found, key=lambda finding: -finding.score)


def _processes(state: MemoryState, event: OutOfMemory, f: Figures) -> list:
    index = event.gpu if event.gpu is not None else (f.device.gpu if f.device is not None else None)
    return [p for p in state.processes if p.gpu == index]


def _use(owner: NotebookOwner) -> Text:
    """How a user uses another kernel, as the server's view says: running a cell, or idle since its last cell (since
    it started, or since the server watches it, with none run); its state's word otherwise. Messages of charts and
    widgets never count as use."""
    idle, since = owner.idle_seconds, owner.idle_since
    if owner.running_cell:
        return Text("running a cell", "正在运行单元")
    if idle is None:
        return Text(owner.execution_state, owner.execution_state)
    en, zh = format_duration(idle), format_duration(idle, zh=True)
    if since == "cell":
        return Text(f"idle {en} since its last cell", f"上个单元结束后已空闲 {zh}")
    if since == "start":
        return Text(f"idle {en}, no cell run yet", f"已空闲 {zh},尚未运行单元")
    return Text(f"idle {en}, no cell seen", f"已空闲 {zh},未见运行单元")


def _host(event: OutOfMemory, state: MemoryState) -> Finding:
    req = event.requested
    beyond = req is not None and state.host_total is not None and req > state.host_total
    en = (f"{size(req)} asked for in the machine's memory" if req is not None else "the machine's memory ran out")
    zh = (f"在主机内存中申请 {size(req)}" if req is not None else "主机内存耗尽")
    if state.host_total is not None:
        en += f"; the machine has {size(state.host_total)}, {size(state.host_available)} available"
        zh += f";本机共有 {size(state.host_total)},可用 {size(state.host_available)}"
    if state.kernel_rss is not None:
        en += f"; the kernel's processes hold {size(state.kernel_rss)}"
        zh += f";内核进程占用 {size(state.kernel_rss)}"
    if beyond:
        en += ": far beyond the machine"
        zh += ":远超本机内存"
    return Finding(Cause.HOST, 0.95 if beyond else 0.8, Text(en, zh))
