"""A callable's parameters as one comparable text, "(device=None)": names and defaults, no annotations (a stand-in
need not spell `'Device'` as torch does). Built-ins without a Python signature (pybind11, nanobind) are read from the
signature line their docstring starts with. Used both inside the framework venvs and by the stand-ins' tests."""

from __future__ import annotations

import inspect
import re
from typing import Any


def parameters(function: Any) -> str:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return _from_docstring(function)
    shown = []
    for parameter in signature.parameters.values():
        text = ("*" if parameter.kind is parameter.VAR_POSITIONAL else
                "**" if parameter.kind is parameter.VAR_KEYWORD else "") + parameter.name
        if parameter.default is not parameter.empty:
            text += f"={parameter.default!r}"
        shown.append(text)
    return "(" + ", ".join(shown) + ")"


def _from_docstring(function: Any) -> str:
    """`_accelerator_setAllocatorSettings(arg0: str) -> None` → "(arg0)"."""
    first = (getattr(function, "__doc__", None) or "").strip().splitlines()
    match = re.match(r"\w+\((.*?)\)\s*(->|$)", first[0]) if first else None
    if match is None:
        return "(unknown)"
    shown = []
    for part in filter(None, (part.strip() for part in match.group(1).split(","))):
        name, _, default = part.partition("=")
        shown.append(name.split(":")[0].strip() + (f"={default.strip()}" if default else ""))
    return "(" + ", ".join(shown) + ")"
