"""What an adapter's out-of-memory patterns are made of (runtime/frameworks/_out_of_memory.py): sizes as the
frameworks print them, the facts read out of a match, and a search that starts after a marker."""

from __future__ import annotations

import re

import pytest

from mgenv_jupyter.runtime.frameworks._out_of_memory import OomPattern, both, gpu_index, parse_size, sizes

GiB = 1024**3


@pytest.mark.parametrize("text, expected", [("2.00 GiB", 2 * GiB), ("1.00TiB", 1024 * GiB), ("0 bytes", 0),
                                            ("716.750000MB", int(716.75 * 1024**2)), ("518.00 MiB", 518 * 1024**2),
                                            ("1,099,511,627,776 bytes", 1 << 40), ("12 parsecs", None)])
def test_sizes_as_the_frameworks_print_them(text, expected):
    assert parse_size(text) == expected


def test_facts_are_read_from_the_named_groups_and_a_gpu_index_too_long_is_none():
    pattern = re.compile(r"asked (?P<requested>\S+ \S+) on GPU (?P<gpu>\d+)")
    read = both(sizes(requested="requested"), gpu_index)
    assert read(pattern.search("asked 2.00 GiB on GPU 3")) == {"requested": 2 * GiB, "gpu": 3}
    assert read(pattern.search("asked 2.00 GiB on GPU " + "9" * 5000)) == {"requested": 2 * GiB}
    assert read(None) == {}


def test_a_pattern_with_a_marker_is_searched_only_after_it():
    pattern = OomPattern("jax", "gpu", ("x.Error",), re.compile("out of memory"), after="RESOURCE_EXHAUSTED:")
    assert pattern.search("out of memory, then RESOURCE_EXHAUSTED: nothing") is None
    found = pattern.search("RESOURCE_EXHAUSTED: out of memory")
    assert found is not None and found.start() == len("RESOURCE_EXHAUSTED: ")
    assert pattern.search("no marker, out of memory") is None
    assert OomPattern("python", "host", ("builtins.MemoryError",), None).search("anything") is None
