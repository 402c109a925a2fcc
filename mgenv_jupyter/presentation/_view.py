"""`VariableView`: one variable as every front end shows it — value, status (code, label, reason), editor, details
and whether it applies with the values chosen. The magics print it, the widgets draw it, the comm sends it."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ..base._markup import text_html
from ..base._quoting import quoted
from ..base._text import Message, Text, current_language
from ..catalog import Entry
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
    """One variable as it was when asked (value, status, whether it applies), said in `language`, or (None) in the
    language of the moment it is shown: `%envget` made under `%envlang zh` reads in English once `%envlang en` is in
    effect, as `%envset`'s report and the tables do. The state is kept; only the words are chosen when shown."""

    name: str
    value: str | None  # masked for secrets: what the environment holds
    status: Status
    said: Message  # why, in both languages
    entry: Entry | None
    applicability: Applicability
    language: str | None = None
    raw: str | None = field(default=None, repr=False, compare=False)  # unmasked: the live call masks it itself

    @property
    def lang(self) -> str:
        return self.language or current_language()

    @property
    def label(self) -> str:
        return self.status.label.get(self.lang)

    @property
    def message(self) -> str:
        return self.said.get(self.lang)

    @property
    def editor(self) -> EditorSpec | None:
        """How the variable is edited (None: not a catalog variable); built when asked, as the sidebar's notices and
        `%envget` never ask."""
        return editor_spec(self.entry, self.lang) if self.entry is not None else None

    @property
    def details(self) -> Details | None:
        return details(self.entry, self.raw, self.lang) if self.entry is not None else None

    @property
    def shown_value(self) -> str | None:
        """The value as a user reads it where that differs from what the environment holds: a size in the one notation
        of sizes ("5 GiB" for 5368709120); None otherwise."""
        if self.entry is None or self.value is None:
            return None
        written = self.entry.type.shown(self.value)
        return written if written != self.value else None

    def lines(self) -> list[str]:
        language = self.lang
        sized = self.shown_value
        value = NOT_SET.get(language) if self.value is None else quoted(self.value) if sized is None else \
            f"{sized} ({self.value})"  # a size as 5 GiB, and the plain number the framework reads
        result = [f"{self.name}={value}: {self.label} — {self.message}"]
        facts = self.details
        if facts is not None:
            result.append(f"  {facts.description}")
            shown_default = NOT_SET.get(language) if facts.default is None else _written(self.entry, facts.default)
            result.append(f"  {DEFAULT.get(language)}: {shown_default}; {ALLOWED.get(language)}: {facts.allowed}")
            result.append(f"  {facts.reading} ({SOURCE.get(language)}: {facts.read_at})")
            if facts.live:
                word = LIVE_EXAMPLE if facts.live_example else LIVE
                result.append(f"  {word.get(language)}: {facts.live}")
            if facts.note:
                result.append(f"  {facts.note}")
            result.extend(f"  {CAVEAT.get(language)}: {caveat}" for caveat in facts.caveats)
        applicability = self.applicability
        if not applicability.applies and applicability.said is not None:
            result.append(f"  {DOES_NOT_APPLY.get(language)}: {applicability.said.get(language)}")
        return result

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        _, *rest = self.lines()
        language = self.lang
        sized = self.shown_value
        if self.value is None:
            value = html.escape(NOT_SET.get(language))
        elif sized is None:
            value = html.escape(quoted(self.value))
        else:  # the plain number the environment holds, on hover
            value = f"<span title='{html.escape(self.value, quote=True)}'>{html.escape(sized)}</span>"
        body = "".join(f"<div>{text_html(line.strip())}</div>" for line in rest)
        return (f"<div class='mgenv-view'><div><code>{html.escape(self.name)}={value}</code>: "
                f"<b>{html.escape(self.label)}</b> — {text_html(self.message)}</div>{body}</div>")

    def to_json(self) -> dict[str, Any]:
        """What the sidebar needs about the variable's current state (static facts travel once, in EntryInfo)."""
        facts = self.details
        return {"value": self.value, "status": self.status.value, "message": self.message,
                "live": facts.live if facts else None,
                "live_example": facts.live_example if facts else False,
                "applies": self.applicability.applies, "applies_reason": self.applicability.reason}


def _written(entry: Entry | None, value: str) -> str:
    """A value of `entry` as a user reads it: a size in the one notation of sizes, anything else as it is."""
    return entry.type.shown(value) if entry is not None else value


def present(session: EnvSession, name: str, language: str | None = None, lookup: Lookup | None = None
            ) -> VariableView:
    """`name` as every front end shows it, in `language` (None: the language of the moment it is shown). `lookup`
    gives the values rules are evaluated against (a widget's edits); by default the session's."""
    state = session.state(name)
    entry = state.entry
    if entry is None:
        return VariableView(name, state.value, state.status, state.message, None, ALWAYS, language)
    rules = applicability(session.catalog, entry, lookup or session.get, language)
    return VariableView(name, state.value, state.status, state.message, entry, rules,
                        language, raw=session.get(name))
