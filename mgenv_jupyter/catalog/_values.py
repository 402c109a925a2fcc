"""Value types: parse what a user typed, normalise it to what the framework actually reads, or say what is allowed.

Every type turns user input (a string from a magic, or a Python value from a widget or the API) into a `Parsed`:
the text that goes into the environment, the typed value for the framework's live API (or an `NPURunConfig` keyword),
and notes telling the user what was normalised. Bad input raises `InvalidValueError` naming what is allowed.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, ClassVar

from ..base._errors import InvalidValueError
from ..base._quoting import quoted
from ..base._text import Message, Text, localised, message

KiB = 1024
MiB = 1024**2
GiB = 1024**3
TiB = 1024**4
# The one notation of sizes wherever one is shown or chosen — the magics' messages, the widgets' and the sidebar's unit
# lists, the chart (schema.ts carries both tables to the front end): binary units written as such, 1024-based as the
# frameworks count. Input also takes the frameworks' own spellings, read the same way (MegEngine's "5GB" is 5 GiB).
SIZE_UNITS = (("B", 1), ("KiB", KiB), ("MiB", MiB), ("GiB", GiB), ("TiB", TiB))
# How many decimals a shown size keeps: two below 10 of its unit, one below 100, none from there on.
SIZE_DECIMALS = ((10, 2), (100, 1))

_FALSE_WORDS = frozenset({"0", "false", "off", "no", "n", "f"})
_TRUE_WORDS = frozenset({"1", "true", "on", "yes", "y", "t"})


@dataclass(frozen=True)
class Parsed:
    """A validated value: `text` for the environment, `value` for Python APIs, `notes` for the user (each said in
    the language of the moment it is shown)."""

    text: str
    value: Any
    notes: tuple[Message, ...] = ()


def _as_text(raw: object) -> str:
    if isinstance(raw, str):  # what a magic, a file and the sidebar send: asked first
        return raw.strip()
    if isinstance(raw, bool):
        return "1" if raw else "0"
    if isinstance(raw, (int, float, str)):
        return str(raw).strip()
    raise InvalidValueError(NOT_TEXT.get().format(kind=type(raw).__name__))


def _bad(raw: object, allowed: str) -> InvalidValueError:
    return InvalidValueError(NOT_ALLOWED.get().format(given=quoted(raw), allowed=allowed))


class ValueType:
    """Base of all value types. `kind` names the editor a front end should draw."""

    kind: ClassVar[str] = "text"
    # True for a type whose values are numbers, switches or a fixed set of words: nothing that can name a file or a
    # program (what an entry that did not decide `loads_code` is judged by).
    closed: ClassVar[bool] = False

    def parse(self, raw: object) -> Parsed:
        raise NotImplementedError

    def allowed(self) -> str:
        """What is allowed, in words, for messages and help."""
        raise NotImplementedError

    def choices(self) -> tuple[str, ...]:
        """Values worth offering in completion and dropdowns."""
        return ()

    def shown(self, text: str) -> str:
        """A value the environment holds, as it is shown to a user: as it is, except a size, which is written in the
        one notation of sizes ("5 GiB" for "5368709120"; the text itself stays what is stored, exported and sent)."""
        return text

    def describe(self) -> dict[str, Any]:
        """JSON-ready description for front ends (widgets, sidebar)."""
        return {"kind": self.kind, "allowed": self.allowed(), "choices": list(self.choices())}


@dataclass(frozen=True)
class Switch(ValueType):
    """A 0/1 switch. Accepts 0/1, true/false, on/off, yes/no; writes `on`/`off` as the framework spells them."""
    closed: ClassVar[bool] = True

    on: str = "1"
    off: str = "0"
    kind: ClassVar[str] = "switch"

    def parse(self, raw: object) -> Parsed:
        text = _as_text(raw).lower()
        if text in _TRUE_WORDS or text == self.on.lower():
            result = Parsed(self.on, True)
        elif text in _FALSE_WORDS or text == self.off.lower():
            result = Parsed(self.off, False)
        else:
            raise _bad(raw, self.allowed())
        if text not in (self.on.lower(), self.off.lower()):
            return Parsed(result.text, result.value,
                          (message(NORMALISED, given=quoted(text), shown=quoted(result.text)),))
        return result

    def allowed(self) -> str:
        return ALLOWED_SWITCH.get().format(on=self.on, off=self.off)

    def choices(self) -> tuple[str, ...]:
        return (self.on, self.off)


@dataclass(frozen=True)
class Presence(ValueType):
    """A flag the framework treats as ON whenever the variable exists, whatever its value ("0" included)."""
    closed: ClassVar[bool] = True

    empty_is_off: bool = False
    kind: ClassVar[str] = "presence"

    def parse(self, raw: object) -> Parsed:
        text = _as_text(raw)
        if text.lower() in _FALSE_WORDS or (text == "" and not self.empty_is_off):
            return Parsed(text, True, (message(PRESENCE_ON_ANYWAY, given=quoted(text)),))
        if text == "":
            return Parsed("", False, (message(PRESENCE_EMPTY_OFF),))
        return Parsed(text, True)

    def allowed(self) -> str:
        return ALLOWED_PRESENCE.get()

    def choices(self) -> tuple[str, ...]:
        return ("1",)


# Matched in full against stripped text: blanks around a size are stripped first, since `\s*…\s*$` around an
# optional unit backtracks quadratically over a run of blanks.
_SIZE_RE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([kmgt](?:i?b)?|b)?", re.IGNORECASE)
_SIZE_UNITS = {"b": 1, "k": KiB, "m": MiB, "g": GiB, "t": TiB}
_UNIT_NAMES = {1: "bytes", KiB: "KiB", MiB: "MiB", GiB: "GiB"}

# What a value became, said under %envset and in the sidebar in the language of the moment.
NORMALISED = Text("{given} normalised to {shown}", "{given} 已规范为 {shown}")
NORMALISED_SIZE = Text("{given} normalised to {count} {unit} ({size}), the plain number the framework reads",
                       "{given} 已换算为 {count} {unit}({size}),即框架读取的纯数字")
EXPANDED = Text("{given} expanded to {shown}", "{given} 已展开为 {shown}")
BYTES = Text("bytes", "字节")
# What a value type allows, in the language of the moment (%envset's errors, the sidebar's "allowed" line).
ALLOWED_SWITCH = Text("{on} (on) or {off} (off); true/false, on/off, yes/no are accepted",
                      "{on}(开)或 {off}(关);也接受 true/false、on/off、yes/no")
ALLOWED_PRESENCE = Text("any value turns it ON (even 0); unset the variable to turn it off",
                        "任何值都会开启(即使是 0);删除该变量才会关闭")
ALLOWED_SIZE = Text("a whole number of {unit}{limits}, or a size with a unit such as 512 MiB or 5 GiB "
                    "(MB and GB mean the same: 1024-based)",
                    "{unit}数的整数{limits},或带单位的大小,如 512 MiB 或 5 GiB(写 MB、GB 也一样,按 1024 换算)")
ALLOWED_RESERVE = Text("a size to reserve exactly (b:<bytes>, or 2 GiB, which becomes b:2147483648), "
                       "or 1/all to reserve all free memory",
                       "要精确预留的大小(b:<字节数>,或 2 GiB,会变为 b:2147483648),或 1/all 预留全部空闲显存")
ALLOWED_CHOICE = Text("one of {values}", "以下之一:{values}")
ALLOWED_INTEGER = Text("a whole number{limits}", "整数{limits}")
ALLOWED_NUMBER = Text("a number{limits}", "数字{limits}")
ALLOWED_DIRECTORY = Text("a directory path", "目录路径")
ALLOWED_FILE = Text("a file path", "文件路径")
ALLOWED_TEXT = Text("any text", "任意文本")
ALLOWED_DEVICES = Text("comma-separated device indices or UUIDs such as 0,1 or GPU-8f3…; empty hides all devices",
                       "以逗号分隔的设备序号或 UUID,如 0,1 或 GPU-8f3…;为空则隐藏所有设备")
RANGE_BOTH = Text(" from {low} to {high}", ",从 {low} 到 {high}")
RANGE_LOW = Text(" ≥ {low}", ",≥ {low}")
RANGE_FROM = Text(" from {low}", ",从 {low} 起")
ALLOWED_OPTIONAL = Text("None (framework default) or {inner}", "None(框架默认)或{inner}")
RANGE_HIGH = Text(" ≤ {high}", ",≤ {high}")
SIZE_HELP = Text("a size such as 1048576 (bytes), 512 MiB or 1.5 GiB (units B, KiB, MiB, GiB, TiB, 1024-based; "
                 "KB, MB, GB, TB mean the same)",
                 "大小,如 1048576(字节)、512 MiB 或 1.5 GiB(单位 B、KiB、MiB、GiB、TiB,按 1024 换算;"
                 "写 KB、MB、GB、TB 也一样)")
WHOLE_NUMBER_OF = Text("a whole number of {unit}", "整数个{unit}")
UNITS = Text("units", "单位")
EXAMPLES = Text(" (e.g. {examples})", "(例如 {examples})")
# Why a value was refused, in the language of the moment (%envset's UsageError, the sidebar's reason under an edit).
NOT_TEXT = Text("expected text or a number, got {kind}", "应为文本或数字,实际是 {kind}")
NOT_ALLOWED = Text("{given} is not allowed: expected {allowed}", "不接受 {given}:应为{allowed}")
NOT_ALLOWED_CHOICE = Text("{given} is not allowed{hint}: expected one of {values}",
                          "不接受 {given}{hint}:应为以下之一:{values}")
DID_YOU_MEAN = Text(" (did you mean {value}?)", "(是不是想写 {value}?)")
NOT_A_DIRECTORY = Text("{path} is a file: expected a directory", "{path} 是一个文件:这里需要目录")
NO_NUL = Text("a value cannot contain the NUL character", "取值中不能有 NUL 字符")
DEVICE_TWICE = Text("{given} names a device twice: each device may appear once",
                    "{given} 把同一设备写了两次:每个设备只能出现一次")
# What a value will do that the user may not expect (the traps), said beside the change.
PRESENCE_ON_ANYWAY = Text("this variable is ON whenever it is set, so {given} turns it ON; use %envunset to turn it "
                          "off",
                          "该变量只要存在就是开启状态,所以 {given} 同样会把它打开;要关闭请用 %envunset")
PRESENCE_EMPTY_OFF = Text("an empty value counts as off here; %envunset also turns it off",
                          "这里空值算作关闭;用 %envunset 删除变量也能关闭")
RESERVE_ALL = Text("reserves all free memory minus max(300 MiB, 5%)", "会预留全部空闲显存,仅留出 max(300 MiB, 5%)")
RESERVE_OFF_TRAP = Text("{given} does NOT turn this off: any value other than b:<bytes> reserves all free memory; "
                        "use %envunset to turn it off",
                        "{given} 并不能关闭它:除 b:<字节数> 以外,任何取值都会预留全部空闲显存;要关闭请用 %envunset")
MISSING_PATH = Text("{path} does not exist yet", "{path} 目前还不存在")
EMPTY_DEVICES = Text("an empty list hides every device", "空列表会让所有设备都不可见")


def _split_size(raw: object) -> tuple[float, int | None]:
    """(number, unit multiplier or None when no unit was written)."""
    if isinstance(raw, bool):
        raise _bad(raw, SIZE_HELP.get())
    if isinstance(raw, (int, float)):
        if not math.isfinite(raw):
            raise _bad(raw, SIZE_HELP.get())
        return float(raw), None
    match = _SIZE_RE.fullmatch(_as_text(raw))
    if not match:
        raise _bad(raw, SIZE_HELP.get())
    number, unit = match.groups()
    return float(number), (_SIZE_UNITS[unit[0].lower()] if unit else None)


def parse_size(raw: object) -> int:
    """Bytes from `5GiB`, `5GB`, `1.5 gb`, `512 MiB`, `1048576` (1024-based, as MegEngine's own parser)."""
    number, unit = _split_size(raw)
    nbytes = number * (unit or 1)
    if nbytes != int(nbytes):
        raise _bad(raw, WHOLE_NUMBER_OF.get().format(unit=BYTES.get()))
    return int(nbytes)


def format_size(n: int) -> str:
    """A short human size in binary units, written as such: 5368709120 → '5 GiB', 3361447936 → '3.13 GiB'.

    Two decimals below 10, one below 100, none above (3.13, 37.3, 512), trailing zeros dropped (SIZE_UNITS,
    SIZE_DECIMALS); the chart's front end formats sizes from the same two tables (labextension/src/chart/format.ts),
    so a line's label and the axis agree."""
    for name, unit in reversed(SIZE_UNITS[1:]):
        if abs(n) >= unit:
            value = abs(n) / unit
            digits = next((decimals for below, decimals in SIZE_DECIMALS if value < below), 0)
            # Halves round up, as JavaScript's toFixed does (Python's format would round 37.25 to 37.2).
            shown = str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
            if "." in shown:
                shown = shown.rstrip("0").rstrip(".")
            return f"{'-' if n < 0 else ''}{shown} {name}"
    return f"{n} B"


# (seconds, English, Chinese) of each unit a duration is written in, largest first.
DURATION_UNITS = ((86400, "d", "天"), (3600, "h", "小时"), (60, "min", "分钟"), (1, "s", "秒"))


def format_duration(seconds: float, zh: bool = False) -> str:
    """A duration in its largest whole unit, rounded down: 12 s, 5 min, 3 h, 2 d (in Chinese with `zh`): an idle
    time, a culling policy's wait. The front end writes the same words (labextension/src/shared/kernelUse.ts
    formatDuration), so a kernel's idle time reads alike in the sidebar, the hub's page and the server's log."""
    for unit, en, cn in DURATION_UNITS:
        if seconds >= unit or unit == 1:
            return f"{int(max(seconds, 0) // unit)} {cn if zh else en}"
    raise AssertionError("the last unit takes every duration")


# The longest whole count a size setting's text is read as (a 10**30-byte size is far past any memory); longer text
# is shown as it is, never converted (text from outside meets bounded work only).
_COUNT_RE = re.compile(r"[0-9]{1,30}")


def size_parts(nbytes: int, units: tuple[tuple[str, int], ...] = SIZE_UNITS) -> tuple[int, str]:
    """How a size setting is written as a number and a unit, everywhere one is shown or edited (the widgets' and the
    sidebar's size editors, the default lines, the tables, the profile): the largest of `units` that divides `nbytes`
    exactly, so nothing is rounded: 5368709120 → (5, "GiB"), 1536 MiB → (1536, "MiB"), 1.5 GiB → (1536, "MiB"),
    0 → (0, the first unit). A measurement is written by `format_size` instead (rounded: 3.13 GiB). `nbytes` is a
    whole count of the first unit."""
    name, factor = units[0]
    for unit_name, unit_factor in units:
        if nbytes and nbytes % unit_factor == 0:
            name, factor = unit_name, unit_factor
    return nbytes // factor, name


@dataclass(frozen=True)
class Size(ValueType):
    """A size the framework reads as a plain integer in `unit` (bytes by default). Units in input are converted."""
    closed: ClassVar[bool] = True

    unit: int = 1
    minimum: int = 0
    maximum: int | None = None
    kind: ClassVar[str] = "size"

    def parse(self, raw: object) -> Parsed:
        number, unit = _split_size(raw)
        nbytes = number * (unit or self.unit)
        unit_name = _UNIT_NAMES.get(self.unit) or UNITS.get()
        if nbytes % self.unit:
            raise _bad(raw, WHOLE_NUMBER_OF.get().format(unit=BYTES.get() if self.unit == 1 else unit_name))
        count = int(nbytes // self.unit)
        if count < self.minimum or (self.maximum is not None and count > self.maximum):
            raise _bad(raw, self.allowed())
        notes: tuple[Message, ...] = ()
        if unit is not None or str(raw).strip() != str(count):
            unit_words: str | Text = BYTES if self.unit == 1 else _UNIT_NAMES.get(self.unit) or UNITS
            notes = (message(NORMALISED_SIZE, given=quoted(str(raw).strip()), count=str(count), unit=unit_words,
                             size=self.shown(str(count))),)
        return Parsed(str(count), count, notes)

    def allowed(self) -> str:
        unit = BYTES.get() if self.unit == 1 else _UNIT_NAMES.get(self.unit) or UNITS.get()
        return ALLOWED_SIZE.get().format(unit=unit, limits=_range_words(self.minimum, self.maximum, bounded=True))

    def units(self) -> tuple[tuple[str, int], ...]:
        """The units a value can be written in: those the framework's count can hold (a count of MiB is never a
        number of KiB)."""
        return tuple((name, factor) for name, factor in SIZE_UNITS if factor >= self.unit)

    def split(self, text: str | None) -> tuple[str, str] | None:
        """The value the environment holds ("5368709120", a count of `unit`) as a number and a unit (`size_parts`):
        ("5", "GiB"). None for anything but a whole count (not set, or set outside the session as the framework
        would not read it: MegEngine reads "5GB" as 5 bytes, so it is never shown as 5 GiB)."""
        if text is None or not _COUNT_RE.fullmatch(text):
            return None
        count, unit = size_parts(int(text) * self.unit, self.units())
        return str(count), unit

    def shown(self, text: str) -> str:
        parts = self.split(text)
        return text if parts is None else f"{parts[0]} {parts[1]}"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "unit_bytes": self.unit, "min": self.minimum, "max": self.maximum}


@dataclass(frozen=True)
class ReserveMemory(ValueType):
    """MegEngine's `MGB_*_RESERVE_MEMORY`: `b:<bytes>` reserves exactly that; any other value reserves all free
    memory."""
    closed: ClassVar[bool] = True

    kind: ClassVar[str] = "reserve"

    def parse(self, raw: object) -> Parsed:
        text = _as_text(raw)
        lowered = text.lower()
        if lowered.startswith("b:"):
            nbytes = parse_size(text[2:])
            return Parsed(f"b:{nbytes}", nbytes)
        if lowered in ("all", "1", "on", "true", "yes"):
            return Parsed("1", "all", (message(RESERVE_ALL),) if lowered != "1" else ())
        if lowered in _FALSE_WORDS:
            return Parsed(text, "all", (message(RESERVE_OFF_TRAP, given=quoted(text)),))
        try:
            nbytes = parse_size(text)
        except InvalidValueError:
            raise _bad(raw, self.allowed()) from None
        return Parsed(f"b:{nbytes}", nbytes, (message(
            NORMALISED, given=quoted(text), shown=f"'b:{nbytes}' ({format_size(nbytes)})"),))

    def allowed(self) -> str:
        return ALLOWED_RESERVE.get()

    def choices(self) -> tuple[str, ...]:
        return ("1", "b:")


@dataclass(frozen=True)
class Choice(ValueType):
    """One of the framework's own spellings. Case-insensitive input is normalised; aliases map other names to values."""
    closed: ClassVar[bool] = True

    values: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...] = ()
    value_notes: tuple[tuple[str, Text], ...] = ()
    python_type: type = str
    kind: ClassVar[str] = "enum"

    def parse(self, raw: object) -> Parsed:
        text = _as_text(raw)
        folded = {v.lower(): v for v in self.values}
        folded.update({alias.lower(): value for alias, value in self.aliases})
        canonical = text if text in self.values else folded.get(text.lower())
        if canonical is None:
            close = difflib.get_close_matches(text, list(self.values), n=1, cutoff=0.6) if len(text) <= 100 else []
            hint = DID_YOU_MEAN.get().format(value=repr(close[0])) if close else ""
            raise InvalidValueError(NOT_ALLOWED_CHOICE.get().format(given=quoted(text), hint=hint,
                                                                     values=", ".join(self.values)))
        notes = [message(NORMALISED, given=quoted(text), shown=quoted(canonical))] if canonical != text else []
        notes += [message(note) for value, note in self.value_notes if value == canonical]
        return Parsed(canonical, self.python_type(canonical), tuple(notes))

    def allowed(self) -> str:
        return ALLOWED_CHOICE.get().format(values=", ".join(self.values))

    def choices(self) -> tuple[str, ...]:
        return self.values


