"""Every regular expression of the package runs in linear time on hostile text (issue 19).

Text from outside — an exception's message, a value from a file, a notebook's profile, a comm message — meets these
patterns, so a pattern that backtracks over the text once per position holds the kernel for minutes on a crafted
megabyte. The test finds every pattern the package has (compiled ones anywhere in its modules' data, the regexes
catalog entries and rules carry as strings, and the literal first argument of every `re.*` call in its source), builds
adversarial inputs from each pattern's own parts, regexploit-style (each prefix of the pattern repeated, and each
repeated part pumped after the text that reaches it, then a character that makes the match fail), and times the
pattern as the package uses it (a search, a match or a full match) at three sizes: the best of several runs must not
grow faster than twice linear at both steps.
"""

from __future__ import annotations

import ast
import dataclasses
import gc
import importlib
import pkgutil
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mgenv_jupyter

try:  # Python 3.11+
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

PACKAGE = Path(mgenv_jupyter.__file__).parent
SIZES = (5_000, 20_000, 80_000)  # characters of hostile text: two steps of 4×
STEP = 4
# Per step, a linear search grows 4× and a quadratic one 16×. On a loaded machine, where the largest text no longer
# fits the caches, a linear one has been seen to grow up to 12× in one step, but not in both: a pattern fails only when
# both steps grow more than twice linear, each time it is looked at.
ALLOWED_STEP = STEP * 2
SLOW_SECONDS = 2.0
FLOOR_SECONDS = 0.01  # below this at the large size, growth is noise
_RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
# `re.*` calls whose pattern is not a literal: where each pattern comes from, and how this test reaches it.
NON_LITERAL_SITES = {
    "catalog/_code_loading.py": "CodeLoadingRule.pattern: every rule is in RULES, collected below",
    "catalog/_values.py": "Pattern.regex: every Pattern value type is in a catalog entry, collected below",
    "memory/_state_words.py": "_SENTENCES: compiled at import from a literal table, collected from the module's data",
    "catalog/_secrets.py": "the value patterns, compiled into the module's _VALUE_RES tuple, collected below",
    "runtime/frameworks/_torch.py": "f-string patterns compiled into module data (OOM_PATTERNS, _TORCH_LATER), "
                                    "collected below",
    "runtime/frameworks/_jax.py": "f-string patterns compiled into module data (OOM_PATTERNS), collected below",
    "runtime/frameworks/_tensorflow.py": "f-string patterns compiled into module data (OOM_PATTERNS), collected below",
    "runtime/frameworks/_paddle.py": "f-string patterns compiled into module data (OOM_PATTERNS), collected below",
    "runtime/frameworks/_cupy.py": "f-string patterns compiled into module data (OOM_PATTERNS), collected below",
    "oom/_hook.py": "_NAMES, compiled at import from the GPU modules' names, collected below",
    "cluster/_nodes.py": "_LOCAL_DEVICE_WORDS, compiled at import, collected below",
}


def _modules() -> Iterator[Any]:
    for info in pkgutil.walk_packages([str(PACKAGE)], "mgenv_jupyter."):
        if info.name.endswith("__main__"):
            continue
        try:
            yield importlib.import_module(info.name)
        except ImportError:  # an optional extra (ray) that is not installed: its source is still read below
            continue


# key → (pattern, the names it is reached by: (module file, variable) for a module's own names, ("", field) for a
# field or attribute, used through any object)
Found = dict[str, tuple[re.Pattern[str], set[tuple[str, str]]]]


def _add(found: Found, pattern: re.Pattern[str], name: tuple[str, str]) -> None:
    key = f"{pattern.pattern}/{pattern.flags}"
    found.setdefault(key, (pattern, set()))[1].add(name)


