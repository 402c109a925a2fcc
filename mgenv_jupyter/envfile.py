"""Reading dotenv files and exporting the kernel's variables as dotenv, shell or JSON (secrets masked)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InvalidValueError
from .runtime.outcome import MASK, is_secret

if TYPE_CHECKING:
    from .runtime import EnvSession

FORMATS = ("dotenv", "shell", "json")
_LINE = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


def unquote(value: str) -> str:
    """Remove one pair of matching single or double quotes around a value."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_dotenv(text: str, origin: str = "file") -> list[tuple[str, str]]:
    """NAME=VALUE lines (an `export ` prefix is allowed); blank lines and # comments are skipped."""
    pairs = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            raise InvalidValueError(f"{origin} line {number}: {line!r} is not NAME=VALUE (nothing was changed)")
        pairs.append((match.group(1), unquote(match.group(2).strip())))
    return pairs


def read_dotenv(path: Path) -> list[tuple[str, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # must come first: it is a ValueError too
        raise InvalidValueError(f"{path} is not UTF-8 text") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise InvalidValueError(f"cannot read {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_dotenv(text, origin=str(path))


def exported_values(session: EnvSession, everything: bool) -> dict[str, str | None]:
    """Changed variables (None = unset since start); with `everything`, every catalog variable that is set too."""
    values = {name: after for name, (_, after) in session.environ_changes().items()}
    if everything:
        for entry in session.catalog:
            if entry.is_env and entry.name in session.environ:
                values[entry.name] = session.environ[entry.name]
    return dict(sorted(values.items()))


def export(session: EnvSession, fmt: str = "dotenv", everything: bool = False) -> str:
    if fmt not in FORMATS:
        raise InvalidValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    values = exported_values(session, everything)
    if fmt == "json":
        environment = {k: (MASK if is_secret(k) and v is not None else v) for k, v in values.items()}
        return json.dumps({"environment": environment,
                           "npu_run_config": session.npu_run_config_kwargs()}, indent=2, ensure_ascii=False) + "\n"
    lines = []
    for name, value in values.items():
        if is_secret(name) and value is not None:
            lines.append(f"# {name} is a secret and is not exported")
        elif value is None:
            lines.append(f"unset {name}" if fmt == "shell" else f"# {name} was unset")
        elif fmt == "shell":
            lines.append(f"export {name}={shlex.quote(value)}")
        else:
            lines.append(f"{name}={_dotenv_quote(value)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _dotenv_quote(value: str) -> str:
    if value and re.fullmatch(r"[A-Za-z0-9_./:,+@%-]+", value):
        return value
    return "'" + value + "'" if "'" not in value else '"' + value.replace('"', '\\"') + '"'
