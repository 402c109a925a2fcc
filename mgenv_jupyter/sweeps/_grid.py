"""The values a sweep tries: one or more variables, each with its values, checked as `%envset` checks them, and the
points they make (every combination: several variables make a grid).

Every value of every point goes through `EnvSession.check` (the catalog's types, the security policy, conflicts,
the environment's size) before any kernel starts; one bad value refuses the whole sweep, saying what is allowed, and
nothing changes. A point's values are the normalised text `%envset` would write ("1GB" → "1073741824" where the
framework reads bytes): that is what each point's kernel gets in its environment.

A secret (by its name, HF_TOKEN, or by its value's shape, hf_…) is never kept as given: its values are shown as the
mask and their position ("******** #2"), so that the table, the figure, the saved picture and the recommendation tell
the points apart without showing them; only the points' environments hold them.

On the magic's line a variable's values are separated by commas (`NAME=1GB,2GB,4GB`). A value that holds a comma
(an allocator config such as `expandable_segments:True,max_split_size_mb:128`) is written as its own `NAME=VALUE`
word, the name repeated once per value: a name given more than once is never split. A name given once whose whole
text is itself a valid value of its catalog type is ambiguous and refused with that advice.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..base._errors import InvalidValueError
from ..base._text import Text
from ..catalog._code_loading import code_effect
from ..catalog._options import keyword_options
from ..catalog._secrets import MASK, is_secret
from ..runtime._session import EnvSession

MAX_POINTS = 256  # each point is a kernel: a larger grid is a mistake, not a sweep
MAX_VALUES = 64

NO_VARIABLES = Text("name at least one variable and its values: NAME=VALUE,VALUE …",
                    "至少给出一个变量及其取值:NAME=值,值 …")
NOT_ASSIGNMENT = Text("word {position} is not NAME=VALUES: write NAME=VALUE,VALUE (one word a variable; quote values "
                      "with spaces)",
                      "第 {position} 个词不是 NAME=取值:请写成 NAME=值,值(每个变量一个词;含空格的取值请加引号)")
EMPTY_VALUE = Text("{name}: an empty value (two commas in a row, or a trailing comma); give each value once",
                   "{name}:取值为空(两个逗号相连或末尾有逗号);每个取值写一次")
AMBIGUOUS = Text("{name}: its values may themselves hold commas, so '{name}=…' given once is ambiguous: give each "
                 "value as its own {name}=VALUE word (repeat the name once per value)",
                 "{name}:它的取值本身可能含逗号,只写一次 '{name}=…' 有歧义:请把每个取值写成单独的 {name}=取值"
                 "(每个取值重复一次变量名)")
NOT_A_LIST = Text("{name}: give its values as a list of strings or numbers", "{name}:取值应为字符串或数字的列表")
BAD_KIND = Text("{name}: value {position} is {kind}; a value is a string or a number",
                "{name}:第 {position} 个取值是 {kind};取值只能是字符串或数字")
REPEATED = Text("{name}: the value {value!r} is given twice", "{name}:取值 {value!r} 出现了两次")
TOO_MANY_VALUES = Text("{name} has {count} values; at most {most} are tried",
                       "{name} 有 {count} 个取值;最多尝试 {most} 个")
TOO_MANY_POINTS = Text("the grid has {count:,} points (each is a fresh kernel); at most {most} are allowed",
                       "网格有 {count:,} 个点(每个点是一个新内核);最多允许 {most} 个")
UNEVEN = Text("values taken together need as many values for every variable ({counts})",
               "一起取值的各变量需要同样多的取值({counts})")
NOTHING_CHANGED = Text(" (nothing was started)", "(没有启动任何内核)")
STARTS_WITH_IT = Text("{name} {effect}; every point's kernel, and every program it starts, starts with it",
                      "{name} {effect};每个点的内核及其启动的每个程序都会带着它启动")


@dataclass(frozen=True)
class Variable:
    """One swept variable: its values as given (shown in tables and on the figure's axis; a secret's masked) and as
    each point's environment gets them (normalised)."""

    name: str
    given: tuple[str, ...]
    values: tuple[str, ...]


