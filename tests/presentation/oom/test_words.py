"""The report's words (presentation/oom/_words.py): every sentence in English and Chinese, with the same fields to
fill in, so a report never shows a raw `{placeholder}` or fails to format in one language."""

from __future__ import annotations

import string

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.presentation.oom import _words as words


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_sentence_has_both_languages_with_the_same_fields():
    sentences = {name: value for name, value in vars(words).items() if isinstance(value, Text)}
    assert len(sentences) > 40
    for name, text in sentences.items():
        assert text.en and text.zh, name
        assert fields(text.en) == fields(text.zh), name