def _collect(value: Any, name: tuple[str, str], found: Found, seen: set[tuple[int, tuple[str, str]]],
             depth: int = 0) -> None:
    """Patterns in `value` (module data), each with `name`: the variable, field or container that holds it."""
    if depth > 6 or (id(value), name) in seen:
        return
    seen.add((id(value), name))
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            _add(found, value, name)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            _collect(item, name, found, seen, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _collect(key, name, found, seen, depth + 1)
            _collect(item, name, found, seen, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            attribute = getattr(value, item.name)
            if item.name in ("regex", "pattern") and isinstance(attribute, str) and attribute:
                _add(found, re.compile(attribute), ("", item.name))
            else:
                _collect(attribute, ("", item.name), found, seen, depth + 1)
        for attribute_name, attribute in vars(type(value)).items():  # ClassVar patterns (DeviceList._item)
            if isinstance(attribute, re.Pattern):
                _collect(attribute, ("", attribute_name), found, seen, depth + 1)
    elif isinstance(value, type) and value.__module__.startswith("mgenv_jupyter"):
        for attribute_name, attribute in list(vars(value).items()):
            _collect(attribute, ("", attribute_name), found, seen, depth + 1)


def _flags(call: ast.Call) -> int:
    """The flags of an `re.*` call written as `re.X | re.Y` (positional after the pattern, or `flags=`)."""
    candidates = [k.value for k in call.keywords if k.arg == "flags"]
    if len(call.args) > 1:
        candidates.append(call.args[-1])  # re.compile(p, flags), re.search(p, text, flags): the flags come last
    flags = 0
    for candidate in candidates:
        for node in ast.walk(candidate):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
                flags |= int(getattr(re, node.attr, 0))
    return flags


def _source_facts() -> tuple[Found, set[str], dict[tuple[str, str], set[str]]]:
    """From the source: the literal patterns of `re.*` calls (with the name they are bound to, if any), the files
    holding calls with a computed pattern, and how each name is used: name → the `re` operations applied to it
    (`NAME.search(...)`, `re.fullmatch(self.NAME, ...)`, through `for NAME2 in NAME` loops too)."""
    found: Found = {}
    computed: set[str] = set()
    uses: dict[tuple[str, str], set[str]] = {}
    loops: list[tuple[tuple[str, str], tuple[str, str]]] = []  # (loop variable, iterated name)

    def key(node: ast.expr) -> tuple[str, str] | None:
        """A module's own name by (file, name); an attribute by ("", attribute)."""
        if isinstance(node, ast.Name):
            return (where, node.id)
        if isinstance(node, ast.Attribute):
            return ("", node.attr)
        return None

    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = {id(node.value): key(target) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 for target in node.targets}
        for node in ast.walk(tree):
            if isinstance(node, (ast.For, ast.comprehension)):
                iterated = key(node.iter)
                if iterated is not None:
                    for target in ast.walk(node.target):
                        if isinstance(target, ast.Name):
                            loops.append(((where, target.id), iterated))
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _RE_FUNCTIONS):
                continue
            if isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    pattern = re.compile(first.value, _flags(node))
                    name = bound.get(id(node)) or (where, f"re.{node.func.attr}")
                    _add(found, pattern, name)
                    if node.func.attr != "compile":
                        uses.setdefault(name, set()).add(node.func.attr)
                else:
                    name = key(first)
                    if name is not None and node.func.attr != "compile":
                        uses.setdefault(name, set()).add(node.func.attr)
                    computed.add(where)
            else:
                name = key(node.func.value)
                if name is not None:
                    uses.setdefault(name, set()).add(node.func.attr)
    for variable, iterated in loops:  # `for pattern, text in SENTENCES`: str.split on `text` is not the pattern's
        if variable in uses:
            uses.setdefault(iterated, set()).update(uses[variable] - {"split"})
    return found, computed, uses


def every_pattern() -> dict[str, tuple[re.Pattern[str], set[str]]]:
    """Every pattern of the package → (the pattern, the `re` operations the package applies to it; `search` where
    no use is found, the most demanding)."""
    found: Found = {}
    seen: set[tuple[int, tuple[str, str]]] = set()
    for module in _modules():
        where = Path(module.__file__).relative_to(PACKAGE).as_posix()
        for name, value in list(vars(module).items()):
            _collect(value, (where, name), found, seen)
    literal, _, uses = _source_facts()
    for key, (pattern, names) in literal.items():
        found.setdefault(key, (pattern, set()))[1].update(names)
    result = {}
    for key, (pattern, names) in found.items():
        operations = set().union(*(uses.get(name, set()) for name in names)) & _RE_FUNCTIONS - {"compile"}
        result[key] = (pattern, operations or {"search"})
    return result


# ---- hostile inputs from a pattern's own parts ----------------------------------------------------------------------

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None))


