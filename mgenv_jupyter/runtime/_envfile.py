"""Dotenv files in and out: `%envload` reads one, `%envexport` writes the kernel's variables as dotenv, shell or JSON.

What is exported is data, never code: sourcing it (`set -a; . FILE` in bash or sh) runs nothing, and every value in
it reads back exactly, in bash, in dash and in python-dotenv. A value that dotenv cannot carry that way is left out
with a comment saying why (the shell and JSON formats carry every value). Secrets are never exported in clear.

What is loaded is bounded: a regular file of at most 1 MiB of UTF-8 (a pipe or a device is refused without waiting
on it), parsed by python-dotenv with no interpolation (`${X}` in a file stays `${X}`).
"""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base._errors import InvalidValueError
from ..base._quoting import quoted
from ..base._regular_files import read_text_file
from ..catalog._options import keyword_options
from ..catalog._secrets import MASK, is_secret
from ._environ_limits import is_variable_name

if TYPE_CHECKING:
    from . import EnvSession

FORMATS = ("dotenv", "shell", "json")
# Characters that mean the same unquoted to bash, dash and python-dotenv (no ~, which a shell expands, and no
# whitespace, #, quotes or $).
_PLAIN = re.compile(r"[A-Za-z0-9_./:,+@%=-]+")
_LEADING_SPACE = re.compile(r"\s*")
# python-dotenv takes about 20 µs per setting or comment, and time quadratic in a run of blanks inside an unquoted
# value: these bounds keep reading any file under the size limit to a fraction of a second.
MAX_ENTRIES = 10_000
MAX_BLANK_RUN = 128
_BLANKS = re.compile(r"[^\S\n]+")
_USE_OTHER_FORMAT = "use %envexport --format shell or --format json to export it"


# ---- reading -------------------------------------------------------------------------------------------------------

