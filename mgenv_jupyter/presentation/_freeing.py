"""How "give memory back" is shown, in English or Chinese: `FreeView` (what `%memfree`, `report.free()` and the
report's "Free what the failed cell holds" button did, with the memory before and after) and `HoldersView` (what
`%memholders` and `mgenv_jupyter.memory_holders()` found: the variables holding memory, largest first). Text for
every front end, HTML for notebooks, and the wire's data for the labextension (protocol/_freeing.py).
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base._display import text_and_html
from ..base._text import Text, current_language
from ..catalog._values import format_size
from ..memory._holders import Holder, Holders
from ..oom._free import NOTHING_HELD, FreeOffer, FreeResult
from ..oom._report import freed
from ..protocol._freeing import FREE_MIME, FREE_VERSION, FigureInfo, FreeResultData, HolderInfo, HoldersData
from ..protocol._oom import OomFreed, OomFreeOffer

if TYPE_CHECKING:
    from ..oom._report import OomReport

T = Text
FREED = T("Freed what the failed cell held", "已释放失败单元占用的内存")
NOTHING_TO_FREE = T("No failed cell was held any more, so none was freed; memory now",
                    "已没有被保留的失败单元,因此没有释放;当前内存")
EARLIER = T("Given back already at {time}, nothing freed again", "已于 {time} 归还,未再次释放")
GIVEN_BACK = T("Given back at {time}", "已于 {time} 归还")
FIGURES = T("Memory before → after", "内存(释放前 → 释放后)")
HOST_RSS = T("host RSS (this kernel)", "主机 RSS(本内核)")
NVML = T("{device}: this kernel (NVML)", "{device}:本内核(NVML)")
ALLOCATED = T("{allocator}: allocated", "{allocator}:已分配")
RESERVED = T("{allocator}: reserved", "{allocator}:已预留")
GAVE_BACK = T("gave back {size}", "归还 {size}")
GREW = T("grew by {size}", "增加 {size}")
UNCHANGED = T("unchanged", "不变")
CLEARED = T("Cleared", "已清除")
KEPT = T("Kept, as you still hold it or it still runs", "已保留(你仍持有或仍在运行)")
ASKED = T("Allocators asked to give their cache back", "已请求归还缓存的分配器")
NONE_ASKED = T("no loaded framework's allocator has a cache to give back", "已加载的框架中没有可归还缓存的分配器")
NOT_ASKED = T("Not asked", "未调用")
PROBLEMS = T("Could not", "未能完成")
UNTOUCHED = T("Your variables were not touched: %memholders lists what they hold (del NAME gives it back).",
              "未改动你的变量:%memholders 列出它们占用的内存(del 变量名 即可归还)。")
OUTPUTS_KEPT = T("The output cache (Out, _, __) was kept: %memfree --outputs clears it too.",
                 "输出缓存(Out、_、__)已保留:%memfree --outputs 会一并清除。")
SIMULATED = T(" (simulated)", "(模拟)")
TOOK = T("took {ms} ms", "用时 {ms} 毫秒")

HOLDERS = T("What holds memory now, largest first", "当前占用内存的变量(从大到小)")
HOLDERS_NONE = T("no variable holds a framework tensor or array ({frameworks} looked for)",
                 "没有变量持有框架的张量或数组(查找了 {frameworks})")
NO_FRAMEWORK = T("no framework or NumPy is loaded", "未加载任何框架或 NumPy")
SHARED = T("shares {size} with {names}", "与 {names} 共享 {size}")
PARAMETERS = T("{count} parameters", "{count} 个参数")
ONE_PARAMETER = T("1 parameter", "1 个参数")
BUFFERS = T("{count} buffers", "{count} 个缓冲区")
ONE_BUFFER = T("1 buffer", "1 个缓冲区")
OUTPUT_CACHE = T("output cache", "输出缓存")
PARTIAL = T("at least: the walk stopped inside it", "至少:遍历在其中停止")
HOLDERS_NONE_LOOKED = T("no variable looked at holds a framework tensor or array ({frameworks} looked for)",
                        "已查看的变量中没有持有框架张量或数组的(查找了 {frameworks})")
TOTAL = T("total", "合计")
MORE = T("{count:,} more variables hold {sizes}", "另有 {count:,} 个变量持有 {sizes}")
LOOKED = T("{visited:,} objects looked at in {ms} ms", "查看了 {visited:,} 个对象,用时 {ms} 毫秒")
# What the walk did not look into, a list a person can read: the variable, then what in it (issue 38 read "Not looked
# at: what report (a Change in it), dtr (a Config in it) … holds (only its own code could say …)").
NOT_LOOKED_INTO = T("Not looked into, as only their own code could tell what they hold (subclasses of containers or "
                    "tensors, objects that hide their attributes): {items}",
                    "未查看以下对象的内容,因为只有运行它们自身的代码才能知道其中有什么(容器或张量的子类、隐藏属性的对象):{items}")
CLOSED_ITSELF = T("{name} (of type {what})", "{name}(类型为 {what})")
CLOSED_INSIDE = T("the {what} in {name}", "{name} 中的 {what}")
LEFT_OUT = T("Variables not looked at (the walk's bound): {names}", "未查看的变量(遍历的上限):{names}")
AND_MORE = T("{names} and {more:,} more", "{names} 等另外 {more:,} 个")
LIST_SEPARATOR = T("; ", ";")
NAMES_SEPARATOR = T(", ", "、")
NAMED = 5  # variables or objects named in a note before "and N more"
DEEPER = T("Objects more than {depth} levels below a variable are not looked into.",
           "变量以下超过 {depth} 层的对象不查看。")
HOLDERS_HINT = T("Shared storage is counted once, for the variable that owns it. del NAME gives back its own size "
                 "once nothing else refers to it.",
                 "共享的存储只计算一次,计入拥有它的变量。del 变量名 在没有其他引用时归还其自身大小。")
NAME = T("variable", "变量")
WHAT = T("what", "类型")
SIZE = T("size", "大小")
WHERE = T("per device", "各设备")


OFFER_TITLE = T("Free what the failed cell holds", "释放失败单元占用的内存")
FIRST = T("First, without a restart", "首先,无需重启")
OFFER_BUTTON = T("Free memory", "释放内存")
OFFER_NOTE = T("never touches your variables; the output cache only with %memfree --outputs",
               "不改动你的变量;输出缓存仅在 %memfree --outputs 时清除")


def _size(n: int | None) -> str:
    return "?" if n is None else format_size(n)


def _change(before: int | None, after: int | None, language: str) -> str:
    if before is None or after is None:
        return ""
    if before == after:
        return UNCHANGED.get(language)
    if after < before:
        return GAVE_BACK.get(language).format(size=format_size(before - after))
    return GREW.get(language).format(size=format_size(after - before))


@dataclass(frozen=True)
class FreeView:
    """A `FreeResult` as every front end shows it; `.result` is the data."""

    result: FreeResult
    language: str | None = None
    earlier: bool = False  # a free that ran before (the report's button after %memfree): nothing was freed now

    @property
    def lang(self) -> str:
        return self.language or current_language()

    def figures(self) -> list[FigureInfo]:
        """Each figure before and after, in bytes, labelled: host RSS, NVML per GPU, each allocator's counters."""
        lang, r = self.lang, self.result
        rows: list[FigureInfo] = []

        def add(label: str, before: int | None, after: int | None) -> None:
            rows.append({"label": label, "before": before, "after": after,
                         "change": _change(before, after, lang)})

        for device in sorted(set(r.before.gpus) | set(r.after.gpus)):
            shown = device.replace(" (simulated)", "") + (SIMULATED.get(lang) if "simulated" in device else "")
            add(NVML.get(lang).format(device=shown), r.before.gpus.get(device), r.after.gpus.get(device))
        for allocator in sorted(set(r.before.allocators) | set(r.after.allocators)):
            allocated_before, reserved_before = r.before.allocators.get(allocator, (None, None))
            allocated_after, reserved_after = r.after.allocators.get(allocator, (None, None))
            if allocated_before is not None or allocated_after is not None:
                add(ALLOCATED.get(lang).format(allocator=allocator), allocated_before, allocated_after)
            if reserved_before is not None or reserved_after is not None:
                add(RESERVED.get(lang).format(allocator=allocator), reserved_before, reserved_after)
        add(HOST_RSS.get(lang), r.before.rss, r.after.rss)
        return rows

    def headline(self) -> str:
        """What the free did, first: it freed the failed cell's memory (before → after), or there was no failed cell
        left to free (memory now), or, asked again for one already given back, when that was."""
        lang = self.lang
        if self.earlier:
            return f"{EARLIER.get(lang).format(time=clock_time(self.result.after.time))}: " + self.gave()
        if NOTHING_HELD in self.result.cleared:
            now = [f"{figure['label']} {_size(figure['after'])}" for figure in self.figures()[:2]]
            return f"{NOTHING_TO_FREE.get(lang)}: " + "; ".join(now)
        return f"{FREED.get(lang)}: " + self.gave()

    def gave(self) -> str:
        """The first two figures before → after: what came back and what is left."""
        return "; ".join(f"{figure['label']} {_size(figure['before'])} → {_size(figure['after'])}"
                         for figure in self.figures()[:2])

    def sections(self) -> list[list[str]]:
        lang, r = self.lang, self.result
        cleared = [f"{CLEARED.get(lang)}:"] + [f"  {text.get(lang)}" for text in r.cleared]
        kept = [f"{KEPT.get(lang)}:"] + [f"  {text.get(lang)}" for text in r.kept] if r.kept else []
        asked = [f"{ASKED.get(lang)}: {', '.join(r.released)}" if r.released else NONE_ASKED.get(lang)]
        asked += [f"{NOT_ASKED.get(lang)}: {text.get(lang)}" for text in r.not_asked]
        figures = [f"{FIGURES.get(lang)}:"] + [
            f"  {f['label']}: {_size(f['before'])} → {_size(f['after'])}" + (f" ({f['change']})" if f["change"] else "")
            for f in self.figures()]
        sections = [figures, cleared, *([kept] if kept else []), asked]
        if r.problems:
            sections.append([f"{PROBLEMS.get(lang)}:"] + [f"  {problem}" for problem in r.problems])
        tail = [UNTOUCHED.get(lang)]
        if r.outputs is None:
            tail.append(OUTPUTS_KEPT.get(lang))
        sections.append(tail)
        return sections

    def footer(self) -> str:
        return TOOK.get(self.lang).format(ms=f"{self.result.took * 1000:.0f}")

    def lines(self) -> list[str]:
        return [self.headline(), *(line for section in self.sections() for line in section), self.footer()]

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def data(self) -> FreeResultData:
        r = self.result
        return {"v": FREE_VERSION, "language": self.lang, "headline": self.headline(), "figures": self.figures(),
                "sections": self.sections(), "footer": self.footer(), "time": round(r.after.time, 3),
                "simulated": r.simulated}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The labextension renderer's data, with the text and HTML beside it for every other front end."""
        return {FREE_MIME: self.data(), **text_and_html(self)}

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(f['label'])}</td><td>{_size(f['before'])}</td><td>{_size(f['after'])}</td>"
            f"<td>{html.escape(f['change'])}</td></tr>" for f in self.figures())
        rest = "".join("".join(f"<div>{html.escape(line.strip())}</div>" for line in section)
                       for section in self.sections()[1:])
        return (f"<div class='mgenv-free'><div><b>{html.escape(self.headline())}</b></div>"
                f"<table>{rows}</table>{rest}<div><small>{html.escape(self.footer())}</small></div></div>")