@dataclass(frozen=True)
class Integer(ValueType):
    """A whole number in [minimum, maximum]."""
    closed: ClassVar[bool] = True

    minimum: int | None = None
    maximum: int | None = None
    kind: ClassVar[str] = "int"

    def parse(self, raw: object) -> Parsed:
        if isinstance(raw, bool):
            raise _bad(raw, self.allowed())
        text = _as_text(raw)
        if not re.fullmatch(r"[+-]?\d+", text):
            raise _bad(raw, self.allowed())
        number = int(text)
        if (self.minimum is not None and number < self.minimum) or (self.maximum is not None and number > self.maximum):
            raise _bad(raw, self.allowed())
        return Parsed(str(number), number, (message(NORMALISED, given=quoted(text), shown=str(number)),)
                      if str(number) != text else ())

    def allowed(self) -> str:
        return ALLOWED_INTEGER.get().format(limits=_range_words(self.minimum, self.maximum))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "min": self.minimum, "max": self.maximum}


@dataclass(frozen=True)
class Number(ValueType):
    """A finite real number in [minimum, maximum]."""
    closed: ClassVar[bool] = True

    minimum: float | None = None
    maximum: float | None = None
    kind: ClassVar[str] = "float"

    def parse(self, raw: object) -> Parsed:
        if isinstance(raw, bool):
            raise _bad(raw, self.allowed())
        text = _as_text(raw)
        try:
            number = float(text)
        except ValueError:
            raise _bad(raw, self.allowed()) from None
        if not math.isfinite(number):
            raise _bad(raw, self.allowed())
        if (self.minimum is not None and number < self.minimum) or (self.maximum is not None and number > self.maximum):
            raise _bad(raw, self.allowed())
        return Parsed(text if isinstance(raw, str) else repr(number), number)

    def allowed(self) -> str:
        return ALLOWED_NUMBER.get().format(limits=_range_words(self.minimum, self.maximum))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "min": self.minimum, "max": self.maximum}