_PREFER_SYMBOLS = False  # set while a second skeleton is built from each class's punctuation


def _sample(op: Any, argument: Any) -> str:
    """One character an IN / ANY / CATEGORY element accepts (or a neutral one)."""
    if op is sre_constants.LITERAL:
        return chr(argument)
    if op is sre_constants.ANY:
        return "a"
    if op is sre_constants.IN:
        symbols = sorted((chr(a) for o, a in argument if o is sre_constants.LITERAL and not chr(a).isalnum()),
                         key=lambda c: c == "_")  # '_' is a word character: another one first
        if _PREFER_SYMBOLS and symbols and argument[0][0] is not sre_constants.NEGATE:
            return symbols[0]  # a class's '-' or '.' ends a word: a \b after it starts a match again
        for item_op, item_argument in argument:
            if item_op is sre_constants.NEGATE:
                return "a" if len(argument) > 1 and argument[1][0] is sre_constants.LITERAL and argument[1][1] != 97 \
                    else "x"
            return _sample(item_op, item_argument)
    if op is sre_constants.RANGE:
        return chr(argument[0])
    if op is sre_constants.CATEGORY:
        name = str(argument)
        if "NOT" in name:
            return "-"
        return {"DIGIT": "0", "WORD": "a", "SPACE": " "}.get(name.rsplit("_", 1)[-1], "a")
    return ""


def _skeleton(items: Any, units: list[str], prefix: str = "") -> str:
    """A string walking the pattern once (each repeat taken at least once); along the way, hostile units are added:
    the text so far repeated, and the text so far followed by a repeated body."""
    text = ""
    for op, argument in items:
        if op in _REPEATS:
            low, _high, body = argument
            body_text = _skeleton(body, units, prefix + text)
            if body_text:
                units.append("\x01" + prefix + text + "\x02" + body_text)
            text += body_text * max(low, 1)
        elif op is sre_constants.SUBPATTERN:
            text += _skeleton(argument[-1], units, prefix + text)
        elif op is sre_constants.BRANCH:
            branches = [_skeleton(branch, units, prefix + text) for branch in argument[1]]
            for branch in branches[1:]:
                units.append(prefix + text + branch)
            text += branches[0] if branches else ""
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue
        elif op is sre_constants.AT or op is sre_constants.GROUPREF:
            continue
        else:
            text += _sample(op, argument)
        units.append(prefix + text)
    return text