@dataclass(frozen=True)
class HoldersView:
    """`Holders` as every front end shows it; `.holders` is the data (`.holders.holders` the rows)."""

    holders: Holders
    language: str | None = None
    limit: int = 20  # rows shown; the data keeps them all
    timing: bool = True  # say how long the walk took (not in a report, whose data must read the same each time)

    @property
    def lang(self) -> str:
        return self.language or current_language()

    def __getitem__(self, name: str) -> Any:
        return self.holders[name]

    def to_json(self) -> dict[str, Any]:
        return self.holders.to_json()

    def rows(self) -> list[HolderInfo]:
        lang = self.lang
        rows: list[HolderInfo] = []
        for holder in self.holders.holders[:self.limit]:
            where = ", ".join(f"{device} {format_size(size)}" for device, size in holder.devices)
            notes = []
            if holder.shared:
                notes.append(SHARED.get(lang).format(size=format_size(holder.shared),
                                                     names=", ".join(holder.shares_with)))
            if holder.output_cache:
                notes.append(OUTPUT_CACHE.get(lang))
            if holder.partial:
                notes.append(PARTIAL.get(lang))
            rows.append({"name": holder.name, "what": self._what(holder), "bytes": holder.bytes, "devices": where,
                         "note": "; ".join(notes)})
        return rows

    def _what(self, holder: Holder) -> str:
        """What a variable is; for a module, with its parameters and buffers counted, in the view's language."""
        if holder.parameters is None:
            return holder.what
        lang = self.lang
        parts = [ONE_PARAMETER.get(lang) if holder.parameters == 1 else
                 PARAMETERS.get(lang).format(count=holder.parameters)]
        if holder.buffers:
            parts.append(ONE_BUFFER.get(lang) if holder.buffers == 1
                         else BUFFERS.get(lang).format(count=holder.buffers))
        separator = "," if lang == "zh" else ", "
        return f"{holder.what}{':' if lang == 'zh' else ': '}{separator.join(parts)}"

    def _more(self) -> str:
        """The variables holding memory beyond the rows shown, counted and summed (none is left out in silence)."""
        hidden = self.holders.holders[self.limit:]
        count = len(hidden) + self.holders.unlisted
        if not count:
            return ""
        sizes: dict[str, int] = dict(self.holders.rest)
        for holder in hidden:
            for device, size in holder.devices:
                sizes[device] = sizes.get(device, 0) + size
        listed = ", ".join(f"{device} {format_size(size)}" for device, size in sorted(sizes.items(),
                                                                                      key=lambda item: -item[1]))
        return MORE.get(self.lang).format(count=count, sizes=listed or "0")

    def title(self) -> str:
        return HOLDERS.get(self.lang)

    def empty(self) -> str | None:
        if self.holders.holders:
            return None
        lang = self.lang
        if not self.holders.frameworks:
            return NO_FRAMEWORK.get(lang)
        none = HOLDERS_NONE if self.holders.complete else HOLDERS_NONE_LOOKED  # what the bounds left out may hold some
        return none.get(lang).format(frameworks=", ".join(self.holders.frameworks))

    def _listed(self, items: list[str], separator: Text) -> str:
        listed = separator.get(self.lang).join(items[:NAMED])
        return AND_MORE.get(self.lang).format(names=listed, more=len(items) - NAMED) if len(items) > NAMED else listed

    def _unseen(self) -> list[str]:
        """What the walk did not look at: its own sentences (a bound, a failure), the variables it left out, and the
        objects it did not look into, each a line."""
        lang, holders = self.lang, self.holders
        notes = [text.get(lang) for text in holders.skipped]
        if holders.left_out:
            notes.append(LEFT_OUT.get(lang).format(names=self._listed(list(holders.left_out), NAMES_SEPARATOR)))
        if holders.closed:
            items = [(CLOSED_ITSELF if itself else CLOSED_INSIDE).get(lang).format(name=name, what=what)
                     for name, what, itself in holders.closed]
            notes.append(NOT_LOOKED_INTO.get(lang).format(items=self._listed(items, LIST_SEPARATOR)))
        return notes

    def notes(self) -> list[str]:
        lang = self.lang
        notes = self._unseen()
        if self.holders.too_deep and self.timing:
            # The walk always meets objects below its depth (a model's inner tensors are within it): worth a line in
            # %memholders, not in every out-of-memory report, and never as a count of places nobody can look up.
            notes.append(DEEPER.get(lang).format(depth=self.holders.max_depth))
        totals = ", ".join(f"{device} {format_size(size)}" for device, size in self.holders.totals.items())
        if totals:
            notes.insert(0, f"{TOTAL.get(lang)}: {totals}")
        more = self._more()
        if more:
            notes.insert(1, more)
        if self.holders.holders:  # how to read the rows: nothing to say without any
            notes.append(HOLDERS_HINT.get(lang))
        if self.timing:
            notes.append(LOOKED.get(lang).format(visited=self.holders.visited, ms=f"{self.holders.took * 1000:.0f}"))
        return notes

    def lines(self) -> list[str]:
        lines = [f"{self.title()}:"]
        empty = self.empty()
        if empty:
            lines.append(f"  {empty}")
        for row in self.rows():
            size = format_size(row["bytes"]) if row["bytes"] else "0"
            lines.append(f"  {row['name']}  {size}  {row['what']}"
                         + (f"  [{row['devices']}]" if row["devices"] else "")
                         + (f"  ({row['note']})" if row["note"] else ""))
        return lines + [f"  {note}" for note in self.notes()]

    def data(self) -> HoldersData:
        return {"title": self.title(), "rows": self.rows(), "empty": self.empty(), "notes": self.notes()}

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return text_and_html(self)

    def _repr_html_(self) -> str:
        lang = self.lang
        head = "".join(f"<th>{html.escape(t.get(lang))}</th>" for t in (NAME, SIZE, WHAT, WHERE))
        body = "".join(
            f"<tr><td><code>{html.escape(r['name'])}</code></td><td>{format_size(r['bytes']) if r['bytes'] else 0}"
            f"</td><td>{html.escape(r['what'])}</td><td>{html.escape(r['devices'])}"
            + (f"<br><small>{html.escape(r['note'])}</small>" if r["note"] else "") + "</td></tr>"
            for r in self.rows())
        empty = self.empty()
        table = f"<div>{html.escape(empty)}</div>" if empty else f"<table><tr>{head}</tr>{body}</table>"
        notes = "".join(f"<div><small>{html.escape(note)}</small></div>" for note in self.notes())
        return f"<div class='mgenv-holders'><div><b>{html.escape(self.title())}</b></div>{table}{notes}</div>"


