"""What each framework records of where its memory was allocated: every GPU framework of the catalog is covered,
in English and Chinese, each sentence naming its framework."""

from __future__ import annotations

from mgenv_jupyter.catalog._frameworks import BY_KEY, GPU_MODULES
from mgenv_jupyter.catalog._homes import MEMTRACE_FACTS as FACTS
from mgenv_jupyter.catalog._memtrace import Recording


def test_every_catalog_gpu_framework_is_covered():
    assert set(FACTS) == set(GPU_MODULES) - {"cupy"}  # CuPy is no framework of the catalog's


def test_the_facts_name_their_framework_in_both_languages():
    for key, facts in FACTS.items():
        assert facts.framework == key
        english, chinese = facts.how.en, facts.how.zh
        label = BY_KEY[key].label.en
        assert label.split()[0] in english and english != chinese
        assert any(word in chinese for word in (label, "飞桨", "JAX", "PyTorch"))


def test_jax_always_pytorch_when_asked_the_others_never():
    assert FACTS["jax"].recording is Recording.ALWAYS
    assert FACTS["torch"].recording is Recording.WHEN_ON
    assert {key for key, f in FACTS.items() if f.recording is Recording.NEVER} == {"tensorflow", "paddle",
                                                                                   "megengine", "mxnet"}
