"""split_words splits a magic line exactly as shlex.split(posix=True) does, in linear time."""

from __future__ import annotations

import shlex
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgenv_jupyter.base._shell_words import split_words


def shlex_words(line: str) -> list[str] | str:
    try:
        return shlex.split(line, posix=True)
    except ValueError as exc:
        return f"ValueError: {exc}"


def ours(line: str) -> list[str] | str:
    try:
        return split_words(line)
    except ValueError as exc:
        return f"ValueError: {exc}"


@pytest.mark.parametrize("line", [
    "", "   ", "A=1 B=2", "A='two words'", 'A="say \\"hi\\""', 'A="back\\\\slash" B="\\$x"', "A=\\ b", "a''b",
    "'' \"\"", "A='unclosed", 'A="unclosed', "A=trailing\\", "A=x\\\ny", "tab\tsep\rcr\nlf", "A=$(rm -rf ~) B=`id`",
    "A=\u00a0nbsp", "'it'\"'\"'s'", '"a\\nb"', "#not-a-comment x",
])
def test_known_lines_split_as_shlex_splits_them(line):
    assert ours(line) == shlex_words(line)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab =\t\n'\"\\$#`;\u00a0é")), max_size=40))
def test_any_line_splits_as_shlex_splits_it(line):
    assert ours(line) == shlex_words(line)


def test_splitting_grows_linearly_with_the_line():
    """Doubling a 200,000-character value twice costs about 4× (shlex: about 16×). A ratio in one run, not a time."""
    def cost(length: int) -> float:
        line = "A='" + "v" * length + "' B=" + "w" * length
        start = time.process_time()  # this process's CPU: other work on a busy machine does not count
        split_words(line)
        return time.process_time() - start

    pairs = [(cost(200_000), cost(800_000)) for _ in range(5)]  # alternating, so a busy moment hits both sizes
    small, large = min(pair[0] for pair in pairs), min(pair[1] for pair in pairs)
    assert large < 10 * small, (small, large)
