"""A value on a magic's line, read and written as python-dotenv reads a value in a `.env` file: the one reading that
`%envset NAME=VALUE`, a `%%envset` cell and `%envload`'s file share (the cell and the file are python-dotenv's format
outright, runtime/_envfile.py), and the way the warnings write a line for the user to run (`line_value`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

from ._errors import InvalidValueError

# `%envset A=1 B='two words' C="tab\\there"  # a comment`: each word is NAME=VALUE, its value read as python-dotenv
# reads a value; whitespace ends an unquoted value (so a value with spaces is quoted), and a word starting with # ends
# the line. Each piece starts with a different character, so a line is scanned once, without backtracking.
_LINE_PIECES = re.compile(
    r"""(?P<space>\s+)
      | (?P<comment>\#.*)
      | (?P<option>-\S*)
      | (?P<name>[^\s=]*)=(?P<value>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|['"]|[^\s'"]\S*|)(?P<after>\S*)
      | (?P<word>\S+)
    """,
    re.VERBOSE | re.DOTALL,
)
_BARE = re.compile(r"[^\s'\"\x00-\x1f\x7f][^\s\x00-\x1f\x7f]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DOUBLE_QUOTED = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a", "\b": "\\b",
                  "\f": "\\f", "\v": "\\v"}
NOT_AN_ASSIGNMENT = ("{word} is not NAME=VALUE: write each assignment as NAME=VALUE, and quote a value with spaces "
                     "('two words')")
UNCLOSED_QUOTE = ("the value of {name} opens a quote that is not closed: close every quote you open (\"...\" or "
                  "'...'); nothing was changed")
TEXT_AFTER_QUOTE = ("the value of {name} has text right after its closing quote: quote the whole value, or leave a "
                    "space before the next NAME=VALUE; nothing was changed")


def parse_line(line: str, describe: Callable[[str, int], str] = lambda word, position: f"word {position}",
               ) -> tuple[list[str], list[tuple[str, str]]]:
    """The options (words starting with '-') and the NAME=VALUE assignments of a one-line `%envset`, each value read as
    python-dotenv reads a value in a file (and `%%envset` and `%envload` read it): unquoted text as written, backslashes
    and `#` inside it included (`C:\\temp\\new`); 'single quotes' keep their text (\\' and \\\\ aside); "double quotes"
    decode \\n, \\t, \\\\, \\" and the like. A word starting with # begins a comment. A word that is not NAME=VALUE, an
    unclosed quote, or text glued to a closing quote raises `InvalidValueError`; the value is never quoted back, and
    `describe(text, position)` says how a name or word is shown (it may be a secret typed without its NAME=)."""
    options: list[str] = []
    pairs: list[tuple[str, str]] = []
    if "'" not in line and '"' not in line and "#" not in line and "-" not in line:  # most lines: words as written
        for position, word in enumerate(line.split(), start=1):
            name, sep, value = word.partition("=")
            if not sep:
                raise InvalidValueError(NOT_AN_ASSIGNMENT.format(word=describe(word, position)))
            pairs.append((name, value))
        return options, pairs
    position = 0
    for piece in _LINE_PIECES.finditer(line):
        kind = piece.lastgroup
        if kind == "space":
            continue
        if kind == "comment":
            break
        position += 1
        if kind == "option":
            options.append(piece.group())
            continue
        if kind == "word":
            raise InvalidValueError(NOT_AN_ASSIGNMENT.format(word=describe(piece.group(), position)))
        name, value = piece.group("name"), piece.group("value")
        shown_name = describe(name, position)
        if value in ("'", '"'):
            raise InvalidValueError(UNCLOSED_QUOTE.format(name=shown_name))
        if piece.group("after"):
            raise InvalidValueError(TEXT_AFTER_QUOTE.format(name=shown_name))
        pairs.append((name, _dotenv_value(shown_name, value) if value[:1] in ("'", '"') else value))
    return options, pairs


def _dotenv_value(shown_name: str, text: str) -> str:
    """A quoted value decoded by python-dotenv itself, so the line means what the same text means in a file."""
    from dotenv.parser import parse_stream  # on first use: `%load_ext` does not need python-dotenv

    bindings = [b for b in parse_stream(io.StringIO(f"V={text}")) if b.key is not None or b.error]
    if len(bindings) != 1 or bindings[0].error or bindings[0].value is None:  # cannot happen for the pieces above
        raise InvalidValueError(UNCLOSED_QUOTE.format(name=shown_name))
    return bindings[0].value


def line_value(value: str) -> str:
    """`value` written for a one-line `%envset` (`parse_line` reads it back exactly): as it is when it has no blank or
    control character and starts with no quote; else in 'single quotes' when it holds no quote, backslash or control
    character; else in "double quotes" with python-dotenv's escapes."""
    if _BARE.fullmatch(value):
        return value
    if "'" not in value and "\\" not in value and not _CONTROL.search(value):
        return f"'{value}'"
    return '"' + "".join(_DOUBLE_QUOTED.get(char, char) for char in value) + '"'