def _range_words(low: float | None, high: float | None, bounded: bool = False) -> str:
    """" from 1 to 8", " ≥ 0"...; `bounded`: a lower bound alone is said "from 1" (a size's count)."""
    if low is not None and high is not None:
        return RANGE_BOTH.get().format(low=low, high=high)
    if low is not None:
        return (RANGE_FROM if bounded else RANGE_LOW).get().format(low=low)
    if high is not None:
        return RANGE_HIGH.get().format(high=high)
    return ""


@dataclass(frozen=True)
class Pattern(ValueType):
    """Text matching a regular expression (device strings and the like); input is lower-cased when `lower`."""

    regex: str
    description: str | Text  # what the pattern stands for, in words (a Text in the catalog's data)
    examples: tuple[str, ...] = ()
    lower: bool = False
    kind: ClassVar[str] = "pattern"
    # Compiled once: every %envset of a device name matched through re's cache, a microsecond each time.
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.regex))

    def parse(self, raw: object) -> Parsed:
        text = _as_text(raw)
        candidate = text.lower() if self.lower else text
        if not self.compiled.fullmatch(candidate):
            raise _bad(raw, self.allowed())
        notes = (message(NORMALISED, given=quoted(text), shown=quoted(candidate)),) if candidate != text else ()
        return Parsed(candidate, candidate, notes)

    def allowed(self) -> str:
        examples = EXAMPLES.get().format(examples=", ".join(self.examples)) if self.examples else ""
        return localised(self.description) + examples

    def choices(self) -> tuple[str, ...]:
        return self.examples

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "regex": self.regex}