def unquote(value: str) -> str:
    """Remove one pair of matching single or double quotes around a value."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_dotenv(text: str, origin: str = "file") -> list[tuple[str, str]]:
    """The NAME=VALUE pairs of dotenv text, read as python-dotenv reads them (quotes, escapes in double quotes,
    `export ` prefixes, # comments), without interpolation: `${X}` stays as written.

    A line python-dotenv cannot read, a NAME without `=` or a name that is not letters, digits and underscores raises
    `InvalidValueError` naming the line's number; the line itself is never quoted (it may hold a secret).
    """
    # python-dotenv opens files with universal newlines; reading the same text the same way keeps `%envload` and
    # `dotenv_values` in agreement.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for blanks in _BLANKS.finditer(text):
        if len(blanks.group()) > MAX_BLANK_RUN:
            number = text.count("\n", 0, blanks.start()) + 1
            raise InvalidValueError(f"{origin} line {number} has over {MAX_BLANK_RUN} blanks (spaces, tabs) in a row, "
                                    "more than a dotenv file is read with; nothing was changed")
    from dotenv.parser import parse_stream  # on first use: `%load_ext` does not need python-dotenv

    pairs = []
    for count, binding in enumerate(parse_stream(io.StringIO(text)), start=1):
        if count > MAX_ENTRIES:
            raise InvalidValueError(f"{origin} has over {MAX_ENTRIES:,} settings and comments, more than is read; "
                                    "nothing was changed")
        # A binding starts where the previous one ended, blank lines included: its own line is after them.
        leading = _LEADING_SPACE.match(binding.original.string)
        number = binding.original.line + (leading.group().count("\n") if leading else 0)
        where = f"{origin} line {number}"
        if binding.error:
            raise InvalidValueError(f"{where} is not NAME=VALUE as dotenv reads it (an unclosed quote, or text after "
                                    "a closing quote?); nothing was changed")
        if binding.key is None:
            continue
        if binding.value is None:
            raise InvalidValueError(f"{where} has no '=': write NAME=VALUE, # for comments; nothing was changed")
        if not is_variable_name(binding.key):
            raise InvalidValueError(f"{where}: a name is letters, digits and underscores, not starting with a digit; "
                                    "nothing was changed")
        pairs.append((binding.key, binding.value))
    return pairs


def read_dotenv(path: Path) -> list[tuple[str, str]]:
    """The NAME=VALUE pairs of a dotenv file (see `read_text_file` for what files are read, `parse_dotenv` for how)."""
    return parse_dotenv(read_text_file(path), origin=quoted(str(path)))


# ---- writing -------------------------------------------------------------------------------------------------------

def exported_values(session: EnvSession, everything: bool) -> dict[str, str | None]:
    """The variables changed through the session that differ from the kernel's start (None = unset since start);
    with `everything`, every change since the kernel started (its own start-up variables included) and every catalog
    variable that is set."""
    changes = session.environ_changes()
    if not everything:
        return {name: changes[name][1] for name in sorted(session.changed_through_session()) if name in changes}
    values = {name: after for name, (_, after) in changes.items()}
    for entry in session.catalog:
        if entry.is_env and entry.name in session.environ:
            values[entry.name] = session.environ[entry.name]
    return dict(sorted(values.items()))


def export(session: EnvSession, fmt: str = "dotenv", everything: bool = False) -> str:
    """The variables changed through the session (see `exported_values` for what `everything` adds) as text.

    `dotenv`: NAME=VALUE lines that bash, dash and python-dotenv all read back exactly; a value that cannot be written
    so (it contains `${` or a carriage return, or mixes `$` or a backtick with `'` or `\\`) is left out with a comment.
    `shell`: `export NAME=VALUE` and `unset NAME` lines for bash or sh, every value exactly. `json`: an object with
    `environment` (null for unset) and the keyword options (Ascend's `npu_run_config`). Secrets (by name or by the
    shape of the value) are never exported in clear: a comment in dotenv and shell, the mask in JSON.
    """
    if fmt not in FORMATS:
        raise InvalidValueError(f"unknown format {quoted(fmt)}: use one of {', '.join(FORMATS)}")
    values = exported_values(session, everything)
    if fmt == "json":
        return _json(values, session.chosen_options())
    lines = [_line(name, value, fmt) for name, value in values.items()]
    return "\n".join(lines) + ("\n" if lines else "")


def _line(name: str, value: str | None, fmt: str) -> str:
    """One line of a dotenv or shell export; a comment (never carrying the value) when the value is not written."""
    if not is_variable_name(name):
        # ascii(): the name may hold a newline or a line separator, which would end the comment early.
        return f"# a variable whose name is not a shell name was not exported: {ascii(name)[:60]}"
    if value is None:
        return f"unset {name}" if fmt == "shell" else f"# {name} was unset"
    if is_secret(name, value):
        return f"# {name} is a secret and is not exported"
    if not is_unicode(value):
        return f"# {name} is not exported: its value is not valid Unicode text (bytes that are not UTF-8)"
    if fmt == "shell":
        return f"export {name}={shlex.quote(value)}"
    written = dotenv_value(value)
    if written is None:
        return f"# {name} is not exported: {why_not_dotenv(value)}; {_USE_OTHER_FORMAT}"
    return f"{name}={written}"


def dotenv_value(value: str) -> str | None:
    """`value` as dotenv text that bash, dash and python-dotenv (interpolating, as by default) all read back exactly;
    None when no such text exists."""
    if "\r" in value or "${" in value or _too_many_blanks(value):
        return None
    if _PLAIN.fullmatch(value):
        return value
    # In single quotes shells take every character literally, and python-dotenv decodes only \\ and \'.
    if "'" not in value and "\\\\" not in value and not value.endswith("\\"):
        return f"'{value}'"
    # In double quotes both decode \\ and \"; shells would expand $ and backticks.
    if "$" not in value and "`" not in value:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return None


def why_not_dotenv(value: str) -> str:
    """Why `dotenv_value(value)` is None, in words (never quoting the value)."""
    if "\r" in value:
        return "its value holds a carriage return, which dotenv readers turn into a newline"
    if "${" in value:
        return "its value holds '${', which dotenv readers replace with another variable's value"
    if _too_many_blanks(value):
        return f"its value has over {MAX_BLANK_RUN} blanks in a row, more than %envload reads"
    return ("its value mixes $ or ` (which shells expand in double quotes) with ' or \\ (which dotenv readers "
            "decode in single quotes)")


def _too_many_blanks(value: str) -> bool:
    return any(len(blanks.group()) > MAX_BLANK_RUN for blanks in _BLANKS.finditer(value))


def _json(values: dict[str, str | None], options: dict[str, Any]) -> str:
    environment: dict[str, str | None] = {}
    left_out: dict[str, str] = {}
    for name, value in values.items():
        if value is not None and not is_unicode(value):
            left_out[name] = "its value is not valid Unicode text (bytes that are not UTF-8)"
        else:
            environment[name] = MASK if value is not None and is_secret(name, value) else value
    shown = {k: MASK if isinstance(v, str) and is_secret(k, v) else v for k, v in options.items()}
    document: dict[str, Any] = {"environment": environment, keyword_options().export_key: shown}
    if left_out:
        document["left_out"] = left_out
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def is_unicode(value: str) -> bool:
    """False for a value holding lone surrogates (os.environ's stand-ins for bytes that are not UTF-8)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
