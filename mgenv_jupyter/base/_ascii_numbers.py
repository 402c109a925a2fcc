"""Whole numbers that someone else wrote (a URL's query, a file's key) are read as ASCII digits only.

`str.isdigit()` is true for '²', '①' and '⁵', which `int()` then refuses with a ValueError; `int()` itself also takes
' 7', '+7', '7_000' and other scripts' digits ('٣'), which nothing of ours writes. A check of either alone lets
something through that the other refuses, so text from outside is held to the one form both agree on.
"""

from __future__ import annotations


def whole_number(text: str, low: int, high: int) -> int | None:
    """The number `text` writes in ASCII digits (0-9 only, no sign, space or underscore), when it lies from `low` to
    `high`; None for anything else. Reads at most as many digits as `high` has (leading zeros count)."""
    if not (0 < len(text) <= len(str(high)) and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if low <= value <= high else None
