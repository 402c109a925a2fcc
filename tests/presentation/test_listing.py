"""The catalog as a DataFrame (presentation/_listing.py), what %envlist shows: one row per variable with its value and
status, filtered by framework, by category in English or Chinese, or to what is set."""

from __future__ import annotations

import pandas

from mgenv_jupyter.base._text import set_language
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.presentation._listing import COLUMNS, catalog_frame


def test_every_catalog_variable_is_a_row_indexed_by_name(fresh_session):
    fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"})
    frame = catalog_frame(fresh_session)
    assert frame.index.name == "name" and list(frame.columns) == COLUMNS[1:]
    assert list(frame.index) == catalog().names()
    paddle = frame.loc["FLAGS_allocator_strategy"]
    assert (paddle["framework"], paddle["default"], paddle["value"]) == ("paddle", "auto_growth", "naive_best_fit")
    assert paddle["status"] == "takes effect at import" and paddle["when"] == "import" and paddle["type"] == "enum"
    assert pandas.isna(frame.loc["MXNET_ENGINE_TYPE", "value"])  # not set
    assert "naive_best_fit" in paddle["allowed"] and paddle["live_api"].startswith("paddle.set_flags(")


def test_a_framework_gives_only_its_variables(fresh_session):
    frame = catalog_frame(fresh_session, framework="mxnet")
    assert set(frame["framework"]) == {"mxnet"}
    assert list(frame.index) == [entry.name for entry in catalog().for_framework("mxnet")]


def test_a_category_matches_part_of_its_english_or_chinese_name(fresh_session):
    dtr = catalog_frame(fresh_session, category="dtr")
    assert set(dtr["category"]) == {"DTR (dynamic tensor rematerialization)"} and len(dtr) == 6
    chinese = catalog_frame(fresh_session, framework="megengine", category="显存")  # "GPU memory" in Chinese
    assert set(chinese["category"]) == {"GPU memory"} and "MGB_CUDA_RESERVE_MEMORY" in chinese.index


def test_only_set_lists_what_the_kernel_has_set_with_its_status(fresh_session):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB", "MXNET_KVSTORE_BIGARRAY_BOUND": "1000000"})
    frame = catalog_frame(fresh_session, only_set=True)
    assert list(frame.index) == ["MEGENGINE_DTR_EVICTION_THRESHOLD", "MXNET_KVSTORE_BIGARRAY_BOUND"]
    assert frame.loc["MEGENGINE_DTR_EVICTION_THRESHOLD", "value"] == "5368709120"  # normalised to bytes
    assert frame.loc["MEGENGINE_DTR_EVICTION_THRESHOLD", "status"] == "takes effect at import"
    assert frame.loc["MXNET_KVSTORE_BIGARRAY_BOUND", "status"] == "effective"  # read for every new kvstore


def test_the_table_speaks_the_chosen_language(fresh_session):
    fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"})
    set_language("zh")
    try:
        row = catalog_frame(fresh_session, framework="paddle").loc["FLAGS_allocator_strategy"]
    finally:
        set_language(None)
    assert (row["category"], row["status"]) == ("存储管理", "导入时生效")
    assert "分配器" in row["description"]
