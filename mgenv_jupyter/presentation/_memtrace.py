"""`SitesView`: the allocation sites as a notebook shows them, in English or Chinese — `%%memtrace`'s result and the
out-of-memory report's "Where the memory was allocated". One line a site (`[7] line 3, 12.1 GiB in 340 blocks:
h = model(x)`, the code last as it runs to the end of the line), the largest first; the memory no line of the user's
code allocated, and the loaded frameworks that record no stacks, said apart. `.frame()` is the data (one row a site);
where nothing was recorded, the view says why it is empty."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base._text import Text, current_language
from ..catalog._frameworks import BY_KEY
from ..catalog._homes import MEMTRACE_FACTS
from ..catalog._memtrace import Recording
from ..catalog._values import format_size
from ._lines import TitledLines

if TYPE_CHECKING:
    import pandas

    from ..memory._memtrace_sites import Site, Sites

SHOWN = 10  # sites listed in words; .frame() has them all

TITLE = {
    "peak": Text("Where the memory was allocated, at the cell's peak", "内存分配位置(单元的峰值时刻)"),
    "failure": Text("Where the memory was allocated", "内存分配位置"),
    "now": Text("Where the memory live now was allocated", "当前存活内存的分配位置"),
}
SUMMARY = Text("{total} recorded by {frameworks}", "{frameworks} 记录了 {total}")
# The line's code comes last: it runs to the end of the line, comment included, and nothing of ours follows it.
SITE = Text("{place}, {size} in {blocks} blocks{library}: {code}", "{place},{size},{blocks} 个块{library}:{code}")
SITE_ONE = Text("{place}, {size} in 1 block{library}: {code}", "{place},{size},1 个块{library}:{code}")
LIBRARY = Text(" (through {frames} library frames)", "(经过 {frames} 层库代码)")
MORE = Text("… {count} more lines ({size}); .frame() lists them all", "… 另有 {count} 行({size});.frame() 列出全部")
OUTSIDE = Text("{size} in {blocks} blocks allocated outside your code (no cell or file of yours in the stack)",
               "{size}({blocks} 个块)在您的代码之外分配(调用栈中没有您的单元或文件)")
NOTHING = Text("nothing was recorded, so .frame() has no rows: only {frameworks} record where they allocate, and none "
               "of them allocated memory in this cell",
               "没有任何记录,因此 .frame() 没有行:只有 {frameworks} 会记录内存分配位置,而它们在本单元中都没有分配内存")
NO_SITES = Text("nothing the frameworks recorded is live, so .frame() has no rows",
                "框架记录的内存均已释放,因此 .frame() 没有行")
LINE = Text("line", "行")


def place(site: Site, language: str) -> str:
    """`[7] line 3` / `[7] 行 3`, or `train.py line 12`."""
    where = f"[{site.cell}]" if site.cell is not None else (site.file or "?").rsplit("/", 1)[-1]
    return f"{where} {LINE.get(language)} {site.line}"


@dataclass(frozen=True, repr=False)
class SitesView(TitledLines):
    HTML_CLASS = "mgenv-sites"

    sites: Sites
    language: str | None = None

    @property
    def lang(self) -> str:
        return self.language or current_language()

    def frame(self) -> pandas.DataFrame:
        """One row a site: cell, line, code, bytes, blocks (then file, function, devices, library frames)."""
        return self.sites.frame()

    def title(self) -> str:
        return TITLE.get(self.sites.moment, TITLE["now"]).get(self.lang)

    def site_line(self, site: Site) -> str:
        words = SITE_ONE if site.blocks == 1 else SITE
        library = LIBRARY.get(self.lang).format(frames=site.library_frames) if site.library_frames else ""
        return words.get(self.lang).format(place=place(site, self.lang), code=site.code or site.function,
                                           size=format_size(site.bytes), blocks=f"{site.blocks:,}", library=library)

    def lines(self) -> list[str]:
        """The title, then one line a site (the largest SHOWN), then what no line of the user's allocated and what
        the loaded frameworks do not record."""
        sites, lang = self.sites, self.lang
        lines = [self.title() + ":"]
        if not sites.frameworks:
            lines.append("  " + nothing_recorded(lang))
        else:
            labels = [BY_KEY[key].label.get(lang) if key in BY_KEY else key for key in sites.frameworks]
            lines.append("  " + SUMMARY.get(lang).format(total=format_size(sites.total), frameworks=", ".join(labels)))
            if not sites.sites and not sites.unattributed:
                lines.append("  " + NO_SITES.get(lang))
        lines += ["  " + self.site_line(site) for site in sites.sites[:SHOWN]]
        rest = sites.sites[SHOWN:]
        if rest:
            lines.append("  " + MORE.get(lang).format(count=len(rest), size=format_size(sum(s.bytes for s in rest))))
        if sites.unattributed:
            lines.append("  " + OUTSIDE.get(lang).format(size=format_size(sites.unattributed),
                                                        blocks=f"{sites.unattributed_blocks:,}"))
        lines += ["  " + text.get(lang) for _, text in sites.unrecorded]
        return lines


MEMTRACE_ON = Text("Recording where memory is allocated in every cell from the next one on (%memtrace off stops)",
                  "从下一个单元起,记录每个单元的内存分配位置(%memtrace off 停止)")
MEMTRACE_OFF = Text("No longer recording where memory is allocated", "已停止记录内存分配位置")
STILL_KEPT = Text(" ({kept})", "({kept})")
NONE_LOADED = Text("no framework that records stacks is loaded yet: {frameworks} are recorded once imported",
                   "尚未加载可记录调用栈的框架:{frameworks} 导入后即被记录")
# How each language joins the frameworks' own words into one sentence.
SEPARATOR = Text("; ", ";")
AND = Text(" and ", " 与 ")


def _joined(texts: list[Text], separator: Text, language: str) -> str:
    return separator.get(language).join(text.get(language) for text in texts)


def nothing_recorded(language: str) -> str:
    """No framework recorded anything: so `.frame()` is empty, and which frameworks would have (the catalog's)."""
    return NOTHING.get(language).format(frameworks=_joined(_recording(), AND, language))


def _recording() -> list[Text]:
    return [BY_KEY[key].label for key, facts in MEMTRACE_FACTS.items() if facts.recording is not Recording.NEVER]


def memtrace_off(language: str) -> str:
    """`%memtrace off`, and what the frameworks that always record still keep."""
    kept = [facts.after_off for facts in MEMTRACE_FACTS.values() if facts.after_off is not None]
    still = STILL_KEPT.get(language).format(kept=_joined(kept, SEPARATOR, language)) if kept else ""
    return MEMTRACE_OFF.get(language) + still


def none_loaded(language: str) -> str:
    """No framework that records is loaded: which will be, once imported."""
    return NONE_LOADED.get(language).format(frameworks=_joined(_recording(), AND, language))


@dataclass(frozen=True)
class MemtraceView:
    """What `%memtrace on|off` did: whether it records now, and each loaded framework's recording."""

    on: bool
    frameworks: dict[str, bool]
    language: str | None = None

    def lines(self) -> list[str]:
        lang = self.language or current_language()
        if not self.on:
            return [memtrace_off(lang)]
        lines = [MEMTRACE_ON.get(lang)]
        for key, recording in self.frameworks.items():
            facts = MEMTRACE_FACTS.get(key)
            text = None if facts is None else facts.kept_on if recording else facts.per_cell
            if text is not None:
                lines.append("  " + text.get(lang))
        if not self.frameworks:
            lines.append("  " + none_loaded(lang))
        return lines

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))
