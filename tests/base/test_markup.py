"""Catalog texts as widget HTML (mgenv_jupyter/base/_markup.py): code marked with backticks shown as code, never the
backticks."""

from __future__ import annotations

from mgenv_jupyter import AllocatorWidget, DTRWidget
from mgenv_jupyter.base._markup import text_html


def test_backticks_become_code_and_the_rest_is_escaped():
    assert text_html("read at `import megengine` <now>") == "read at <code>import megengine</code> &lt;now&gt;"
    assert text_html("`a<b`") == "<code>a&lt;b</code>"
    assert text_html("one ` alone") == "one ` alone"  # unpaired: left as written


def test_no_widget_shows_a_backtick(ip, closing):
    for widget, reader in ((DTRWidget(), "megengine"), (AllocatorWidget(framework="paddle"), "paddle")):
        closing(widget)
        texts = [child.value for row in widget.rows.values() for child in row.children
                 if isinstance(getattr(child, "value", None), str)]
        assert [text for text in texts if "`" in text] == []
        assert f"<code>import {reader}</code>" in "".join(texts)