@dataclass(frozen=True)
class Grid:
    """The swept variables and, in order, every combination of their values (the first variable varies slowest), or,
    `zipped`, their values taken together: the n-th point has every variable's n-th value (settings that go together,
    such as a remedy's variables against the current ones)."""

    variables: tuple[Variable, ...]
    zipped: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(variable.name for variable in self.variables)

    def _combinations(self, values: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        return list(zip(*values, strict=True)) if self.zipped else list(itertools.product(*values))

    def points(self) -> list[dict[str, str]]:
        """Each point's environment: name → normalised value."""
        return [dict(zip(self.names, values, strict=True))
                for values in self._combinations([variable.values for variable in self.variables])]

    def given(self) -> list[dict[str, str]]:
        """Each point's values as given, in the order of `points()`."""
        return [dict(zip(self.names, values, strict=True))
                for values in self._combinations([variable.given for variable in self.variables])]

    def __len__(self) -> int:
        if self.zipped:
            return len(self.variables[0].values) if self.variables else 0
        count = 1
        for variable in self.variables:
            count *= len(variable.values)
        return count


def words_to_values(words: Sequence[str], session: EnvSession) -> dict[str, list[str]]:
    """The magic line's `NAME=VALUES` words as name → values (see the module help for commas)."""
    given: dict[str, list[str]] = {}
    for position, word in enumerate(words, start=1):
        name, sep, value = word.partition("=")
        if not sep or not name:
            raise InvalidValueError(NOT_ASSIGNMENT.get().format(position=position))
        given.setdefault(name.strip(), []).append(value)
    values: dict[str, list[str]] = {}
    for name, texts in given.items():
        if len(texts) > 1:  # the name repeated: one value a word, commas kept
            values[name] = texts
            continue
        text = texts[0]
        if "," in text and _one_value(session, name, text):
            raise InvalidValueError(AMBIGUOUS.get().format(name=name))
        pieces = text.split(",") if "," in text else [text]
        if any(not piece.strip() for piece in pieces) and len(pieces) > 1:
            raise InvalidValueError(EMPTY_VALUE.get().format(name=name))
        values[name] = [piece.strip() for piece in pieces]
    return values


def _one_value(session: EnvSession, name: str, text: str) -> bool:
    """Whether the whole comma-holding `text` is one valid value of `name`'s catalog type."""
    entry = session.catalog.get(name)
    if entry is None:
        return False
    try:
        entry.type.parse(text)
    except InvalidValueError:
        return False
    return True


def checked_grid(values: Mapping[str, object], session: EnvSession, *, source: str = "api",
                 force: bool = False, zipped: bool = False) -> Grid:
    """The grid of `values` (name → list of values), every value and every point checked as `%envset` would check
    it; `zipped`: the variables' values are taken together (each list as long as the others). Raises
    `InvalidValueError` listing every problem (what was wrong, what is allowed); nothing changes."""
    if not isinstance(values, Mapping) or not values:
        raise InvalidValueError(NO_VARIABLES.get())
    errors: list[str] = []
    variables: list[Variable] = []
    for name, raw in values.items():
        try:
            variables.append(_variable(name, raw, session, source, force))
        except InvalidValueError as exc:
            errors.append(str(exc))
    if not errors and zipped and len({len(variable.values) for variable in variables}) > 1:
        counts = ", ".join(f"{variable.name}: {len(variable.values)}" for variable in variables)
        errors.append(UNEVEN.get().format(counts=counts))
    if not errors:
        grid = Grid(tuple(variables), zipped)
        if len(grid) > MAX_POINTS:
            errors.append(TOO_MANY_POINTS.get().format(count=len(grid), most=MAX_POINTS))
        elif len(variables) > 1:
            errors.extend(_point_errors(grid, session, source, force))
    if errors:
        raise InvalidValueError("; ".join(dict.fromkeys(errors)) + NOTHING_CHANGED.get())
    return grid


def _variable(name: object, raw: object, session: EnvSession, source: str, force: bool) -> Variable:
    shown_name = name if isinstance(name, str) and len(name) <= 100 else "the name"
    if isinstance(raw, (str, bytes)) or not isinstance(raw, (list, tuple)):
        raise InvalidValueError(NOT_A_LIST.get().format(name=shown_name))
    if len(raw) > MAX_VALUES:
        raise InvalidValueError(TOO_MANY_VALUES.get().format(name=shown_name, count=len(raw), most=MAX_VALUES))
    if not raw:
        raise InvalidValueError(NOT_A_LIST.get().format(name=shown_name))
    given: list[str] = []
    for position, value in enumerate(raw, start=1):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InvalidValueError(BAD_KIND.get().format(name=shown_name, position=position,
                                                          kind=type(value).__name__))
        given.append(value if isinstance(value, str) else str(value))
    entry = session.catalog.get(name) if isinstance(name, str) else None
    if entry is not None and not entry.is_env:
        raise InvalidValueError(keyword_options().not_variable.get().format(name=name))
    normalised: list[str] = []
    problems: list[str] = []
    for value in given:
        try:
            text = session.check([(str(name), value)], source=source, force=force)[str(name)]
        except InvalidValueError as exc:
            problems.append(str(exc))
            continue
        if text in normalised:
            hidden = len(value) > 40 or is_secret(str(name), value)
            problems.append(REPEATED.get().format(name=shown_name, value="…" if hidden else value))
        normalised.append(text or "")
    if problems:
        raise InvalidValueError("; ".join(dict.fromkeys(problems)))
    return Variable(str(name), _shown(str(name), given, normalised), tuple(normalised))


def _shown(name: str, given: list[str], normalised: list[str]) -> tuple[str, ...]:
    """The values as tables and figures show them: a secret's as the mask and its position among the values."""
    return tuple(f"{MASK} #{position}" if is_secret(name, value) or is_secret(name, text) else value
                 for position, (value, text) in enumerate(zip(given, normalised, strict=True), start=1))


def _point_errors(grid: Grid, session: EnvSession, source: str, force: bool) -> Iterable[str]:
    """What `%envset` would refuse of a point's whole batch (two variables that cannot be set together)."""
    for point in grid.points():
        try:
            session.check(list(point.items()), source=source, force=force)
        except InvalidValueError as exc:
            yield str(exc)


def code_loading_warnings(grid: Grid, session: EnvSession) -> list[str]:
    """What each swept variable that can load or run code can do, once a variable: the warning `%envset` gives when
    it sets one (`CodeLoadingWarning`), said of the points' kernels."""
    said = []
    for variable in grid.variables:
        entry = session.catalog.get(variable.name)
        for value in variable.values:
            effect = code_effect(variable.name, entry, value)
            if effect is not None:
                said.append(STARTS_WITH_IT.get().format(name=variable.name, effect=effect.get()))
                break
    return said
