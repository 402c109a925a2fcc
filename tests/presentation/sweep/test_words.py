"""Every sentence of the sweep view in both languages, and one word for every outcome and phase code."""

from __future__ import annotations

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.presentation.sweep import _words as words
from mgenv_jupyter.sweeps._point import Outcome, Phase
from mgenv_jupyter.sweeps._replay import LeftOut
from mgenv_jupyter.sweeps._result import Choice


def test_every_code_has_its_words():
    assert set(words.OUTCOMES) == {o.value for o in Outcome} and set(words.PHASES) == {p.value for p in Phase}
    assert set(words.LEFT_OUT) == {r.value for r in LeftOut}
    assert set(words.CHOICES) == {c.value for c in Choice}


def test_every_text_is_in_english_and_chinese_with_the_same_placeholders():
    import re

    texts = [v for v in vars(words).values() if isinstance(v, Text)]
    texts += [t for table in (words.OUTCOMES, words.PHASES, words.LEFT_OUT, words.CHOICES, words.HEADERS)
              for t in table.values()]
    for text in texts:
        assert text.en and text.zh and text.en != text.zh or text.en == "GPU"
        assert sorted(re.findall(r"\{\w+", text.en)) == sorted(re.findall(r"\{\w+", text.zh)), text
