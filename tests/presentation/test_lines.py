"""A view read as lines shows the same lines as text and as HTML: the title in bold, each detail escaped."""

from __future__ import annotations

from dataclasses import dataclass

from mgenv_jupyter.presentation._lines import TitledLines


@dataclass(frozen=True, repr=False)
class Said(TitledLines):
    HTML_CLASS = "mgenv-said"

    said: tuple[str, ...]

    def lines(self) -> list[str]:
        return list(self.said)


def test_text_and_html_from_the_same_lines():
    view = Said(("Where <the> memory was:", "  [2] line 3: x = a & b  4 MiB"))
    assert repr(view) == "Where <the> memory was:\n  [2] line 3: x = a & b  4 MiB"
    assert view._repr_html_() == ("<div class='mgenv-said'><div><b>Where &lt;the&gt; memory was:</b></div>"
                                  "<div>[2] line 3: x = a &amp; b  4 MiB</div></div>")


def test_a_view_with_nothing_to_say_shows_nothing():
    assert Said(())._repr_html_() == "" and repr(Said(())) == ""


def test_the_pretty_printer_shows_the_text(ip):
    from IPython.lib.pretty import pretty

    assert pretty(Said(("title", "  detail"))) == "title\n  detail"
