"""The PyTorch catalog data (catalog/_torch.py): every entry traced to where torch 2.13 reads it, the reading moments
(import, first use of the allocator settings, import of the compiler's config modules), values as torch reads them,
and the two allocator-config names refused together."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.catalog import Catalog, ReadWhen, catalog
from mgenv_jupyter.catalog import _torch as torch
from mgenv_jupyter.catalog._code_loading import is_code_loading
from mgenv_jupyter.runtime import EnvSession

CATALOG = Catalog(torch.ENTRIES)
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_entry_says_where_and_when_torch_reads_it_in_both_languages():
    for entry in CATALOG:
        assert entry.framework == "torch" and entry.read_at and entry.readers, entry.name
        assert entry.description.en and CJK.search(entry.description.zh), entry.name
        assert all(c.en and CJK.search(c.zh) for c in entry.caveats), entry.name
        if entry.when is ReadWhen.FIRST_USE:
            assert entry.first_use is not None and entry.latch == "torch.cuda", entry.name


def test_the_reading_moments_follow_the_source():
    when = {e.name: e.when for e in CATALOG}
    assert when["PYTORCH_ALLOC_CONF"] is ReadWhen.FIRST_USE  # parsed lazily, not at import
    assert when["OMP_NUM_THREADS"] is ReadWhen.IMPORT
    assert CATALOG.get("TORCHINDUCTOR_MAX_AUTOTUNE").readers == ("torch._inductor.config",)  # type: ignore[union-attr]
    assert CATALOG.get("TORCH_COMPILE_DISABLE").readers == ("torch._dynamo.config",)  # type: ignore[union-attr]


@pytest.mark.parametrize(("name", "raw", "text"), [
    ("TORCHINDUCTOR_MAX_AUTOTUNE", "true", "1"),  # torch compares with "1": "true" would leave it off
    ("TORCHINDUCTOR_FX_GRAPH_CACHE", "off", "0"),  # "off" would be kept as a (true) string
    ("PYTORCH_NO_CUDA_MEMORY_CACHING", "0", "0"),  # presence: "0" turns caching off too, and says so
    ("OMP_NUM_THREADS", "4", "4"),
])
def test_values_are_written_as_torch_reads_them(name, raw, text):
    assert CATALOG.get(name).type.parse(raw).text == text  # type: ignore[union-attr]


def test_presence_flags_say_that_zero_turns_them_on():
    notes = CATALOG.get("PYTORCH_NO_CUDA_MEMORY_CACHING").type.parse("0").notes  # type: ignore[union-attr]
    assert any("turns it ON" in note for note in notes)


def test_both_allocator_config_names_at_once_are_refused():
    session = EnvSession(environ={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    with pytest.raises(InvalidValueError, match="PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF cannot both be set"):
        session.set({"PYTORCH_ALLOC_CONF": "max_split_size_mb:128"})
    assert "PYTORCH_ALLOC_CONF" not in session.environ
    session.set({"PYTORCH_ALLOC_CONF": "max_split_size_mb:128", "PYTORCH_CUDA_ALLOC_CONF": None})  # a move is fine
    assert session.environ == {"PYTORCH_ALLOC_CONF": "max_split_size_mb:128"}


def test_compiler_cache_directories_are_code_loading_not_catalog_variables():
    for name in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR"):
        assert is_code_loading(name) and name not in catalog()
    assert not any(entry.code_effect is not None for entry in CATALOG)  # each torch entry decided: data


def test_two_allocator_config_names_set_before_the_session_refuse_only_a_batch_that_sets_one():
    """Both set in the kernel's start-up environment: the conflict is not an unrelated batch's doing, and unsetting
    one of them (the way out) must stay possible; setting one while the other stays is still refused."""
    session = EnvSession(environ={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                                  "PYTORCH_ALLOC_CONF": "max_split_size_mb:64"})
    session.set({"MGE_DEFAULT_DEVICE": "gpu0"})
    assert session.environ["MGE_DEFAULT_DEVICE"] == "gpu0"
    with pytest.raises(InvalidValueError, match="cannot both be set"):
        session.set({"PYTORCH_ALLOC_CONF": "max_split_size_mb:128"})
    assert session.environ["PYTORCH_ALLOC_CONF"] == "max_split_size_mb:64"
    session.set({"PYTORCH_CUDA_ALLOC_CONF": None})
    assert "PYTORCH_CUDA_ALLOC_CONF" not in session.environ
