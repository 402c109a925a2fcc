"""The presentation layer, between the kernel's state (`runtime`) and the front ends (magics, ipywidgets, the
sidebar's comm): for each variable its status code with a bilingual label and reason, its editor, its details, and
whether it applies (the catalog's rules, evaluated in `catalog.applicability`). Front ends render this and decide
nothing themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base._lazy_names import lazy_names

if TYPE_CHECKING:
    from ._details import default_text, details
    from ._editor import EditorSpec, KeySpec, editor_spec
    from ._view import VariableView, present

# Imported on first use: the out-of-memory report's view (presentation.oom) needs none of these, and a kernel's first
# report should not pay for them.
_EXPORTS = {"EditorSpec": "_editor", "KeySpec": "_editor", "editor_spec": "_editor", "VariableView": "_view",
            "present": "_view", "default_text": "_details", "details": "_details"}

__all__ = ["EditorSpec", "KeySpec", "VariableView", "default_text", "details", "editor_spec", "present"]

__getattr__, __dir__ = lazy_names(__name__, _EXPORTS, globals())
