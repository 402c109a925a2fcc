"""What an adapter's allocator reading is made of (runtime/frameworks/_counters.py), and the registry's list of the
adapters that read one against what the adapters declare."""

from __future__ import annotations

import re

from mgenv_jupyter.runtime.frameworks import COUNTERS, offered
from mgenv_jupyter.runtime.frameworks._counters import Counters, Reading, first_line


def test_the_telling_line_of_an_error_is_its_first_or_after_a_traceback_its_last():
    assert first_line(ValueError("not supported in CPU-only builds\nmore")) == "not supported in CPU-only builds"
    assert first_line(RuntimeError("Traceback (most recent call last):\n  File x\nMXNetError: out of memory")) == (
        "MXNetError: out of memory")
    assert first_line(KeyError()) == "KeyError"


def test_a_reading_is_counters_and_a_state_none_for_plain_ok():
    reading = Reading([Counters("gpu0", allocated=1, reserved=2)])
    assert reading.state is None and reading.counters[0].peak is None and reading.counters[0].device == "gpu0"


def test_the_registry_lists_every_adapter_that_reads_counters_and_each_words_its_own_states():
    readers = offered(lambda adapter: adapter.read_counters)
    assert set(COUNTERS) == set(readers)
    codes: list[str] = []
    for framework, words in offered(lambda adapter: adapter.state_words).items():
        assert framework in readers
        for code, text in words.items():
            assert code.isidentifier() and code == code.lower(), code  # a code, not a sentence
            assert set(re.findall(r"{(\w+)}", text.en)) == set(re.findall(r"{(\w+)}", text.zh)), code
            codes.append(code)
    assert len(codes) == len(set(codes))  # a code means one thing whoever writes it
