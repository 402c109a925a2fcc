"""JSON from another program read within bounds (base/_bounded_json.py): nesting counted before parsing, brackets in
strings not counted, numbers bounded, NaN and Infinity refused; every refusal a ValueError, whatever the text, and
hostile text of a megabyte read in a fraction of a second."""

from __future__ import annotations

import json
import time

import pytest

from mgenv_jupyter.base._bounded_json import loads, nesting


@pytest.mark.parametrize(("text", "depth"), [
    ("1", 0), ('"[[["', 0), ("[]", 1), ("{}", 1), ('{"a": [1, {"b": "]]]}}"}]}', 3), ("[[], [[]], []]", 3),
    ('["\\"[", ["\\\\"]]', 2), ("[" * 3 + "]" * 3, 3), ('{"a": []}', 2),
])
def test_nesting_is_the_depth_of_arrays_and_objects_outside_strings(text, depth):
    assert nesting(text, 10) == depth
    assert loads(text.encode(), depth) == json.loads(text)


@pytest.mark.parametrize("text", ["[" * 100_000, "[" * 6 + "]" * 6, "]" * 3 + "[" * 3, "[[]", '{"a": [' * 50_000])
def test_deeper_or_unpaired_is_refused_before_parsing(text):
    assert nesting(text, 5) == 6
    with pytest.raises(ValueError, match="nested deeper than 5 levels"):
        loads(text.encode(), 5)


@pytest.mark.parametrize("text", ["9" * 20, "-" + "9" * 20, "9" * 400, "1e400", "-1e400", "1." + "0" * 40, "NaN",
                                  "Infinity", "-Infinity", '{"idle_seconds": ' + "9" * 400 + "}"])
def test_numbers_out_of_bounds_are_refused(text):
    with pytest.raises(ValueError):
        loads(text.encode(), 5)


def test_numbers_within_bounds_are_read():
    assert loads(b'[9999999999999999999, -9999999999999999999, 1.5e300, 0.25]', 1) == [
        10**19 - 1, -(10**19 - 1), 1.5e300, 0.25]


@pytest.mark.parametrize("data", [b"\xff\xfe", b"", b"{", b'"unterminated', b'"\\', b"<html>"])
def test_what_is_not_json_is_a_value_error(data):
    with pytest.raises(ValueError):
        loads(data, 5)


@pytest.mark.parametrize("hostile", ['"\\"' * 500_000, "[" * 1_000_000, '"' + "[" * 1_000_000,
                                     "[" + "1," * 500_000 + "1]", "\\" * 1_000_000])
def test_a_hostile_megabyte_is_answered_at_once(hostile):
    started = time.process_time()
    try:
        loads(hostile.encode(), 5)
    except ValueError:
        pass
    # Linear work in C: tens of milliseconds; a quadratic scan of a megabyte would take minutes.
    assert time.process_time() - started < 2
