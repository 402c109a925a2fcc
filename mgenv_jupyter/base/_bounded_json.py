"""JSON from another program read as data within bounds: its nesting and its numbers are checked before and while
Python's parser builds anything.

`json.loads` recurses once per level of nesting, so '[' × 100,000 raises RecursionError (not the ValueError a caller
expects of bad JSON), and it builds an int of any length, so a 400-digit number makes `float()` raise OverflowError
later. Here the nesting is measured first, in a few passes of C-level string operations over text that the caller
has already bounded in size; integers are refused beyond 19 digits, floats beyond 32 characters or when not finite,
and NaN and Infinity (which JSON does not have, but Python writes and reads) are refused. Every refusal is a
ValueError.
"""

from __future__ import annotations

import json
import math
import re

MAX_INT_DIGITS = 19  # |n| < 10**19: any pid, byte count or version; 2**63 has 19 digits
MAX_FLOAT_CHARACTERS = 32

# A JSON string: from a quote to the next quote that no backslash escapes. The closing quote is optional so that an
# unterminated string also matches (to the end) from its quote: the search never fails at a quote and starts again
# one character later, which could take time quadratic in the text. The parser refuses such text afterwards.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_ONE_KIND = str.maketrans("{}", "[]")


def loads(data: bytes, max_depth: int) -> object:
    """The JSON value of `data` (UTF-8), nested at most `max_depth` arrays or objects deep; ValueError for anything
    else: not UTF-8, not JSON, deeper, a number out of bounds, NaN or Infinity."""
    text = data.decode("utf-8")
    depth = nesting(text, max_depth)
    if depth > max_depth:
        raise ValueError(f"the JSON is nested deeper than {max_depth} levels, or its brackets do not pair")
    return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)


def nesting(text: str, limit: int) -> int:
    """How deep the arrays and objects of JSON `text` nest, counted up to `limit` (limit + 1: deeper, or brackets that
    do not pair). Brackets inside strings do not count."""
    brackets = _NOT_A_BRACKET.sub("", _STRING.sub("", text)).translate(_ONE_KIND)
    # Each pass takes away every "[]" of the text as it was before the pass: the innermost pairs, so exactly one level.
    for depth in range(limit + 1):
        if not brackets:
            return depth
        shorter = brackets.replace("[]", "")
        if len(shorter) == len(brackets):  # nothing pairs: not JSON
            return limit + 1
        brackets = shorter
    return limit + 1


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"a JSON integer of more than {MAX_INT_DIGITS} digits")
    return int(digits)


def _float(text: str) -> float:
    value = float(text) if len(text) <= MAX_FLOAT_CHARACTERS else math.inf
    if not math.isfinite(value):
        raise ValueError("a JSON number that is not a finite float of at most 32 characters")
    return value


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")