def flag_tokens(text: str) -> Iterator[tuple[str, str | None]]:
    """The flags of a flag string (XLA_FLAGS, TF_XLA_FLAGS, LIBTPU_INIT_ARGS): each whitespace-separated word that
    starts with `-`, as (name without its dashes, value after the first `=` or None). Other words are not flags."""
    for word in text.split():
        if word.startswith("-"):
            flag, equals, value = word.lstrip("-").partition("=")
            yield flag, value if equals else None


@dataclass(frozen=True)
class FileSystemPath(ValueType):
    """A file-system path; `~` is expanded. A missing path is allowed (it may be created later) but noted."""

    directory: bool = True
    kind: ClassVar[str] = "path"

    def parse(self, raw: object) -> Parsed:
        text = _as_text(raw)
        if not text or "\x00" in text:
            raise _bad(raw, self.allowed())
        expanded = os.path.expanduser(text)
        notes = [message(EXPANDED, given=quoted(text), shown=quoted(expanded))] if expanded != text else []
        if not os.path.exists(expanded):
            notes.append(message(MISSING_PATH, path=expanded))
        elif self.directory and not os.path.isdir(expanded):
            raise InvalidValueError(NOT_A_DIRECTORY.get().format(path=quoted(expanded)))
        return Parsed(expanded, expanded, tuple(notes))

    def allowed(self) -> str:
        return (ALLOWED_DIRECTORY if self.directory else ALLOWED_FILE).get()


