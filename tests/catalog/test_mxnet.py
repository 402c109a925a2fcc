"""The MXNet, Paddle and Ascend catalog data: names, seed coverage, reading moments, parsing and descriptions."""

from __future__ import annotations

import ast
import re

import pytest

from mgenv_jupyter.catalog import Catalog, ReadWhen, ascend, mxnet, paddle
from mgenv_jupyter.errors import InvalidValueError
from mgenv_jupyter.runtime.frameworks import live_call

CATALOG = Catalog(mxnet.ENTRIES + paddle.ENTRIES + ascend.ENTRIES)
CJK = re.compile(r"[\u4e00-\u9fff]")

SEED_MXNET = {
    "MXNET_GPU_WORKER_NTHREADS",
    "MXNET_GPU_COPY_NTHREADS",
    "MXNET_CPU_WORKER_NTHREADS",
    "MXNET_CPU_PRIORITY_NTHREADS",
    "MXNET_EXEC_ENABLE_INPLACE",
    "MXNET_EXEC_MATCH_RANGE",
    "MXNET_EXEC_NUM_TEMP",
    "MXNET_GPU_MEM_POOL_RESERVE",
    "MXNET_ENGINE_TYPE",
    "MXNET_KVSTORE_REDUCTION_NTHREADS",
    "MXNET_KVSTORE_BIGARRAY_BOUND",
    "MXNET_ENABLE_GPU_P2P",
    "MXNET_BACKWARD_DO_MIRROR",
    "MXNET_CUDNN_AUTOTUNE_DEFAULT",
}
EXTRA_MXNET = {
    "NNVM_EXEC_MATCH_RANGE",
    "NNVM_AUTO_SEARCH_MATCH_RANGE",
    "NNVM_EXEC_NUM_TEMP",
    "MXNET_GPU_MEM_POOL_TYPE",
    "MXNET_MP_WORKER_NTHREADS",
}
SEED_PADDLE = {
    "FLAGS_allocator_strategy",
    "FLAGS_eager_delete_scope",
    "FLAGS_eager_delete_tensor_gb",
    "FLAGS_fast_eager_deletion_mode",
    "FLAGS_fraction_of_cpu_memory_to_use",
    "FLAGS_fraction_of_cuda_pinned_memory_to_use",
    "FLAGS_fraction_of_gpu_memory_to_use",
    "FLAGS_fuse_parameter_groups_size",
    "FLAGS_fuse_parameter_memory_size",
    "FLAGS_init_allocated_mem",
    "FLAGS_initial_cpu_memory_in_mb",
    "FLAGS_initial_gpu_memory_in_mb",
    "FLAGS_memory_fraction_of_eager_deletion",
    "FLAGS_reallocate_gpu_memory_in_mb",
}
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


def test_mxnet_names() -> None:
    assert len(SEED_MXNET) == 14
    assert _names(mxnet.ENTRIES) == SEED_MXNET | EXTRA_MXNET
    assert len(mxnet.ENTRIES) == 19
    assert {e.name for e in mxnet.ENTRIES if e.extra} == EXTRA_MXNET


def test_paddle_names() -> None:
    assert len(SEED_PADDLE) == 14
    assert _names(paddle.ENTRIES) == SEED_PADDLE
    assert len(paddle.ENTRIES) == 14


def test_ascend_names() -> None:
    assert len(SEED_ASCEND_OPTIONS) == 52
    options = {e.name for e in ascend.ENTRIES if e.when is ReadWhen.OPTION}
    assert options == SEED_ASCEND_OPTIONS | {"input_fusion_size"}
    assert _names(ascend.ENTRIES) == options | ASCEND_ENV
    assert len(ascend.ENTRIES) == 59
    assert {e.name for e in ascend.ENTRIES if e.extra} == ASCEND_ENV | {"input_fusion_size"}


