"""The presentation of variables, entries and changes as the wire schema's types (mgenv_jupyter/protocol), for the
sidebar: what the magics and widgets show, in messages."""

from __future__ import annotations

from ..catalog import Catalog, Entry
from ..catalog.frameworks import FRAMEWORKS
from ..protocol import ChangeInfo, EditorInfo, EntryInfo, FrameworkInfo, VariableInfo
from ..runtime import Change, EnvSession
from .details import details
from .editor import editor_spec
from .view import present


def entry_info(entry: Entry, language: str) -> EntryInfo:
    facts = details(entry, None, language)
    spec = editor_spec(entry)
    editor: EditorInfo = {
        "kind": spec.kind, "choices": list(spec.choices), "optional": spec.optional, "min": spec.minimum,
        "max": spec.maximum, "integer": spec.integer, "unit_bytes": spec.unit_bytes,
        "units": [{"name": name, "bytes": factor} for name, factor in spec.units], "on": spec.on, "off": spec.off,
        "placeholder": spec.placeholder,
    }
    return {
        "name": entry.name, "framework": entry.framework, "category": entry.category.get(language),
        "description": facts.description, "editor": editor, "when": entry.when.value, "reading": facts.reading,
        "read_at": facts.read_at, "readers": list(entry.readers), "default": facts.default, "allowed": facts.allowed,
        "caveats": list(facts.caveats), "replaced_by": facts.replaced_by, "note": facts.note,
        "applies_when": entry.applies_when.variable if entry.applies_when else None, "extra": entry.extra,
        "is_env": entry.is_env,
    }


def variable_info(session: EnvSession, name: str, language: str) -> VariableInfo:
    view = present(session, name, language)
    facts = view.details
    return {
        "value": view.value, "status": view.status.value, "message": view.message,
        "live": facts.live if facts else None, "live_example": facts.live_example if facts else False,
        "applies": view.applicability.applies, "applies_reason": view.applicability.reason,
    }


def change_info(change: Change, language: str) -> ChangeInfo:
    return {
        "seq": change.seq, "time": change.time, "name": change.name, "old": change.old, "new": change.new,
        "source": change.source, "outcome": change.outcome.value, "message": change.message.get(language),
        "effective": change.effective, "secret": change.secret,
    }


def framework_infos(known: Catalog, language: str) -> list[FrameworkInfo]:
    present_keys = set(known.frameworks())
    return [{"key": f.key, "label": f.label.get(language)} for f in FRAMEWORKS if f.key in present_keys]


def dependents(known: Catalog, names: set[str]) -> set[str]:
    """Variables whose applicability follows one of `names` (Paddle's pool sizes follow the strategy)."""
    return {entry.name for entry in known if entry.applies_when and entry.applies_when.variable in names}
