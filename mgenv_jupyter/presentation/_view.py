"""`VariableView`: one variable as every front end shows it — value, status (code, label, reason), editor, details
and whether it applies with the values chosen. The magics print it, the widgets draw it, the comm sends it."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from .._markup import text_html
from .._quoting import quoted
from .._text import Text, current_language
from ..catalog._applicability import ALWAYS, Applicability, Lookup, applicability
from ..runtime import EnvSession, Status
from ._details import Details, details
from ._editor import EditorSpec, editor_spec

NOT_SET = Text("(not set)", "(未设置)")
DEFAULT = Text("default", "默认值")
ALLOWED = Text("allowed", "取值")
LIVE = Text("live", "运行时接口")
LIVE_EXAMPLE = Text("live (example, with the default)", "运行时接口(示例,取默认值)")
CAVEAT = Text("caveat", "注意")
DOES_NOT_APPLY = Text("does not apply now", "当前不起作用")
SOURCE = Text("source", "源码")


@dataclass(frozen=True)
class VariableView:
    name: str
    value: str | None  # masked for secrets
    status: Status
    message: str
    editor: EditorSpec | None  # None: not a catalog variable
    details: Details | None
    applicability: Applicability
    language: str

    @property
    def label(self) -> str:
        return self.status.label.get(self.language)

    def lines(self) -> list[str]:
        language = self.language
        value = NOT_SET.get(language) if self.value is None else quoted(self.value)
        result = [f"{self.name}={value}: {self.label} — {self.message}"]
        facts = self.details
        if facts is not None:
            result.append(f"  {facts.description}")
            shown_default = NOT_SET.get(language) if facts.default is None else facts.default
            result.append(f"  {DEFAULT.get(language)}: {shown_default}; {ALLOWED.get(language)}: {facts.allowed}")
            result.append(f"  {facts.reading} ({SOURCE.get(language)}: {facts.read_at})")
            if facts.live:
                word = LIVE_EXAMPLE if facts.live_example else LIVE
                result.append(f"  {word.get(language)}: {facts.live}")
            if facts.note:
                result.append(f"  {facts.note}")
            result.extend(f"  {CAVEAT.get(language)}: {caveat}" for caveat in facts.caveats)
        if not self.applicability.applies and self.applicability.reason:
            result.append(f"  {DOES_NOT_APPLY.get(language)}: {self.applicability.reason}")
        return result

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        first, *rest = self.lines()
        body = "".join(f"<div>{text_html(line.strip())}</div>" for line in rest)
        return (f"<div class='mgenv-view'><div><code>{html.escape(first.split(':', 1)[0])}</code>: "
                f"<b>{html.escape(self.label)}</b> — {text_html(self.message)}</div>{body}</div>")

    def to_json(self) -> dict[str, Any]:
        """What the sidebar needs about the variable's current state (static facts travel once, in EntryInfo)."""
        return {"value": self.value, "status": self.status.value, "message": self.message,
                "live": self.details.live if self.details else None,
                "live_example": self.details.live_example if self.details else False,
                "applies": self.applicability.applies, "applies_reason": self.applicability.reason}


def present(session: EnvSession, name: str, language: str | None = None, lookup: Lookup | None = None
            ) -> VariableView:
    """`name` as every front end shows it. `lookup` gives the values rules are evaluated against (a widget's edits);
    by default the session's."""
    language = language or current_language()
    state = session.state(name)
    entry = state.entry
    raw = session.get(name)
    if entry is None:
        return VariableView(name, state.value, state.status, state.message.get(language), None, None, ALWAYS,
                            language)
    rules = applicability(session.catalog, entry, lookup or session.get, language)
    return VariableView(name, state.value, state.status, state.message.get(language), editor_spec(entry),
                        details(entry, raw, language), rules, language)