def test_frameworks_and_readers() -> None:
    for module, framework, readers in (
        (mxnet, "mxnet", ("mxnet",)),
        (paddle, "paddle", ("paddle",)),
        (ascend, "ascend", ("npu_bridge",)),
    ):
        for entry in module.ENTRIES:
            assert entry.framework == framework, entry.name
            assert entry.readers == readers, entry.name
            assert " : " in entry.read_at or entry.when is ReadWhen.NOT_READ, entry.name


def test_not_read_entries_have_caveat_and_replacement() -> None:
    dead = {e.name: e for e in CATALOG if e.when is ReadWhen.NOT_READ}
    assert set(dead) == {"MXNET_EXEC_ENABLE_INPLACE", "MXNET_EXEC_MATCH_RANGE", "MXNET_EXEC_NUM_TEMP"}
    assert dead["MXNET_EXEC_MATCH_RANGE"].replaced_by == "NNVM_EXEC_MATCH_RANGE"
    assert dead["MXNET_EXEC_NUM_TEMP"].replaced_by == "NNVM_EXEC_NUM_TEMP"
    for entry in dead.values():
        assert entry.caveats, entry.name
        if entry.replaced_by is not None:
            assert entry.replaced_by in CATALOG


def test_mxnet_reading_moments() -> None:
    when = {e.name: e.when for e in mxnet.ENTRIES}
    assert when["MXNET_CPU_WORKER_NTHREADS"] is ReadWhen.IMPORT
    for name in ("MXNET_ENGINE_TYPE", "MXNET_CPU_PRIORITY_NTHREADS", "MXNET_GPU_WORKER_NTHREADS",
                 "MXNET_GPU_COPY_NTHREADS"):
        entry = CATALOG.get(name)
        assert entry is not None and entry.when is ReadWhen.FIRST_USE
        assert entry.first_use is not None and "first NDArray operation" in entry.first_use.en
    for name in ("MXNET_KVSTORE_REDUCTION_NTHREADS", "MXNET_KVSTORE_BIGARRAY_BOUND", "MXNET_ENABLE_GPU_P2P"):
        assert when[name] is ReadWhen.PER_OBJECT
    assert all(e.live_api is None for e in mxnet.ENTRIES)


def test_mxnet_source_defaults_win_over_docs() -> None:
    copy = CATALOG.get("MXNET_GPU_COPY_NTHREADS")
    assert copy is not None and copy.default == "2" and copy.caveats
    autotune = CATALOG.get("MXNET_CUDNN_AUTOTUNE_DEFAULT")
    assert autotune is not None and autotune.default == "1" and autotune.caveats


def test_paddle_live_api_and_import() -> None:
    for entry in paddle.ENTRIES:
        assert entry.live_api == "paddle.set_flags", entry.name
        value = entry.type.parse(entry.default).value
        assert live_call(entry, value) == f"paddle.set_flags({{{entry.name!r}: {value!r}}})"
        assert entry.when is ReadWhen.IMPORT, entry.name
    strategy = CATALOG.get("FLAGS_allocator_strategy")
    assert strategy is not None and strategy.default == "auto_growth"
    assert strategy.first_use is not None and "first tensor allocation" in strategy.first_use.en
    assert len(strategy.caveats) >= 2


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
        ("FLAGS_initial_gpu_memory_in_mb", "2GB", "2048"),
        ("precision_mode", "allow_mix_precision", "allow_mix_precision"),
        ("MXNET_ENGINE_TYPE", "naiveengine", "NaiveEngine"),
        ("FLAGS_allocator_strategy", "thread_local", "thread_local"),
        ("FLAGS_eager_delete_tensor_gb", "-1.0", "-1.0"),
        ("FLAGS_init_allocated_mem", "1", "true"),
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
        ("FLAGS_fraction_of_gpu_memory_to_use", "1.5"),
        ("jit_compile", "yes"),
        ("jit_compile", True),
        ("aoe_mode", "3"),
        ("MXNET_ENGINE_TYPE", "Threaded"),
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
