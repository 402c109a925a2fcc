"""The frameworks' facts (mgenv_jupyter/catalog/_homes.py): one typed `FrameworkFacts` per framework of the catalog,
in the registry's order; what a home declares none of is None, never a missing name."""

from __future__ import annotations

from mgenv_jupyter.catalog._frameworks import FRAMEWORKS
from mgenv_jupyter.catalog._homes import FACTS, MEMTRACE_FACTS, NONE, FrameworkFacts, declared, facts
from mgenv_jupyter.catalog._memtrace import Recording


def test_every_framework_has_its_typed_facts_in_the_registrys_order():
    assert list(FACTS) == [framework.key for framework in FRAMEWORKS]
    assert all(isinstance(each, FrameworkFacts) for each in FACTS.values())
    assert facts("cuda") == NONE and facts("no such framework") is NONE
    assert facts("torch").cache_kept is None and facts("jax").cache_kept is not None


def test_declared_leaves_out_what_a_home_declares_none_of():
    assert set(declared(lambda each: each.cache_kept)) == {"jax", "tensorflow"}
    assert set(declared(lambda each: each.keyword_options)) == {"ascend"}
    assert set(declared(lambda each: each.allocator)) == {"megengine", "mxnet", "paddle", "torch", "jax", "tensorflow"}
    assert facts("megengine").out_of_memory is not None  # declared by its part, _megengine_dtr.py


def test_the_stack_facts_list_those_that_record_first():
    order = [facts.recording for facts in MEMTRACE_FACTS.values()]
    assert order == sorted(order, key=[Recording.ALWAYS, Recording.WHEN_ON, Recording.NEVER].index)
    assert set(MEMTRACE_FACTS) == set(declared(lambda each: each.memtrace))
