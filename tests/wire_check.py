"""A run-time check that a message has exactly the schema's shape: every key, and the type of every value, nested
TypedDicts, literals, lists, dictionaries and unions included (mgenv_jupyter/protocol is the schema)."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin, get_type_hints, is_typeddict


def check(value: Any, hint: Any, path: str = "message") -> None:
    """Raise AssertionError naming the first place where `value` does not have the type `hint`."""
    origin = get_origin(hint)
    if is_typeddict(hint):
        assert isinstance(value, dict), f"{path}: expected {hint.__name__}, got {type(value).__name__}"
        hints = get_type_hints(hint)
        required, optional = set(hint.__required_keys__), set(hint.__optional_keys__)
        missing, extra = required - set(value), set(value) - required - optional
        assert not missing and not extra, f"{path} ({hint.__name__}): missing {missing}, unexpected {extra}"
        for key, item in value.items():
            check(item, hints[key], f"{path}.{key}")
    elif origin is Literal:
        assert value in get_args(hint), f"{path}: {value!r} is not one of {get_args(hint)}"
    elif origin in (typing.Union, types.UnionType):
        errors = []
        for option in get_args(hint):
            try:
                check(value, option, path)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError(" / ".join(errors))
    elif origin is list:
        assert isinstance(value, list), f"{path}: expected a list, got {type(value).__name__}"
        (item,) = get_args(hint)
        for index, element in enumerate(value):
            check(element, item, f"{path}[{index}]")
    elif origin is dict:
        assert isinstance(value, dict), f"{path}: expected an object, got {type(value).__name__}"
        _, item = get_args(hint)
        for key, element in value.items():
            assert isinstance(key, str), f"{path}: key {key!r} is not text"
            check(element, item, f"{path}[{key!r}]")
    elif hint is type(None):
        assert value is None, f"{path}: expected null, got {value!r}"
    elif hint is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{path}: expected a number"
    elif hint in (int, str, bool):
        assert isinstance(value, hint) and (hint is bool or not isinstance(value, bool)), (
            f"{path}: expected {hint.__name__}, got {type(value).__name__}")
    else:
        raise AssertionError(f"{path}: the schema uses {hint!r}, which this check does not know")
