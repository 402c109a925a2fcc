"""The Paddle catalog data (catalog/_paddle.py): the seed flags, read at `import paddle` and set live with
`paddle.set_flags`, values parsed as Paddle reads them, and bilingual descriptions."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._text import localised
from mgenv_jupyter.catalog import Catalog, ReadWhen
from mgenv_jupyter.catalog import _paddle as paddle
from mgenv_jupyter.runtime.frameworks import live_call

CATALOG = Catalog(paddle.ENTRIES)
CJK = re.compile(r"[\u4e00-\u9fff]")

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


def _names(entries: tuple) -> set[str]:
    return {e.name for e in entries}


def test_paddle_names() -> None:
    assert len(SEED_PADDLE) == 14
    assert _names(paddle.ENTRIES) == SEED_PADDLE
    assert len(paddle.ENTRIES) == 14


def test_framework_and_readers() -> None:
    for entry in paddle.ENTRIES:
        assert entry.framework == "paddle", entry.name
        assert entry.readers == ("paddle",), entry.name
        assert " : " in localised(entry.read_at, "en") or entry.when is ReadWhen.NOT_READ, entry.name


def test_every_entry_is_read() -> None:
    """Only MXNet has variables its source no longer reads; every Paddle entry is read."""
    assert [e.name for e in paddle.ENTRIES if e.when is ReadWhen.NOT_READ] == []


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


def test_env_defaults_parse() -> None:
    for entry in CATALOG:
        if entry.is_env and entry.default is not None:
            entry.type.parse(entry.default)


@pytest.mark.parametrize(
    ("name", "raw", "text"),
    [
        ("FLAGS_initial_gpu_memory_in_mb", "2GB", "2048"),
        ("FLAGS_allocator_strategy", "thread_local", "thread_local"),
        ("FLAGS_eager_delete_tensor_gb", "-1.0", "-1.0"),
        ("FLAGS_init_allocated_mem", "1", "true"),
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
