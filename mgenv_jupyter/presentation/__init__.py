"""The presentation layer, between the kernel's state (`runtime`) and the front ends (magics, ipywidgets, the
sidebar's comm): for each variable its status code with a bilingual label and reason, its editor, its details, and
whether it applies (the catalog's rules, evaluated in `catalog.applicability`). Front ends render this and decide
nothing themselves."""

from __future__ import annotations

from ._details import default_text, details
from ._editor import EditorSpec, KeySpec, editor_spec
from ._view import VariableView, present

__all__ = ["EditorSpec", "KeySpec", "VariableView", "default_text", "details", "editor_spec", "present"]
