"""`TitledLines`: a view that reads as lines, a title and then its details, shown the same way as text (IPython's
pretty printer, `repr`) and as HTML (the title in bold, a block a line, escaped). Allocation sites and the leak note
are such views."""

from __future__ import annotations

import html
from typing import Any, ClassVar


class TitledLines:
    """Give `lines()` (the title first) and `HTML_CLASS`; the text and HTML follow from them."""

    HTML_CLASS: ClassVar[str]

    def lines(self) -> list[str]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        lines = self.lines()
        if not lines:
            return ""
        title, *rest = lines
        body = "".join(f"<div>{html.escape(line.strip())}</div>" for line in rest)
        return f"<div class='{self.HTML_CLASS}'><div><b>{html.escape(title)}</b></div>{body}</div>"
