"""`key:value,key:value` settings such as PyTorch's allocator config (`PYTORCH_ALLOC_CONF`), as a typed grammar.

Each key has its own value type, so a front end can draw one control per key from `KeyValueConfig.describe()` and
the whole string is checked and written back normalised: keys in a fixed order, values as the framework spells them
(`True`, not `true`). Unknown keys, repeated keys and bad values are refused with what is allowed.

The grammar follows PyTorch's `ConfigTokenizer` (c10/core/AllocatorConfig.h, torch 2.13.0): tokens are split at
`,` `:` `[` `]`, whitespace is dropped, a list value is `[a:b,c:d]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from ..base._errors import InvalidValueError
from ..base._quoting import quoted
from ..base._text import Message, Text, message
from ._values import ALLOWED_CHOICE, NO_NUL, NORMALISED, NOT_ALLOWED, Parsed, ValueType

_TOKEN = re.compile(r"[,:\[\]]|[^,:\[\]]+")
_DIGITS = re.compile(r"\+?\d+")


# What each key allows and why a value was refused, in the language of the moment.
TRUE_OR_FALSE = Text("True or False", "True 或 False")
POWER_OF_TWO_FROM = Text("a power of two from {low}{high}", "从 {low} 起{high}的 2 的幂")
WHOLE_NUMBER_FROM = Text("a whole number from {low}{high}", "从 {low} 起{high}的整数")
UP_TO = Text(" up to {high}", "、不超过 {high}")
OPEN_FRACTION = Text("a number strictly between 0 and 1", "严格介于 0 和 1 之间的数(不含两端)")
CLOSED_FRACTION = Text("a number from 0 to 1", "0 到 1 之间的数")
ROUNDUP_ALLOWED = Text("a power of two for every size (4), or per size in MiB [256:1,512:2,>:4] (sizes powers of "
                       "two or >, divisions 0 or powers of two)",
                       "对所有大小统一用一个 2 的幂(如 4),或按大小区间(MiB)分别给出,如 [256:1,512:2,>:4]"
                       "(大小取 2 的幂或 >,份数取 0 或 2 的幂)")
LIST_UNCLOSED = Text("{given} is not allowed: a list must end with ]", "不接受 {given}:列表必须以 ] 结尾")
ITEM_FORM = Text("{given} is not allowed: each item is SIZE_MB:DIVISIONS",
                 "不接受 {given}:每一项应写成 SIZE_MB:DIVISIONS")
SIZE_IN_MB = Text("a size in MiB that is a power of two, or >", "以 MiB 计、为 2 的幂的大小,或 >")
SIZES_POWERS = Text("{given} is not allowed: sizes are powers of two (MiB), or >",
                    "不接受 {given}:大小须为 2 的幂(MiB),或写 >")
ZERO_OR_POWER = Text("0 or a power of two", "0 或 2 的幂")
DIVISIONS_POWERS = Text("{given} is not allowed: divisions are 0 or a power of two",
                        "不接受 {given}:份数须为 0 或 2 的幂")
PAIRS_EXPECTED = Text("{given} is not allowed: expected key:value pairs separated by commas (such as {example})",
                      "不接受 {given}:应为以逗号分隔的 key:value 对(例如 {example})")
NEEDS_VALUE = Text("{key} needs a value: write {name}:VALUE", "{key} 缺少取值:请写成 {name}:VALUE")
LIST_NOT_CLOSED = Text("the list after {key}: has no closing ]", "{key}: 之后的列表缺少结尾的 ]")
KEY_TWICE = Text("{key} is given twice: give each key once", "{key} 出现了两次:每个键只能给一次")
COMMA_EXPECTED = Text("after {item} expected a comma, got {got}", "{item} 之后应为逗号,实际是 {got}")
UNKNOWN_KEY = Text("unknown key {key}: use one of {keys}", "未知的键 {key}:可用的键有 {keys}")
AT_LEAST = Text("{key}: {value} is not allowed: expected at least {other} ({floor})",
                "{key}:不接受 {value}:至少应为 {other}({floor})")
KEY_NOTE = Text("{key}: {note}", "{key} 键:{note}")  # what a key's value became, said beside the key
PAIRS_ALLOWED = Text("key:value pairs separated by commas (such as {example}); keys: {keys}",
                     "以逗号分隔的 key:value 对(例如 {example});可用的键:{keys}")


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _whole(text: str, what: str) -> int:
    """A whole number written in decimal digits (PyTorch's stoull also takes `20.5` and `30abc`; we do not)."""
    if not _DIGITS.fullmatch(text):
        raise InvalidValueError(NOT_ALLOWED.get().format(given=quoted(text), allowed=what))
    return int(text)


@dataclass(frozen=True)
class ConfigValue(ValueType):
    """The value of one key. `rule` says what is allowed in words; subclasses check it."""

    kind: ClassVar[str] = "text"

    def parse(self, raw: object) -> Parsed:
        text = str(raw).strip() if not isinstance(raw, bool) else ("True" if raw else "False")
        canonical, value = self.check(text.replace(" ", ""))
        notes = (message(NORMALISED, given=quoted(text), shown=quoted(canonical)),) if canonical != text else ()
        return Parsed(canonical, value, notes)

    def check(self, text: str) -> tuple[str, Any]:
        raise NotImplementedError


@dataclass(frozen=True)
class Word(ConfigValue):
    """One of a few words, case-sensitive in PyTorch; other cases are normalised."""

    words: tuple[str, ...] = ()
    kind: ClassVar[str] = "enum"

    def check(self, text: str) -> tuple[str, Any]:
        for word in self.words:
            if text.lower() == word.lower():
                return word, word
        raise InvalidValueError(NOT_ALLOWED.get().format(given=quoted(text), allowed=self.allowed()))

    def allowed(self) -> str:
        return ALLOWED_CHOICE.get().format(values=", ".join(self.words))

    def choices(self) -> tuple[str, ...]:
        return self.words


@dataclass(frozen=True)
class WholeNumber(ConfigValue):
    """A whole number from `minimum` (to `maximum`), optionally a power of two."""

    minimum: int = 0
    maximum: int | None = None
    power_of_two: bool = False
    kind: ClassVar[str] = "int"

    def check(self, text: str) -> tuple[str, Any]:
        number = _whole(text, self.allowed())
        if number < self.minimum or (self.maximum is not None and number > self.maximum) or (
                self.power_of_two and not _power_of_two(number)):
            raise InvalidValueError(NOT_ALLOWED.get().format(given=quoted(text), allowed=self.allowed()))
        return str(number), number

    def allowed(self) -> str:
        words = POWER_OF_TWO_FROM if self.power_of_two else WHOLE_NUMBER_FROM
        upper = UP_TO.get().format(high=self.maximum) if self.maximum is not None else ""
        return words.get().format(low=self.minimum, high=upper)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "min": self.minimum, "max": self.maximum}


