"""Catalog and session texts as HTML. The texts mark code with backticks ("read at `import megengine`"), as the
magics' Markdown does; every HTML view (widgets, the magics' tables and reports) shows such a span as code rather than
the backticks themselves."""

from __future__ import annotations

import html


def text_html(text: str) -> str:
    """`text` escaped for HTML, each backtick-marked span as <code>; a text with an unpaired backtick stays as is."""
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return html.escape(text)
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part) for i, part in enumerate(parts))
