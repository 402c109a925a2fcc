"""How an adapter describes its framework's out-of-memory errors (`OOM_PATTERNS`, asked by oom/_recognise.py): the
exception classes, a message pattern and how to read the sizes and the device out of a match.

Every pattern is the text of the framework's own source, cited where it is written, or an error captured from the real
framework. Messages are outside input: patterns are linear in the text (tests/quality/test_linear_patterns.py), and
"A, then later B" is a search for B from the end of A (`after`), never `A.*B`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

# Sizes as the frameworks print them: "1024.00 GiB" (PyTorch), "1.00TiB" (XLA), "1.000000GB" (Paddle's
# HumanReadableSize, 1024-based), "1,099,511,627,776 bytes" (CuPy), "0 bytes".
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2,
          "mib": 1024**2, "g": 1024**3, "gb": 1024**3, "gib": 1024**3, "t": 1024**4, "tb": 1024**4, "tib": 1024**4,
          "p": 1024**5, "pb": 1024**5, "pib": 1024**5}
SIZE = r"[0-9][0-9,]*(?:\.[0-9]+)?\s*(?:[KMGTP]i?B|[KMGTP]B|bytes?|B)?"
_SIZE_PARTS = re.compile(r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*([A-Za-z]*)")
MESSAGE_CHARS = 2000  # of each message kept in the report, and of a message a device is looked for in
_GPU_DIGITS = 6  # a GPU index longer than this is no GPU's (and int() refuses over 4300 digits)

Facts = Callable[[re.Match[str] | None], dict[str, int]]


def parse_size(text: str) -> int | None:
    """Bytes in a size as a framework message prints it ("2.00 GiB", "1.00TiB", "716.750000MB", "1,024 bytes")."""
    match = _SIZE_PARTS.fullmatch(text.strip())
    if match is None:
        return None
    unit = _UNITS.get(match.group(2).lower())
    if unit is None:
        return None
    number = float(match.group(1).replace(",", "")) * unit
    # A message is outside input: "999...9 bytes" would be an infinite float, which int() refuses (OverflowError).
    return int(number) if math.isfinite(number) else None


@dataclass(frozen=True)
class OomPattern:
    """Classes (any of them in the MRO) and a message pattern (None: any message) that make an out-of-memory error;
    `facts` reads the sizes out of the match; `where`, for a framework whose messages do not always name the device,
    decides it (device, GPU index) from the match and the whole message instead of `device`. With `after`, the
    pattern is searched only past the first occurrence of that text (none: no match), so "A, then later B" is a
    linear search for B from a position rather than a pattern `A.*B`, which is quadratic in a text repeating A."""

    framework: str
    device: str
    classes: tuple[str, ...]
    message: re.Pattern[str] | None
    facts: Facts = lambda match: {}
    where: Callable[[re.Match[str] | None, str], tuple[str, int | None]] | None = None
    after: str = ""

    def search(self, text: str) -> re.Match[str] | None:
        if self.message is None:
            return None
        start = 0
        if self.after:
            found = text.find(self.after)
            if found < 0:
                return None
            start = found + len(self.after)
        return self.message.search(text, start)


def sizes(**groups: str) -> Facts:
    """Facts from the named groups of a match: fact name → group name."""
    def read(match: re.Match[str] | None) -> dict[str, int]:
        found = {}
        for fact, group in groups.items():
            text = match.group(group) if match is not None else None
            value = parse_size(text) if text else None
            if value is not None:
                found[fact] = value
        return found
    return read


def gpu_index(match: re.Match[str] | None) -> dict[str, int]:
    digits = match.groupdict().get("gpu") if match is not None else None
    return {"gpu": int(digits)} if digits and len(digits) <= _GPU_DIGITS else {}


def both(*readers: Facts) -> Facts:
    return lambda match: {key: value for reader in readers for key, value in reader(match).items()}
