"""Entries, variables and changes as the sidebar receives them (mgenv_jupyter/presentation/wire.py)."""

from __future__ import annotations

import re

from mgenv_jupyter import protocol
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.presentation.wire import entry_info, framework_infos, variable_info

from wire_check import check

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_entry_in_both_languages_has_the_schemas_shape():
    for entry in catalog():
        english, chinese = entry_info(entry, "en"), entry_info(entry, "zh")
        check(english, protocol.EntryInfo, entry.name)
        assert english["name"] == chinese["name"] == entry.name
        assert CJK.search(chinese["description"]) and not CJK.search(english["description"]), entry.name


def test_frameworks_are_named_for_people(fresh_session):
    labels = {f["key"]: f["label"] for f in framework_infos(catalog(), "zh")}
    assert labels["paddle"] == "飞桨 PaddlePaddle" and labels["ascend"].startswith("昇腾")


def test_a_variable_shows_its_live_call_with_the_value_in_effect(fresh_session):
    fresh_session.set({"FLAGS_initial_gpu_memory_in_mb": "4096"})
    info = variable_info(fresh_session, "FLAGS_initial_gpu_memory_in_mb", "en")
    check(info, protocol.VariableInfo)
    assert info["live"] == "paddle.set_flags({'FLAGS_initial_gpu_memory_in_mb': 4096})" and not info["live_example"]
    assert info["applies"] is False and "auto_growth" in info["applies_reason"]