# ---- in the out-of-memory report ------------------------------------------------------------------------------------

def offer_info(found: FreeOffer, language: str) -> OomFreeOffer:
    return {"title": OFFER_TITLE.get(language), "why": found.why(format_size).get(language), "magic": "%memfree",
            "button": OFFER_BUTTON.get(language), "note": OFFER_NOTE.get(language)}


def offer_line(found: FreeOffer, language: str) -> str:
    """The offer as the report says it, on a line of its own before the numbered remedies: it sets nothing, so it is
    not one of them (a bullet over "1." read as one list numbered "·, 1.")."""
    return (f"{FIRST.get(language)}: %memfree — {OFFER_TITLE.get(language)}: {found.why(format_size).get(language)} "
            f"({OFFER_NOTE.get(language)})")


def clock_time(moment: float) -> str:
    """A moment of today as a clock shows it here (the kernel's time zone): "14:03:05"."""
    return time.strftime("%H:%M:%S", time.localtime(moment))


def freed_info(report: OomReport, language: str) -> OomFreed | None:
    """How a report says that its failed cell was given back since it was made, and what was left (None: not yet)."""
    result = freed(report)
    if result is None:
        return None
    view = FreeView(result, language)
    return {"time": round(result.after.time, 3), "figures": view.figures(),
            "summary": f"{GIVEN_BACK.get(language).format(time=clock_time(result.after.time))}: {view.gave()}"}


def report_holders(report: OomReport, language: str) -> HoldersView | None:
    """What held memory at the failure, as the report shows it (None: a report made without looking)."""
    if report.holders is None:
        return None
    return HoldersView(report.holders, language, limit=10, timing=False)
