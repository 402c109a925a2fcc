"""The one way a result shows itself (mgenv_jupyter/base/_display.py): `Shown` delegates its bundle, text, lines and
HTML to the view named for its kind; a kind nobody named shows its type; `Verbatim` text is shown as it is."""

from __future__ import annotations

from IPython.core.formatters import DisplayFormatter

from mgenv_jupyter.base._display import Shown, Verbatim, show_with, text_and_html


class Note(Shown):
    display_kind = "test-note"

    def __init__(self, words: str) -> None:
        self.words = words


class NoteView:
    def __init__(self, note: Note) -> None:
        self.note = note

    def lines(self) -> list[str]:
        return [self.note.words, "second line"]

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        return f"<b>{self.note.words}</b>"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {"application/x-note": {"words": self.note.words}, **text_and_html(self)}


def test_a_result_shows_as_the_view_named_for_its_kind():
    show_with("test-note", NoteView)
    note = Note("hello")
    bundle, _ = DisplayFormatter().format(note)
    assert bundle == {"text/plain": "hello\nsecond line", "text/html": "<b>hello</b>",
                      "application/x-note": {"words": "hello"}}
    assert repr(note) == "hello\nsecond line" and note.lines() == ["hello", "second line"]
    assert note._repr_html_() == "<b>hello</b>"


def test_a_result_of_a_kind_nobody_named_still_shows_its_type():
    class Unnamed(Shown):
        display_kind = "nobody-named-this"

    bundle = Unnamed()._repr_mimebundle_()
    assert set(bundle) == {"text/plain"} and "Unnamed object" in bundle["text/plain"]
    assert Unnamed()._repr_html_() is None and "Unnamed object" in repr(Unnamed())


def test_verbatim_text_is_shown_as_it_is_and_stays_a_str():
    text = Verbatim("export A=1\nexport B='two words'\n")
    bundle, _ = DisplayFormatter().format(text)
    assert bundle == {"text/plain": "export A=1\nexport B='two words'\n"}
    assert isinstance(text, str) and text.splitlines()[1] == "export B='two words'"
