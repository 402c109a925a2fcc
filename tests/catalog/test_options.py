"""Keyword options (catalog/_options.py): one framework's entries are keyword arguments of the user's own call, named
by the registry and worded by its home, in both languages."""

from __future__ import annotations

import re

from mgenv_jupyter.catalog import ReadWhen, catalog
from mgenv_jupyter.catalog._frameworks import KEYWORD_CALLS
from mgenv_jupyter.catalog._options import keyword_options


def test_one_framework_takes_keyword_options_and_its_entries_are_they():
    assert KEYWORD_CALLS == {"ascend": "NPURunConfig"}
    (framework,) = KEYWORD_CALLS
    options = [entry for entry in catalog() if entry.when is ReadWhen.OPTION]
    assert options and {entry.framework for entry in options} == {framework}
    assert all(not entry.is_env for entry in options)


def test_the_words_of_keyword_options_name_the_call_in_both_languages():
    words = keyword_options()
    assert words.export_key == "npu_run_config"
    for text in (words.label, words.keyword, words.passed, words.recorded, words.removed, words.not_variable):
        assert "NPURunConfig" in text.en and "NPURunConfig" in text.zh and re.search("[\u4e00-\u9fff]", text.zh)
    assert words.recorded.en.format(name="precision_mode", value="'auto'").startswith(
        "recorded: NPURunConfig(precision_mode='auto', ...)")
