"""`SetReportView`: what a `set`/`unset` did, as a notebook shows it (`%envset`'s output, `session().set(...)` as a
cell's last line): one line per variable, its value (a secret masked, a long value by its start and length), its
outcome and why, and its notes; in HTML one block per change, which reads the same in a narrow notebook column as in
a wide one (a four-column table squeezed its reasons into tall thin cells)."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ..base._display import text_and_html
from ..base._markup import TABLE_STYLE, text_html
from ..base._quoting import quoted, truncated
from ..base._text import Text, current_language
from ..runtime import SetReport

UNSET_VALUE = Text("(unset)", "(未设置)")
NOTE = Text("    note: {note}", "    注:{note}")
NOTHING_CHANGED = Text("nothing changed", "没有任何改动")


@dataclass(frozen=True)
class SetReportView:
    report: SetReport
    language: str = field(default_factory=current_language)

    def lines(self) -> list[str]:
        language, result = self.language, []
        for c in self.report.changes:
            value = UNSET_VALUE.get(language) if c.new is None else quoted(c.new) if c.shown is None else \
                f"{c.shown} ({c.new})"  # a size as 5 GiB, and the plain number the framework reads
            result.append(f"{c.name}={value}: {c.outcome.label.get(language)} — {c.message.get(language)}")
            result.extend(NOTE.get(language).format(note=note.get(language)) for note in c.notes)
        return result

    def __repr__(self) -> str:
        return "\n".join(self.lines()) or NOTHING_CHANGED.get(self.language)

    def _repr_html_(self) -> str:
        language, blocks = self.language, []
        for c in self.report.changes:
            value = UNSET_VALUE.get(language) if c.new is None else truncated(c.new_shown or "")
            # A size is shown as 5 GiB; what the environment holds, the plain number the framework reads, on hover.
            stored = f" title='{html.escape(c.new, quote=True)}'" if c.shown is not None and c.new else ""
            notes = "".join(f"<div class='mgenv-change-note'>{text_html(n.get(language))}</div>" for n in c.notes)
            blocks.append(
                f"<div class='mgenv-change'><div><code>{html.escape(c.name)}</code> = <code{stored}>"
                f"{html.escape(value)}</code>"
                f" · <b>{html.escape(c.outcome.label.get(language))}</b></div>"
                f"<div class='mgenv-change-why'>{text_html(c.message.get(language))}</div>{notes}</div>"
            )
        return f"{TABLE_STYLE}<div class='mgenv-report'>" + "".join(blocks) + "</div>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return text_and_html(self)
