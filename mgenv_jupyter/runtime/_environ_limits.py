"""What the operating system lets one environment variable, and the whole environment, hold.

Linux refuses to start any program whose environment holds a single "NAME=VALUE" string over 128 KiB
(MAX_ARG_STRLEN), or whose arguments and environment together pass ARG_MAX: after such a value is set, every `!cmd`
and `subprocess` fails with "Argument list too long". So every value is checked before anything is written, and a
batch that would leave the environment too big to start a program is refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..base._errors import InvalidValueError
from ..base._text import Text

# A safe cap for one "NAME=VALUE": a quarter of Linux's 128 KiB limit, and within Windows' 32767 characters.
MAX_VARIABLE_BYTES = 32 * 1024
# Room kept for a program's own arguments (a long `pip install ...` line, a compiler's flags).
ARGUMENT_ROOM_BYTES = 256 * 1024
_POINTER_BYTES = 8  # each variable also costs one pointer in envp
_FALLBACK_ARG_MAX = 2 * 1024 * 1024
# Why a value cannot be stored, in the language of the moment; the value itself is never quoted (it may be a secret).
NUL_VALUE = Text("{name}: the value contains a NUL character, which no environment can hold",
                 "{name}:取值中含有 NUL 字符,任何环境变量都存不下它")
UNENCODABLE = Text("{name}: the value cannot be encoded for the environment (it contains a lone surrogate such as "
                   "\\ud800); use valid Unicode text",
                   "{name}:取值无法编码进环境变量(其中有 \\ud800 这样落单的代理字符);请使用有效的 Unicode 文本")
TOO_LONG = Text("{name}: NAME=VALUE is {size:,} bytes; one variable may hold at most {limit} KiB here (Linux refuses "
                "any over 128 KiB, and then no program can be started from this kernel)",
                "{name}:NAME=VALUE 共 {size:,} 字节;这里单个变量最多 {limit} KiB(Linux 拒绝超过 128 KiB 的变量,"
                "一旦有这样的变量,本内核就无法再启动任何程序)")


def is_variable_name(name: str) -> bool:
    """A name every shell can export and every dotenv file can hold: ASCII letters, digits and underscores, not
    starting with a digit ([A-Za-z_][A-Za-z0-9_]*; asked on every change, so without a pattern)."""
    return name.isascii() and name.isidentifier()


def check_variable(name: str, value: str) -> int:
    """Raise `InvalidValueError` unless `value` can be stored in the environment; else what the variable costs a
    program's start (`variable_bytes`). The message names the variable and the problem, never the value (it may be a
    secret)."""
    if "\x00" in value:
        raise InvalidValueError(NUL_VALUE.get().format(name=name))
    try:
        size = _encoded_length(name) + _encoded_length(value) + 1
    except UnicodeEncodeError:
        raise InvalidValueError(UNENCODABLE.get().format(name=name)) from None
    if size > MAX_VARIABLE_BYTES:
        raise InvalidValueError(TOO_LONG.get().format(name=name, size=size, limit=MAX_VARIABLE_BYTES // 1024))
    return size + 1 + _POINTER_BYTES


def variable_bytes(name: str, value: str) -> int:
    """What one variable costs a program's start: "NAME=VALUE", its NUL and its pointer."""
    return _encoded_length(name) + _encoded_length(value) + 2 + _POINTER_BYTES


def _encoded_length(text: str) -> int:
    """Bytes of `text` in the environment: its length when ASCII (checked in constant time, the common case),
    else what the file-system encoding makes of it (UnicodeEncodeError for a lone surrogate)."""
    return len(text) if text.isascii() else len(os.fsencode(text))


def environment_bytes(environ: Mapping[str, str]) -> int:
    """What the whole environment costs a program's start. Asked by every change that grows it, so `os.environ` is
    summed in C over the encoded bytes it keeps (`_data`, as a program receives them: 2 µs, where decoding every
    variable back to text took 33 µs for 35 variables); any other mapping is encoded variable by variable."""
    data = getattr(environ, "_data", None) if environ is os.environ and os.name == "posix" else None
    if isinstance(data, dict):
        return sum(map(len, data)) + sum(map(len, data.values())) + len(data) * (2 + _POINTER_BYTES)
    return sum(variable_bytes(name, value) for name, value in environ.items())


def arg_max() -> int:
    """The kernel's limit on arguments plus environment for a new program (ARG_MAX)."""
    try:
        value = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError, AttributeError):  # not POSIX, or not known
        return _FALLBACK_ARG_MAX
    return value if value > 0 else _FALLBACK_ARG_MAX


def environment_budget() -> tuple[int, int]:
    """(bytes at which to warn, bytes past which no program could start with room for its arguments)."""
    limit = max(arg_max() - ARGUMENT_ROOM_BYTES, MAX_VARIABLE_BYTES)
    return limit // 2, limit
