"""The frameworks' allocator groups (catalog/_allocators.py, `ALLOCATOR` in each home): rows that are their own
framework's catalog entries, words in both languages, one default, and the strategy among the rows."""

from __future__ import annotations

import re

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._homes import declared


def test_every_allocator_group_lists_its_own_frameworks_entries_in_both_languages():
    known = catalog()
    groups = declared(lambda facts: facts.allocator)
    assert set(groups) == {"megengine", "mxnet", "paddle", "torch", "jax", "tensorflow"}
    for framework, group in groups.items():
        rows = ([known.get(name) for name in group.names] if group.names
                else known.select(framework=framework, category=group.category))
        assert rows and all(row is not None and row.framework == framework for row in rows), framework
        assert group.strategy is None or group.strategy in group.names
        for text in (group.title, group.latching):
            assert text.en and re.search("[\u4e00-\u9fff]", text.zh), (framework, text)
    assert [key for key, group in groups.items() if group.default] == ["paddle"]
    assert groups["paddle"].strategy == "FLAGS_allocator_strategy"