@dataclass(frozen=True)
class Fraction(ConfigValue):
    """A number between 0 and 1; `open` excludes both ends (garbage_collection_threshold: (0.0, 1.0))."""

    open: bool = False
    kind: ClassVar[str] = "float"

    def check(self, text: str) -> tuple[str, Any]:
        try:
            number = float(text)
        except ValueError:
            raise InvalidValueError(NOT_ALLOWED.get().format(given=quoted(text), allowed=self.allowed())) from None
        inside = 0.0 < number < 1.0 if self.open else 0.0 <= number <= 1.0
        if not inside:
            raise InvalidValueError(NOT_ALLOWED.get().format(given=quoted(text), allowed=self.allowed()))
        return repr(number), number

    def allowed(self) -> str:
        return (OPEN_FRACTION if self.open else CLOSED_FRACTION).get()

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "min": 0.0, "max": 1.0, "open": self.open}


@dataclass(frozen=True)
class RoundupDivisions(ConfigValue):
    """`roundup_power2_divisions`: one power of two for every size (`4`), or per size interval in MiB
    `[256:1,512:2,>:4]` (sizes powers of two, `>` for all larger sizes; divisions 0 (no rounding) or powers of two)."""

    kind: ClassVar[str] = "text"

    def check(self, text: str) -> tuple[str, Any]:
        if not text.startswith("["):
            number = _whole(text, self.allowed())
            if not _power_of_two(number):
                raise InvalidValueError(NOT_ALLOWED.get().format(given=quoted(text), allowed=self.allowed()))
            return str(number), number
        if not text.endswith("]"):
            raise InvalidValueError(LIST_UNCLOSED.get().format(given=quoted(text)))
        pairs: list[tuple[str, int]] = []
        body = text[1:-1]
        for item in body.split(",") if body else []:
            size, colon, division = item.partition(":")
            if not colon:
                raise InvalidValueError(ITEM_FORM.get().format(given=quoted(item)))
            if size != ">" and not _power_of_two(_whole(size, SIZE_IN_MB.get())):
                raise InvalidValueError(SIZES_POWERS.get().format(given=quoted(size)))
            count = _whole(division, ZERO_OR_POWER.get())
            if count != 0 and not _power_of_two(count):
                raise InvalidValueError(DIVISIONS_POWERS.get().format(given=quoted(division)))
            pairs.append((">" if size == ">" else str(int(size)), count))
        canonical = "[" + ",".join(f"{size}:{count}" for size, count in pairs) + "]"
        return canonical, pairs

    def allowed(self) -> str:
        return ROUNDUP_ALLOWED.get()

    def choices(self) -> tuple[str, ...]:
        return ("4", "[256:1,512:2,1024:4,>:8]")


