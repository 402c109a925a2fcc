"""`KeywordOptions` (catalog/_keyword_options.py): the words a framework's home gives its keyword options, each a
bilingual text but the export key."""

from __future__ import annotations

import dataclasses

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog._homes import declared
from mgenv_jupyter.catalog._keyword_options import KeywordOptions


def test_the_declared_words_are_bilingual_texts_and_one_export_key():
    (words,) = declared(lambda facts: facts.keyword_options).values()
    assert isinstance(words, KeywordOptions) and isinstance(words.export_key, str)
    texts = [getattr(words, field.name) for field in dataclasses.fields(KeywordOptions) if field.name != "export_key"]
    assert texts and all(isinstance(text, Text) and text.en and text.zh for text in texts)
