"""The presentation layer, between the kernel's state (`runtime`) and the front ends (magics, ipywidgets, the
sidebar's comm): for each variable its status code with a bilingual label and reason, its editor, its details, and
the catalog's rules evaluated. Front ends render this and decide nothing themselves."""

from __future__ import annotations

from .details import Details, default_text, details, reading
from .editor import EditorSpec, KeySpec, editor_spec, key_specs
from .rules import Applicability, applicability, group_state
from .view import VariableView, present

__all__ = ["Applicability", "Details", "EditorSpec", "KeySpec", "VariableView", "applicability", "default_text",
           "details", "editor_spec", "group_state", "key_specs", "present", "reading"]
