"""The frameworks the catalog covers (catalog/_frameworks.py): each is named in English and Chinese, listed in one
order, and the wheel the catalog says was checked is the one ./dev installs for the real-framework tests."""

from __future__ import annotations

import re
from pathlib import Path

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._frameworks import BY_KEY, FRAMEWORKS, READER_MODULES

DEV = Path(__file__).resolve().parents[2] / "dev"


def test_every_catalog_framework_has_a_label_in_both_languages():
    for key in catalog().frameworks():
        label = BY_KEY[key].label
        assert label.en.strip() and label.zh.strip(), key
    assert BY_KEY["paddle"].label.zh == "飞桨 PaddlePaddle"


def test_the_catalog_lists_the_frameworks_in_this_order():
    assert catalog().frameworks() == [framework.key for framework in FRAMEWORKS]


def test_the_wheel_said_to_be_checked_is_the_one_the_tests_install():
    pins = dict(re.findall(r'"(\w+)==([\w.]+)"', DEV.read_text()))
    checked = {f.key: f.checked.split()[:2] for f in FRAMEWORKS if f.checked is not None}
    assert set(checked) == {"megengine", "mxnet", "paddle", "torch", "jax", "tensorflow"}
    for key, (wheel, version) in checked.items():
        assert pins.get(wheel) == version, f"{key}: the catalog says {wheel} {version}, ./dev installs {pins}"


def test_the_import_watchers_modules_are_exactly_the_entries_readers():
    # `%load_ext` installs the watcher from this table without building the catalog: a reader missing here would go
    # unwatched, and its variables would never be said to be already read
    assert READER_MODULES == {module for entry in catalog() for module in entry.readers}
