"""The MegEngine and DTR catalog data: the right names, sound metadata, and values parsed as MegEngine reads them."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen
from mgenv_jupyter.catalog import _megengine as megengine
from mgenv_jupyter.catalog import _megengine_dtr as dtr
from mgenv_jupyter.runtime.frameworks import live_call

SEED_NAMES = {
    "MGE_DEFAULT_DEVICE", "MEGENGINE_HOST_COMPUTE",
    "MEGENGINE_LOGGING_LEVEL", "RUNTIME_OVERRIDE_LOG_LEVEL", "MGB_DEBUG_VAR_SANITY_CHECK_LOG", "MGB_LOG_TRT_MEM_ALLOC",
    "MGE_PLASMA_MEMORY", "MGE_DATALOADER_PLASMA_DEBUG", "MGE_MM_OPR_DEBUG",
    "MEGENGINE_INPLACE_UPDATE", "MGB_CUDA_RESERVE_MEMORY", "MGB_ROCM_RESERVE_MEMORY",
    "MGB_SUBLINEAR_MEMORY_THRESH_NR_TRY", "MGB_SUBLINEAR_MEMORY_GENETIC_NR_ITER",
    "MGB_SUBLINEAR_MEMORY_GENETIC_POOL_SIZE", "MGB_SUBLINEAR_MEMORY_LOWER_BOUND_MB", "MGB_SUBLINEAR_MEMORY_WORKERS",
    "MEGENGINE_INPUT_NODE_USE_STATIC_SHAPE",
    "MEGENGINE_INTERP_ASYNC_LEVEL", "MEGENGINE_CATCH_WORKER_EXEC", "MEGENGINE_COMMAND_BUFFER_LENGTH",
    "MEGENGINE_RECORD_COMPUTING_PATH", "MEGENGINE_EXECUTION_STRATEGY", "MGB_CONV_PROFILING_TIMEOUT",
    "MGB_PROFILE_ONLY_WAIT", "CUDA_BIN_PATH", "MGB_JIT_BACKEND", "MGB_JIT_KEEP_INTERM", "MGB_JIT_WORKDIR",
    "MGB_DUMP_INPUT",
}
SEED_DTR_NAMES = {
    "MEGENGINE_ENABLE_SWAP", "MEGENGINE_ENABLE_DROP", "MEGENGINE_DTR_AUTO_DROP", "MEGENGINE_DTR_EVICTION_THRESHOLD",
    "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE",
}
EXTRA_NAMES = {"MEGENGINE_ASYNC_QUEUE_SIZE", "MEGENGINE_DTR_SQRT_SAMPLING"}
ALL_NAMES = SEED_NAMES | SEED_DTR_NAMES | EXTRA_NAMES

ALLOWED_LIVE_APIS = {
    "megengine.set_default_device",
    "megengine.set_log_level",
    "megengine.config.async_level",
    "megengine.option:enable_host_compute",
    "megengine.option:catch_worker_execption",
    "megengine.option:record_computing_path",
    "megengine.option:enable_drop",
    "megengine.option:enable_dtr_auto_drop",
    "megengine.dtr.eviction_threshold",
    "megengine.dtr.evictee_minimum_size",
    "megengine.dtr.enable_sqrt_sampling",
}
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def cat() -> Catalog:
    # Built from the two data modules directly, so these tests do not depend on the other frameworks' data.
    return Catalog(megengine.ENTRIES + dtr.ENTRIES)


def _get(cat: Catalog, name: str) -> Entry:
    entry = cat.get(name)
    assert entry is not None, name
    return entry


def test_seed_counts() -> None:
    assert len(SEED_NAMES | SEED_DTR_NAMES) == 35
    assert len(ALL_NAMES) == 37


def test_exact_names_and_framework(cat: Catalog) -> None:
    assert set(cat.names()) == ALL_NAMES
    assert {e.name for e in dtr.ENTRIES} == SEED_DTR_NAMES | {"MEGENGINE_DTR_SQRT_SAMPLING"}
    assert all(e.framework == "megengine" for e in cat)
    assert all(e.readers == ("megengine",) for e in cat)
    assert {e.name for e in cat if e.extra} == EXTRA_NAMES


def test_not_read_entries_say_what_replaces_them(cat: Catalog) -> None:
    dead = {e.name for e in cat if e.when is ReadWhen.NOT_READ}
    assert dead == {"MEGENGINE_ENABLE_SWAP", "MEGENGINE_COMMAND_BUFFER_LENGTH", "MEGENGINE_EXECUTION_STRATEGY"}
    for name in dead:
        entry = _get(cat, name)
        assert entry.replaced_by, name
        assert entry.caveats, name
        assert entry.live_api is None, name
    assert _get(cat, "MEGENGINE_ENABLE_SWAP").replaced_by == "megengine.dtr.enable()"


def test_first_use_and_live_api_metadata(cat: Catalog) -> None:
    for entry in cat:
        assert (entry.first_use is not None) == (entry.when is ReadWhen.FIRST_USE), entry.name
        if entry.live_api is not None:
            assert entry.live_api in ALLOWED_LIVE_APIS, entry.name
            default = entry.type.parse(entry.default) if entry.default is not None else None
            call = live_call(entry, default.value if default else 1)
            assert call is not None and call.startswith("megengine."), entry.name
    used = {e.live_api for e in cat if e.live_api}
    assert used == ALLOWED_LIVE_APIS


def test_descriptions_are_bilingual(cat: Catalog) -> None:
    for entry in cat:
        for text in (entry.description, entry.category, *entry.caveats, *filter(None, [entry.first_use])):
            assert text.en.strip() and text.zh.strip(), entry.name
            assert CJK.search(text.zh), (entry.name, text.zh)
            assert not CJK.search(text.en), (entry.name, text.en)


def test_defaults_parse_to_themselves(cat: Catalog) -> None:
    for entry in cat:
        if entry.default is not None and entry.name != "MGB_JIT_WORKDIR":
            assert entry.type.parse(entry.default).text == entry.default, entry.name


def test_default_device(cat: Catalog) -> None:
    kind = _get(cat, "MGE_DEFAULT_DEVICE").type
    assert kind.parse("gpu0").text == "gpu0"
    parsed = kind.parse("GPU1:2")
    assert parsed.text == "gpu1:2" and parsed.notes
    assert kind.parse("xpux").text == "xpux"
    with pytest.raises(InvalidValueError):
        kind.parse("tpu0")


def test_eviction_threshold_is_normalised_to_bytes(cat: Catalog) -> None:
    entry = _get(cat, "MEGENGINE_DTR_EVICTION_THRESHOLD")
    parsed = entry.type.parse("5GB")
    assert parsed.text == "5368709120"
    assert parsed.notes
    assert any("5 bytes" in caveat.en for caveat in entry.caveats)
    assert dtr.DTR_PEAK_CAVEAT in entry.caveats
    assert _get(cat, "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE").type.parse("1MB").text == "1048576"


def test_reserve_memory_zero_turns_it_on(cat: Catalog) -> None:
    parsed = _get(cat, "MGB_CUDA_RESERVE_MEMORY").type.parse("0")
    assert parsed.text == "0"
    assert any("does NOT turn this off" in note for note in parsed.notes)
    assert _get(cat, "MGB_CUDA_RESERVE_MEMORY").type.parse("2GB").text == "b:2147483648"


@pytest.mark.parametrize(
    "name", ["MGB_LOG_TRT_MEM_ALLOC", "MGB_PROFILE_ONLY_WAIT", "MGB_JIT_KEEP_INTERM", "MGB_DUMP_INPUT",
             "MEGENGINE_INPUT_NODE_USE_STATIC_SHAPE"],
)
def test_presence_flags_warn_that_zero_turns_them_on(cat: Catalog, name: str) -> None:
    parsed = _get(cat, name).type.parse("0")
    assert parsed.value is True and parsed.notes


def test_plasma_debug_empty_is_off(cat: Catalog) -> None:
    kind = _get(cat, "MGE_DATALOADER_PLASMA_DEBUG").type
    assert kind.parse("").value is False
    assert kind.parse("0").value is True


def test_logging_levels(cat: Catalog) -> None:
    level = _get(cat, "MEGENGINE_LOGGING_LEVEL").type
    assert level.parse("error").text == "ERROR"
    assert any("DEBUG" in note for note in level.parse("WARNING").notes)
    override = _get(cat, "RUNTIME_OVERRIDE_LOG_LEVEL").type
    assert override.parse("WARN").text == "2"
    assert override.parse("no_log").value == 4
    with pytest.raises(InvalidValueError):
        override.parse("5")


def test_execution_strategy_rejects_doc_spellings(cat: Catalog) -> None:
    kind = _get(cat, "MEGENGINE_EXECUTION_STRATEGY").type
    assert kind.parse("profile_reproducible").text == "PROFILE_REPRODUCIBLE"
    for bad in ("REPRODUCEABLE", "OPTIMIZED"):
        with pytest.raises(InvalidValueError):
            kind.parse(bad)


def test_sizes_and_ints(cat: Catalog) -> None:
    assert _get(cat, "MGE_PLASMA_MEMORY").default == "4294967296"
    assert _get(cat, "MGB_SUBLINEAR_MEMORY_LOWER_BOUND_MB").type.parse("1GB").text == "1024"
    assert _get(cat, "MEGENGINE_INTERP_ASYNC_LEVEL").type.parse("0").value == 0
    with pytest.raises(InvalidValueError):
        _get(cat, "MGB_SUBLINEAR_MEMORY_WORKERS").type.parse("0")
    with pytest.raises(InvalidValueError):
        _get(cat, "MGB_JIT_BACKEND").type.parse("CUDA")


def test_release_build_caveat_only_on_mgb_getenv_readers(cat: Catalog) -> None:
    direct_getenv = {"RUNTIME_OVERRIDE_LOG_LEVEL", "MGB_LOG_TRT_MEM_ALLOC", "CUDA_BIN_PATH", "MGB_JIT_BACKEND"}
    for name in direct_getenv:
        assert megengine.RELEASE_BUILD_CAVEAT not in _get(cat, name).caveats, name
    assert megengine.RELEASE_BUILD_CAVEAT in _get(cat, "MGB_CUDA_RESERVE_MEMORY").caveats
    assert megengine.RELEASE_BUILD_CAVEAT in _get(cat, "MEGENGINE_DTR_EVICTION_THRESHOLD").caveats


def test_full_catalog_when_available() -> None:
    from mgenv_jupyter.catalog import catalog

    try:
        full = catalog()
    except ImportError:
        pytest.skip("the other frameworks' data modules are not written yet")
    for name in ALL_NAMES:
        assert _get(full, name).framework == "megengine", name
