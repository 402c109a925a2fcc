"""The Ascend catalog data (catalog/_ascend.py): the seed NPURunConfig keywords (options, not environment
variables) and the environment variables beside them, caveats where the docs call a keyword unsupported, Python
literal defaults, values parsed as NPURunConfig takes them, and bilingual descriptions."""

from __future__ import annotations

import ast
import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._text import localised
from mgenv_jupyter.catalog import Catalog, ReadWhen
from mgenv_jupyter.catalog import _ascend as ascend

CATALOG = Catalog(ascend.ENTRIES)
CJK = re.compile(r"[\u4e00-\u9fff]")

SEED_ASCEND_OPTIONS = {
    "graph_run_mode", "session_device_id", "distribute", "deterministic",
    "memory_config", "external_weight",
    "mix_compile_mode",
    "enable_exception_dump", "op_debug_config", "debug_dir",
    "precision_mode", "precision_mode_v2", "modify_mixlist", "enable_reduce_precision", "customize_dtypes",
    "dump_config", "fusion_switch_file", "buffer_optimize",
    "iterations_per_loop",
    "hcom_parallel", "op_precision_mode", "enable_scope_fusion_passes", "stream_max_parallel_num",
    "is_tailing_optimization", "enable_small_channel", "variable_placement",
    "profiling_config",
    "aoe_mode", "work_path", "aoe_config_file",
    "op_compiler_cache_mode", "op_compiler_cache_dir",
    "local_rank_id", "local_device_list",
    "hccl_timeout", "op_wait_timeout", "op_execute_timeout", "stream_sync_timeout", "event_sync_timeout",
    "enable_compress_weight", "compress_weight_conf",
    "jit_compile",
    "enable_data_pre_proc", "variable_format_optimize", "op_debug_level", "op_select_implmode",
    "optypelist_for_implmode", "dynamic_input", "dynamic_graph_execute_mode", "dynamic_inputs_shape_range",
    "graph_memory_max_size", "variable_memory_max_size",
}  # fmt: skip
ASCEND_ENV = {"ASCEND_DEVICE_ID", "DEVICE_ID", "AOE_MODE", "HCCL_EXEC_TIMEOUT", "RANK_ID", "RANK_SIZE"}
# Ascend keywords the docs call unsupported, deprecated or no longer effective: each must say so in a caveat.
ASCEND_FLAGGED = {
    "enable_reduce_precision", "buffer_optimize", "enable_small_channel", "enable_compress_weight",
    "compress_weight_conf", "enable_data_pre_proc", "variable_format_optimize", "op_debug_level",
    "op_select_implmode", "optypelist_for_implmode", "dynamic_input", "dynamic_graph_execute_mode",
    "dynamic_inputs_shape_range", "graph_memory_max_size", "variable_memory_max_size",
}  # fmt: skip


def _names(entries: tuple) -> set[str]:
    return {e.name for e in entries}


def test_ascend_names() -> None:
    assert len(SEED_ASCEND_OPTIONS) == 52
    options = {e.name for e in ascend.ENTRIES if e.when is ReadWhen.OPTION}
    assert options == SEED_ASCEND_OPTIONS | {"input_fusion_size"}
    assert _names(ascend.ENTRIES) == options | ASCEND_ENV
    assert len(ascend.ENTRIES) == 59
    assert {e.name for e in ascend.ENTRIES if e.extra} == ASCEND_ENV | {"input_fusion_size"}


def test_framework_and_readers() -> None:
    for entry in ascend.ENTRIES:
        assert entry.framework == "ascend", entry.name
        assert entry.readers == ("npu_bridge",), entry.name
        assert " : " in localised(entry.read_at, "en") or entry.when is ReadWhen.NOT_READ, entry.name


def test_every_entry_is_read() -> None:
    """Only MXNet has variables its source no longer reads; every Ascend entry is read."""
    assert [e.name for e in ascend.ENTRIES if e.when is ReadWhen.NOT_READ] == []


def test_ascend_options_are_not_env() -> None:
    for entry in ascend.ENTRIES:
        if entry.name in ASCEND_ENV:
            assert entry.is_env, entry.name
        else:
            assert entry.when is ReadWhen.OPTION, entry.name
            assert not entry.is_env, entry.name
            assert entry.read_at == ascend.OPTION_READ_AT
        assert entry.live_api is None, entry.name


def test_ascend_flagged_options_have_caveats() -> None:
    for name in ASCEND_FLAGGED:
        entry = CATALOG.get(name)
        assert entry is not None and entry.caveats, name


def test_ascend_defaults_are_python_literals_of_their_type() -> None:
    for entry in ascend.ENTRIES:
        if entry.when is not ReadWhen.OPTION:
            continue
        assert entry.default is not None, entry.name
        value = ast.literal_eval(entry.default)
        assert entry.optional == (value is None), entry.name
        parsed = entry.type.parse(value)
        assert parsed.value == value, entry.name


def test_env_defaults_parse() -> None:
    for entry in CATALOG:
        if entry.is_env and entry.default is not None:
            entry.type.parse(entry.default)


@pytest.mark.parametrize(
    ("name", "raw", "text"),
    [
        ("precision_mode", "allow_mix_precision", "allow_mix_precision"),
        ("hcom_parallel", "false", "False"),
        ("jit_compile", "auto", "auto"),
        ("aoe_mode", 2, "2"),
        ("session_device_id", None, "None"),
    ],
)
def test_parse_accepts(name: str, raw: object, text: str) -> None:
    entry = CATALOG.get(name)
    assert entry is not None
    assert entry.type.parse(raw).text == text


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("jit_compile", "yes"),
        ("jit_compile", True),
        ("aoe_mode", "3"),
        ("graph_run_mode", "2"),
        ("session_device_id", "-1"),
        ("iterations_per_loop", "0"),
        ("stream_sync_timeout", "-2"),
        ("precision_mode", "fp16"),
    ],
)
def test_parse_rejects(name: str, raw: object) -> None:
    entry = CATALOG.get(name)
    assert entry is not None
    with pytest.raises(InvalidValueError):
        entry.type.parse(raw)


def test_aoe_mode_parses_to_str() -> None:
    entry = CATALOG.get("aoe_mode")
    assert entry is not None
    assert entry.type.parse(4).value == "4"


def test_descriptions_bilingual() -> None:
    for entry in CATALOG:
        for text in (entry.description, entry.category, *entry.caveats):
            assert text.en.strip() and text.zh.strip(), entry.name
        assert CJK.search(entry.description.zh), entry.name
        for caveat in entry.caveats:
            assert CJK.search(caveat.zh), entry.name
        if entry.first_use is not None:
            assert entry.first_use.en.strip() and CJK.search(entry.first_use.zh), entry.name