@dataclass(frozen=True)
class FreeText(ValueType):
    """Any text without NUL characters (the environment cannot hold them)."""

    kind: ClassVar[str] = "text"

    def parse(self, raw: object) -> Parsed:
        text = raw if isinstance(raw, str) else _as_text(raw)
        if "\x00" in text:
            raise InvalidValueError(NO_NUL.get())
        return Parsed(text, text)

    def allowed(self) -> str:
        return ALLOWED_TEXT.get()


@dataclass(frozen=True)
class DeviceList(ValueType):
    """`CUDA_VISIBLE_DEVICES`-style lists: comma-separated indices or GPU UUIDs; empty hides every device."""
    closed: ClassVar[bool] = True

    kind: ClassVar[str] = "devices"
    _item: ClassVar[re.Pattern[str]] = re.compile(r"^(\d+|(GPU|MIG)-[0-9A-Za-z/-]+)$")

    def parse(self, raw: object) -> Parsed:
        text = _as_text(raw)
        if text == "":
            return Parsed("", [], (message(EMPTY_DEVICES),))
        items = [item.strip() for item in text.split(",")]
        if not all(self._item.match(item) for item in items):
            raise _bad(raw, self.allowed())
        normalised = ",".join(items)
        if len(set(items)) != len(items):
            raise InvalidValueError(DEVICE_TWICE.get().format(given=quoted(text)))
        notes = (message(NORMALISED, given=quoted(text), shown=quoted(normalised)),) if normalised != text else ()
        return Parsed(normalised, items, notes)

    def allowed(self) -> str:
        return ALLOWED_DEVICES.get()


@dataclass(frozen=True)
class OptionalOf(ValueType):
    """An `NPURunConfig` keyword whose default is None: `None` (or empty) means "leave it to the framework"."""

    inner: ValueType = field(default_factory=FreeText)
    kind: ClassVar[str] = "optional"

    @property
    def closed(self) -> bool:  # type: ignore[override]
        return self.inner.closed

    def parse(self, raw: object) -> Parsed:
        if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "none")):
            return Parsed("None", None)
        return self.inner.parse(raw)

    def allowed(self) -> str:
        return ALLOWED_OPTIONAL.get().format(inner=self.inner.allowed())

    def choices(self) -> tuple[str, ...]:
        return self.inner.choices()

    def shown(self, text: str) -> str:
        return self.inner.shown(text)

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "optional": True, "allowed": self.allowed()}
