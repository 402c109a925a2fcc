"""Whole numbers from outside are ASCII digits only (base/_ascii_numbers.py): what str.isdigit() and int() each accept
alone is refused, never raised."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._ascii_numbers import whole_number


@pytest.mark.parametrize(("text", "value"), [("1", 1), ("4294967295", 2**32 - 1), ("0000000007", 7), ("0", 0)])
def test_ascii_digits_within_range_are_read(text, value):
    assert whole_number(text, 0, 2**32 - 1) == value


@pytest.mark.parametrize("text", ["", "²", "①", "⁵", "٣", "１２", "7²", "+7", "-7", " 7", "7 ", "7_000", "0x10",
                                  "1.0", "1e3", "4294967296", "00000000001", "9" * 5000, "\x00"])
def test_anything_else_is_none_and_never_raises(text):
    assert whole_number(text, 1, 2**32 - 1) is None


def test_the_range_is_inclusive():
    assert [whole_number(t, 2, 5) for t in ("1", "2", "5", "6")] == [None, 2, 5, None]
