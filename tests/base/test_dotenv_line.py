"""The three ways of setting a value — `%envset NAME=VALUE`, a `%%envset` cell and a file loaded with `%envload` —
read the same text the same way (as python-dotenv reads a value: quotes, backslashes, `#`), or the line refuses it
and changes nothing. Issue 29, point 12: the one-line form used to drop backslashes (`C:\\temp\\new` became
`C:tempnew`) while the cell and the file kept them."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError

from mgenv_jupyter.base._dotenv_line import line_value, parse_line
from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.runtime._envfile import parse_dotenv


def three_ways(ip, tmp_path, text: str) -> list[str | None]:
    """What `V=<text>` sets through the line, the cell and a file (None: refused)."""
    found: list[str | None] = []
    path = tmp_path / "values.env"
    path.write_text(f"MGENV_TEST_V={text}\n", encoding="utf-8")
    for run in (lambda: ip.run_line_magic("envset", f"MGENV_TEST_V={text}"),
                lambda: ip.run_cell_magic("envset", "", f"MGENV_TEST_V={text}\n"),
                lambda: ip.run_line_magic("envload", f"--force {path}")):
        os.environ.pop("MGENV_TEST_V", None)
        try:
            run()
        except UsageError:
            assert "MGENV_TEST_V" not in os.environ, "a refused value changed the environment"
            found.append(None)
        else:
            found.append(os.environ["MGENV_TEST_V"])
    return found


@pytest.mark.parametrize(("text", "value"), [
    ("C:\\temp\\new", "C:\\temp\\new"),  # the example: backslashes kept, as typed
    ("'C:\\temp\\new'", "C:\\temp\\new"),  # single quotes keep them too
    ('"C:\\\\temp\\\\new"', "C:\\temp\\new"),  # double quotes decode \\ as python-dotenv does
    ('"tab\\there"', "tab\there"),
    ("'two words'", "two words"),
    ('"say \\"hi\\""', 'say "hi"'),
    ("a#b", "a#b"),  # no space before it: # is part of the value
    ("1 # a comment", "1"),
    ("$HOME", "$HOME"),  # never expanded
    ("", ""),
])
def test_the_line_the_cell_and_a_file_read_a_value_alike(ip, tmp_path, text, value):
    assert three_ways(ip, tmp_path, text) == [value, value, value]


@pytest.mark.parametrize(("line", "said"), [
    ("MGENV_TEST_V='open", "opens a quote that is not closed"),
    ('MGENV_TEST_V="x"y', "text right after its closing quote"),
    ("MGENV_TEST_V=two words", "'words' is not NAME=VALUE"),
])
def test_what_the_line_cannot_read_is_refused_with_a_reason_and_changes_nothing(ip, line, said):
    with pytest.raises(UsageError, match=said):
        ip.run_line_magic("envset", line)
    assert "MGENV_TEST_V" not in os.environ


def test_a_comment_and_options_on_the_line(ip):
    ip.run_line_magic("envset", "--force MGENV_TEST_V=1 MGENV_TEST_W='x y'  # both, as one batch")
    assert (os.environ["MGENV_TEST_V"], os.environ["MGENV_TEST_W"]) == ("1", "x y")


# Text a user may type after NAME= (no newline: a line magic has none).
typed = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\n\r"), max_size=24)


@settings(max_examples=400, deadline=None)
@given(text=typed)
def test_whatever_the_line_reads_a_file_reads_the_same(text):
    try:
        options, pairs = parse_line(f"V={text}")
    except InvalidValueError:
        return  # refused, with a message: allowed
    if options or len(pairs) != 1:
        return  # the text held more words: not one value
    assert parse_dotenv(f"V={text}") == pairs


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=24))
def test_a_value_written_for_the_line_reads_back_exactly_there_in_a_cell_and_in_a_file(value):
    written = line_value(value)
    assert parse_line(f"V={written}") == ([], [("V", value)])
    assert parse_dotenv(f"V={written}\n") == [("V", value)]
