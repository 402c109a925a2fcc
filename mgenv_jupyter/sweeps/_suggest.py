"""The values "try several values…" proposes for a variable, from its catalog type alone (no framework is named here):
every choice of a closed type, on and off for a switch, sizes around the device's memory for a size, a spread of a
bounded number, doublings around the current value of a number bounded on one side only, each choice of a `key:value`
config's first key with choices. The user edits them before running. A sweep compares: a type that gives no second
value (free text, a path, a one-choice switch) gets none, never a one-value sweep."""

from __future__ import annotations

from ..catalog import Entry
from ..catalog._allocator_config import KeyValueConfig
from ..catalog._values import Integer, Number, Size

MiB = 1024**2
GiB = 1024**3
SHARES = (0.25, 0.5, 0.75, 0.9)  # of the device: the seed's thresholds ran from a fifth of the card to nearly all
MAX_CHOICES = 6


def suggested_values(entry: Entry, current: str | None, device_total: int | None) -> list[str]:
    """Values to try for `entry`, the current one (or the default) among them where it is a value of its own; [] when
    its type gives fewer than two values to compare."""
    kind = entry.type
    now = current if current is not None else entry.default
    if isinstance(kind, KeyValueConfig):
        return _config_values(kind, now)
    choices = list(kind.choices())
    if choices and all("," not in c and ":" not in c for c in choices):  # a closed set of words
        values = choices[:MAX_CHOICES]
    elif isinstance(kind, Size):
        values = _sizes(kind, now, device_total)
    elif isinstance(kind, (Integer, Number)) and kind.minimum is not None and kind.maximum is not None:
        values = _spread(kind.minimum, kind.maximum, isinstance(kind, Integer))
    elif isinstance(kind, (Integer, Number)):
        values = [value for value in _doublings(now, isinstance(kind, Integer)) if _normal(entry, value) is not None]
    else:
        values = []
    if now is not None and _normal(entry, now) is not None and _normal(entry, now) not in {
            _normal(entry, value) for value in values}:
        values.insert(0, now)
    return values if len(values) >= 2 else []


def _doublings(current: str | None, whole: bool) -> list[str]:
    """Half, itself, twice and four times a positive current value; 1, 2, 4, 8 without one."""
    try:
        base = float(current) if current is not None else 0.0
    except ValueError:
        base = 0.0
    if not base > 0 or base != base or base == float("inf"):
        base = 2.0
    points = [base * factor for factor in (0.5, 1, 2, 4)]
    return list(dict.fromkeys(str(max(1, int(round(p)))) if whole else f"{p:g}" for p in points))


def _normal(entry: Entry, text: str) -> str | None:
    """`text` as the variable's type normalises it; None when it is not one of its values."""
    try:
        return entry.type.parse(text).text
    except Exception:  # not a value of the type (an unset default written as words)
        return None


def _sizes(kind: Size, current: str | None, device_total: int | None) -> list[str]:
    unit = kind.unit
    if current and current.isdigit() and int(current) > 0:  # around what it is: a half, itself, twice, four times
        base = int(current) * unit
        values = [_size_text(base * factor // 2, unit) for factor in (1, 2, 4, 8)]
    elif device_total:  # unset or 0 (often "no limit"): shares of the device, as the seed tried
        values = [_size_text(int(device_total * share), unit) for share in SHARES]
    else:
        values = [_size_text(GiB * factor, unit) for factor in (1, 2, 4, 8)]
    return list(dict.fromkeys(values))


def _size_text(nbytes: int, unit: int) -> str:
    """A size as a word the magic's line takes, in the product's one notation (catalog SIZE_UNITS): whole GiB where it
    is that large, else whole MiB, else KiB."""
    if nbytes >= GiB and nbytes % GiB == 0 or nbytes >= 4 * GiB:
        return f"{round(nbytes / GiB)}GiB"
    if nbytes >= MiB:
        return f"{round(nbytes / MiB)}MiB"
    return f"{max(1, round(nbytes / 1024))}KiB"


def _spread(low: float, high: float, whole: bool) -> list[str]:
    points = [low + (high - low) * share for share in (0.25, 0.5, 0.75, 1.0)]
    return list(dict.fromkeys(str(int(round(p))) if whole else f"{p:g}" for p in points))


def _config_values(kind: KeyValueConfig, current: str | None) -> list[str]:
    """The current config with each choice of its first key that has choices (PyTorch's expandable_segments)."""
    try:
        base = dict(kind.split(current)) if current else {}
    except Exception:  # an unreadable current value: start from none
        base = {}
    # A true/false key before any other with choices: the switch users compare first.
    key = next((k for k in kind.keys if {c.lower() for c in k.type.choices()} == {"true", "false"}), None) or next(
        (k for k in kind.keys if k.type.choices()), None)
    if key is None:
        return [current] if current else []
    values = []
    for choice in key.type.choices()[:MAX_CHOICES]:
        try:
            values.append(kind.join({**base, key.name: choice}).text)
        except Exception:  # a combination the config refuses
            continue
    return list(dict.fromkeys(values))