@dataclass(frozen=True)
class ConfigKey:
    """One key of a `key:value` config: its type, what it does, its default (None: off or unlimited), and which
    parser reads it (`parser`: where in the framework's source; `device_only`: only a GPU build's parser checks it).
    `at_least`: another key whose value (or default) is this key's minimum."""

    name: str
    type: ConfigValue
    description: Text
    default: str | None = None
    parser: str = ""
    device_only: bool = False
    at_least: str | None = None

    def to_json(self, language: str | None = None) -> dict[str, Any]:
        return {"name": self.name, "type": self.type.describe(), "description": self.description.get(language),
                "default": self.default, "device_only": self.device_only, "at_least": self.at_least}


@dataclass(frozen=True)
class KeyValueConfig(ValueType):
    """A comma-separated `key:value` list whose keys and value types are `keys`. Parses to a dict of the keys set
    (key → normalised text) and writes the keys back in declaration order."""

    keys: tuple[ConfigKey, ...] = ()
    kind: ClassVar[str] = "keyvalue"

    def key(self, name: str) -> ConfigKey | None:
        return next((k for k in self.keys if k.name == name), None)

    def parse(self, raw: object) -> Parsed:
        if isinstance(raw, dict):
            return self.join(raw)
        text = str(raw)
        if "\x00" in text:
            raise InvalidValueError(NO_NUL.get())
        items = self.split(text)
        result = self.join(dict(items))
        notes = list(result.notes)
        if result.text != text.strip():
            notes.insert(0, message(NORMALISED, given=quoted(text), shown=quoted(result.text)))
        return Parsed(result.text, result.value, tuple(dict.fromkeys(notes)))

    def split(self, text: str) -> list[tuple[str, str]]:
        """`[(key, value text)]` in the order written; refuses what PyTorch's tokenizer would choke on."""
        tokens = _TOKEN.findall("".join(text.split()))
        items: list[tuple[str, str]] = []
        i = 0
        while i < len(tokens):
            key = tokens[i]
            if key in ",:[]":
                raise InvalidValueError(PAIRS_EXPECTED.get().format(given=quoted(text), example=self.example()))
            if i + 2 >= len(tokens) or tokens[i + 1] != ":":
                raise InvalidValueError(NEEDS_VALUE.get().format(key=quoted(key), name=key))
            j = i + 2
            if tokens[j] == "[":
                end = tokens.index("]", j) if "]" in tokens[j:] else -1
                if end < 0:
                    raise InvalidValueError(LIST_NOT_CLOSED.get().format(key=key))
                value = "".join(tokens[j:end + 1])
                j = end + 1
            else:
                value = tokens[j]
                if value in ",:]":
                    raise InvalidValueError(NEEDS_VALUE.get().format(key=quoted(key), name=key))
                j += 1
            if any(name == key for name, _ in items):
                raise InvalidValueError(KEY_TWICE.get().format(key=key))
            items.append((key, value))
            if j < len(tokens):
                if tokens[j] != ",":
                    raise InvalidValueError(COMMA_EXPECTED.get().format(item=f"{key}:{value}", got=quoted(tokens[j])))
                j += 1
            i = j
        return items

    def join(self, values: dict[str, object]) -> Parsed:
        """Check each key's value and write them in declaration order; a value of None leaves the key out."""
        known = {k.name: k for k in self.keys}
        unknown = [name for name in values if name not in known]
        if unknown:
            raise InvalidValueError(UNKNOWN_KEY.get().format(key=repr(unknown[0]), keys=", ".join(known)))
        parts: list[str] = []
        typed: dict[str, Any] = {}
        notes: list[Message] = []
        for key in self.keys:
            if key.name not in values or values[key.name] is None:
                continue
            try:
                parsed = key.type.parse(values[key.name])
            except InvalidValueError as exc:
                raise InvalidValueError(f"{key.name}: {exc}") from None
            parts.append(f"{key.name}:{parsed.text}")
            typed[key.name] = parsed.text
            notes.extend(message(KEY_NOTE, key=key.name, note=note) for note in parsed.notes)
        for key in self.keys:
            floor_key = self.key(key.at_least) if key.at_least else None
            floor = typed.get(key.at_least or "", floor_key.default if floor_key else None)
            if key.name in typed and floor is not None and int(typed[key.name]) < int(floor):
                raise InvalidValueError(AT_LEAST.get().format(key=key.name, value=typed[key.name],
                                                              other=key.at_least, floor=floor))
        return Parsed(",".join(parts), typed, tuple(notes))

    def example(self) -> str:
        return "expandable_segments:True,max_split_size_mb:128"

    def allowed(self) -> str:
        return PAIRS_ALLOWED.get().format(example=self.example(), keys=", ".join(k.name for k in self.keys))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "keys": [k.to_json() for k in self.keys]}
