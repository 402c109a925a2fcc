"""`EditorSummary`: an editor widget (DTRWidget, AllocatorWidget, ConfigWidget) as a static view, what a saved notebook
keeps of it: its title and, for each of its variables, the value the session has (or "not set" and the framework's
default, told apart; sizes in the one notation) and its status. Text for front ends without HTML, a small table for
notebooks."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base._display import text_and_html
from ..base._quoting import truncated
from ..base._text import Text, current_language
from ..runtime import EnvSession
from ._view import VariableView, present

NOT_SET = Text("not set", "未设置")
NOT_SET_DEFAULT = Text("not set (default {value})", "未设置(默认 {value})")
SAVED = Text("The widget's values as the notebook was saved; run the cell again to edit them.",
             "保存笔记本时控件中的取值;重新运行此单元即可编辑。")
HEADERS = (Text("variable", "变量"), Text("value", "取值"), Text("status", "状态"))


@dataclass(frozen=True)
class EditorSummary:
    title: str
    views: tuple[VariableView, ...]
    language: str = field(default_factory=current_language)

    @classmethod
    def of(cls, title: str, session: EnvSession, names: Sequence[str], language: str | None = None) -> EditorSummary:
        language = language or current_language()
        return cls(title, tuple(present(session, name, language) for name in names), language)

    def value(self, view: VariableView) -> str:
        """The value the session has, or "not set" with the default beside it (never mistaken for a value set); a size
        in the one notation of sizes ("3 GiB (3221225472)": the plain number the framework reads beside it, as
        `%envget` writes it)."""
        if view.value is not None:
            sized = view.shown_value
            return truncated(view.value) if sized is None else f"{sized} ({view.value})"
        default = view.details.default if view.details is not None else None
        if default is None:
            return NOT_SET.get(self.language)
        shown = view.entry.type.shown(default) if view.entry is not None else default
        return NOT_SET_DEFAULT.get(self.language).format(value=shown)

    def status(self, view: VariableView) -> str:
        """A set value's status; none for an unset one, whose "not set" already says it."""
        return view.label if view.value is not None else ""

    def lines(self) -> list[str]:
        return [self.title, *(f"  {v.name}: {self.value(v)}" + (f" — {self.status(v)}" if self.status(v) else "")
                              for v in self.views), SAVED.get(self.language)]

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        language = self.language
        cell = "text-align: left; padding: 2px 8px"  # JupyterLab right-aligns table cells
        head = "".join(f"<th style='{cell}'>{html.escape(h.get(language))}</th>" for h in HEADERS)
        unset = f"{cell}; opacity: 0.6; font-style: italic"  # "not set (default 2)" never reads as a value set
        rows = "".join(
            f"<tr><td style='{cell}'><code>{html.escape(v.name)}</code></td>"
            f"<td style='{cell if v.value is not None else unset}'>{html.escape(self.value(v))}</td>"
            f"<td style='{cell}'>{html.escape(self.status(v))}</td></tr>" for v in self.views)
        return (f"<div class='mgenv-editor-summary'><div style='font-weight: 600'>{html.escape(self.title)}</div>"
                f"<table style='margin: 0'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
                f"<div style='font-size: 11px; opacity: 0.7'>{html.escape(SAVED.get(language))}</div></div>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return text_and_html(self)
