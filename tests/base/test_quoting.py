"""How messages and displays quote user input (base/_quoting.py): whole when short, else its start and its length."""

from __future__ import annotations

from mgenv_jupyter.base._quoting import quoted, truncated


def test_short_input_is_shown_whole_and_quoted_as_python_would():
    assert quoted("abc") == "'abc'" and truncated("abc") == "abc"
    assert quoted(5) == "'5'"  # not text: its repr, quoted like any input
    assert quoted("x" * 60) == repr("x" * 60)


def test_long_input_is_cut_to_its_start_and_says_how_long_it_was():
    pasted = "y" * 5000
    assert quoted(pasted) == f"{'y' * 40 + '…'!r} (5,000 characters)"
    assert truncated(pasted) == f"{'y' * 40}… (5,000 characters)"
    assert len(quoted("z" * 10**6)) < 80