def hostile_texts(pattern: re.Pattern[str], size: int) -> dict[str, str]:
    """Texts of about `size` characters: each unit pumped, ending in a character that fails the match."""
    units: list[str] = []
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - a pattern this parser cannot read gets the plain inputs only
        parsed = []
    global _PREFER_SYMBOLS
    _skeleton(list(parsed), units)
    _PREFER_SYMBOLS = True
    try:
        _skeleton(list(parsed), units)
    finally:
        _PREFER_SYMBOLS = False
    units += ["a", " ", "0", "-", "_", "/", ":", "@", "."]
    texts = {}
    for unit in dict.fromkeys(units):
        if "\x02" in unit:  # a prefix once, then a repeated body
            head, body = unit[1:].split("\x02", 1)
            if not body:
                continue
            texts[f"{head!r} + {body!r}×n"] = head + body * (size // len(body)) + "\x00!"
        elif unit:
            texts[f"{unit!r}×n"] = (unit * (size // len(unit) + 1))[:size] + "\x00!"
    return texts


def _operation(pattern: re.Pattern[str], how: str) -> Any:
    if how == "fullmatch":
        return pattern.fullmatch
    if how == "match":
        return pattern.match

    def scan(text: str) -> None:  # search, sub, findall, finditer, split: a scan of the whole text at worst
        for _ in pattern.finditer(text):
            pass
    return scan


def _best_time(run: Any, text: str, runs: int = 5) -> float:
    best = float("inf")
    gc.disable()  # a collection during one run is not the pattern's time
    try:
        for _ in range(runs):
            start = time.perf_counter()
            run(text)
            best = min(best, time.perf_counter() - start)
    finally:
        gc.enable()
    return best


def growth_failures(pattern: re.Pattern[str], operations: set[str]) -> list[str]:
    """The hostile inputs on which `pattern`, used as the package uses it, grows faster than linearly (best of
    several runs, at three sizes)."""
    texts = [hostile_texts(pattern, size) for size in SIZES]
    failures = []
    for how in sorted({"fullmatch" if o == "fullmatch" else "match" if o == "match" else "scan" for o in operations}):
        run = _operation(pattern, how)
        for name in texts[-1]:
            if any(name not in sized for sized in texts):
                continue
            quick = _best_time(run, texts[0][name], runs=1)
            if quick * (SIZES[-1] / SIZES[0]) ** 2 < FLOOR_SECONDS:  # even quadratic growth would stay under it
                continue
            times = _times(run, [sized[name] for sized in texts], runs=1)
            if not _superlinear(times):
                continue
            looks = [_times(run, [sized[name] for sized in texts]) for _ in range(2)]  # look again, carefully
            if all(_superlinear(look) for look in looks):
                failures.append(f"{how} {name}: " + ", ".join(f"{t * 1e3:.2f} ms at {size:,} characters"
                                                               for t, size in zip(looks[0], SIZES, strict=False)))
                return failures  # one is enough: a quadratic pattern has many, each seconds long
    return failures


def _times(run: Any, texts: list[str], runs: int = 5) -> list[float]:
    """The best time at each size, smallest first; stops after a size that took over SLOW_SECONDS (a quadratic
    pattern on the largest text would take minutes: the steps measured decide)."""
    times = []
    for text in texts:
        times.append(_best_time(run, text, runs=runs if not times or times[-1] < SLOW_SECONDS / 10 else 1))
        if times[-1] > SLOW_SECONDS:
            break
    return times


def _superlinear(times: list[float]) -> bool:
    return len(times) > 1 and times[-1] > FLOOR_SECONDS and all(
        later > earlier * ALLOWED_STEP for earlier, later in zip(times, times[1:], strict=False))


PATTERNS = every_pattern()
HOSTILE_INPUTS = sum(len(hostile_texts(pattern, SIZES[0])) * len(uses) for pattern, uses in PATTERNS.values())


def test_every_pattern_is_found():
    """The collection reaches the patterns it must: compiled in modules, in catalog value types and rules, and the
    literal arguments of re.* calls; a call with a computed pattern is only where this test knows how to reach it."""
    sources = {pattern.pattern for pattern, _ in PATTERNS.values()}
    assert any("RESOURCE_EXHAUSTED" in source or "GPU_" in source for source in sources)  # the adapters' OOM_PATTERNS
    assert any("eyJ" in source for source in sources)  # catalog/_secrets.py, inside the joined value pattern
    assert any("--[A-Za-z0-9_]+" in source for source in sources)  # XLA_FLAGS' Pattern value type
    assert any(source.startswith("LD_") for source in sources)  # catalog/_code_loading.py RULES
    _, computed, _ = _source_facts()
    assert computed <= set(NON_LITERAL_SITES), computed - set(NON_LITERAL_SITES)
    assert len(PATTERNS) >= 60 and HOSTILE_INPUTS >= 1_000


@pytest.mark.parametrize("key", sorted(PATTERNS))
def test_pattern_is_linear_on_hostile_text(key):
    pattern, operations = PATTERNS[key]
    failures = growth_failures(pattern, operations)
    assert not failures, f"{pattern.pattern!r} grows faster than linearly:\n" + "\n".join(failures)
