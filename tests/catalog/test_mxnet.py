"""The MXNet catalog data (catalog/_mxnet.py): the seed names and the extra ones the source reads, the variables
no code reads any more and what replaced them, reading moments and defaults as the source has them, values parsed
as MXNet reads them, and bilingual descriptions."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._text import localised
from mgenv_jupyter.catalog import Catalog, ReadWhen
from mgenv_jupyter.catalog import _mxnet as mxnet

CATALOG = Catalog(mxnet.ENTRIES)
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


def _names(entries: tuple) -> set[str]:
    return {e.name for e in entries}


def test_mxnet_names() -> None:
    assert len(SEED_MXNET) == 14
    assert _names(mxnet.ENTRIES) == SEED_MXNET | EXTRA_MXNET
    assert len(mxnet.ENTRIES) == 19
    assert {e.name for e in mxnet.ENTRIES if e.extra} == EXTRA_MXNET


def test_framework_and_readers() -> None:
    for entry in mxnet.ENTRIES:
        assert entry.framework == "mxnet", entry.name
        assert entry.readers == ("mxnet",), entry.name
        assert " : " in localised(entry.read_at, "en") or entry.when is ReadWhen.NOT_READ, entry.name


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


def test_env_defaults_parse() -> None:
    for entry in CATALOG:
        if entry.is_env and entry.default is not None:
            entry.type.parse(entry.default)


@pytest.mark.parametrize(
    ("name", "raw", "text"),
    [
        ("MXNET_ENGINE_TYPE", "naiveengine", "NaiveEngine"),
    ],
)
def test_parse_accepts(name: str, raw: object, text: str) -> None:
    entry = CATALOG.get(name)
    assert entry is not None
    assert entry.type.parse(raw).text == text


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("MXNET_ENGINE_TYPE", "Threaded"),
    ],
)
def test_parse_rejects(name: str, raw: object) -> None:
    entry = CATALOG.get(name)
    assert entry is not None
    with pytest.raises(InvalidValueError):
        entry.type.parse(raw)


def test_descriptions_bilingual() -> None:
    for entry in CATALOG:
        for text in (entry.description, entry.category, *entry.caveats):
            assert text.en.strip() and text.zh.strip(), entry.name
        assert CJK.search(entry.description.zh), entry.name
        for caveat in entry.caveats:
            assert CJK.search(caveat.zh), entry.name
        if entry.first_use is not None:
            assert entry.first_use.en.strip() and CJK.search(entry.first_use.zh), entry.name
