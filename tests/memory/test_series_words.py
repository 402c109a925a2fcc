"""A series' name in the user's language (memory/_series_words.py), the same words the chart's front end uses: the
Python table agrees with the front end's Chinese catalog (context 'memory chart'), so a report and a chart name the
same series alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mgenv_jupyter.memory._series_words import _NAME_WORDS, series_name

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("key", "chinese"), [
    ("host used", "主机 已用"),
    ("gpu0 (simulated) process", "gpu0 (模拟) 进程"),
    ("megengine gpu0 allocated", "megengine gpu0 已分配"),
    ("torch gpu1 reserved", "torch gpu1 已保留"),
    ("gpu0 total", "gpu0 总量"),
])
def test_a_series_is_named_in_chinese_with_device_and_framework_names_kept(key, chinese):
    assert series_name(key, "zh") == chinese
    assert series_name(key, "en") == key


def test_the_words_agree_with_the_front_ends_chinese_catalog():
    catalog = json.loads((ROOT / "labextension" / "src" / "locale" / "zh_CN.json").read_text(encoding="utf-8"))
    chart = catalog["memory chart"]
    assert {word: chart.get(word) for word in _NAME_WORDS} == _NAME_WORDS
