"""Every message the kernel sends the sidebar, built here and only here, as the wire schema's types
(mgenv_jupyter/protocol): the presentation of variables, entries, editors and changes (what the magics and widgets
show), the replies to each request, and the notices the kernel pushes (a change, an out-of-memory report, a
cluster.verify() result). comms/_requests.py routes requests to these builders and sends what they return.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..base._errors import InvalidValueError
from ..catalog import Catalog, Entry, ReadWhen
from ..catalog._allocator_config import KeyValueConfig
from ..catalog._frameworks import FRAMEWORKS
from ..catalog._secrets import MASK, is_secret, redact
from ..catalog._values import Size
from ..protocol import (
    PROTOCOL_VERSION,
    CatalogReply,
    ChangedNotice,
    ChangeInfo,
    EditorInfo,
    EntryInfo,
    ErrorReply,
    FrameworkInfo,
    HistoryReply,
    KernelInfo,
    ProfileItemInfo,
    ProfileReply,
    ResultReply,
    SizeInfo,
    StateReply,
    VariableInfo,
)
from ..protocol._freeing import FreedReply
from ..protocol._oom import OomNotice
from ..protocol._sidebar import KeyInfo, VerifyNodeInfo, VerifyNotice, VerifyVariableInfo
from ..runtime import Change, EnvSession, SetReport
from ..runtime._carry import carry_code
from ..runtime._status import furthest
from ..sweeps._suggest import suggested_values
from ._details import details
from ._editor import EditorSpec, KeySpec, editor_spec
from ._freeing import FreeView
from ._view import present
from .oom import OomView

if TYPE_CHECKING:
    from ..cluster._seen import Seen
    from ..cluster._verify_report import ClusterReport
    from ..oom._free import FreeResult
    from ..oom._report import OomReport
    from ..runtime._profile import ProfileItem

MAX_VALUE = 500  # characters of a verified value sent to the sidebar (it shows less; the notebook's report has all)
MAX_REASON = 300  # characters of why a node did not answer


# ---- the parts --------------------------------------------------------------------------------------------------


def editor_info(spec: EditorSpec) -> EditorInfo:
    """How the sidebar draws an editor: the spec every front end follows, with units and keys as objects."""
    return {
        "kind": spec.kind, "choices": list(spec.choices), "optional": spec.optional, "min": spec.minimum,
        "max": spec.maximum, "integer": spec.integer, "unit_bytes": spec.unit_bytes,
        "units": [{"name": name, "bytes": factor} for name, factor in spec.units], "on": spec.on, "off": spec.off,
        "placeholder": spec.placeholder, "keys": [key_info(key) for key in spec.keys],
    }


def key_info(key: KeySpec) -> KeyInfo:
    return {"name": key.name, "editor": editor_info(key.editor), "default": key.default, "allowed": key.allowed,
            "description": key.description}


def entry_info(entry: Entry, language: str) -> EntryInfo:
    facts = details(entry, None, language)
    return {
        "name": entry.name, "framework": entry.framework, "category": entry.category.get(language),
        "description": facts.description, "editor": editor_info(editor_spec(entry, language)),
        "when": entry.when.value, "reading": facts.reading, "read_at": facts.read_at, "readers": list(entry.readers),
        "default": facts.default, "default_size": size_info(entry, facts.default), "allowed": facts.allowed,
        "caveats": list(facts.caveats),
        "replaced_by": facts.replaced_by, "note": facts.note,
        "applies_when": entry.applies_when.variable if entry.applies_when else None, "extra": entry.extra,
        "is_env": entry.is_env,
        # "try several values…": a sweep sets environment variables, measures only what the framework reads, and
        # compares at least two values (a type that gives none, free text or a path, gets no button)
        "sweep": entry.is_env and entry.when is not ReadWhen.NOT_READ and bool(suggested_values(entry, None, None)),
    }


def variable_info(session: EnvSession, name: str, language: str) -> VariableInfo:
    view = present(session, name, language)
    facts = view.details
    return {
        "value": view.value, "status": view.status.value, "message": view.message,
        "live": facts.live if facts else None, "live_example": facts.live_example if facts else False,
        "applies": view.applicability.applies, "applies_reason": view.applicability.reason,
        "keys": _config_keys(view.entry, view.value), "size": size_info(view.entry, view.value),
        "carry": carry_code(session, name),
    }


def size_info(entry: Entry | None, value: str | None) -> SizeInfo | None:
    """A size setting's value split as the kernel writes it (`Size.split`), for the sidebar to show and edit; None for
    any other variable, no value, or a value that is not a whole count (shown as it is)."""
    if entry is None or value is None or not isinstance(entry.type, Size):
        return None
    parts = entry.type.split(value)
    return None if parts is None else {"number": parts[0], "unit": parts[1]}


def _config_keys(entry: Entry | None, value: str | None) -> dict[str, str] | None:
    """A `key:value` config's keys as its value type parses them (None: not such a config, unset, or unparsable)."""
    if entry is None or value is None or not isinstance(entry.type, KeyValueConfig):
        return None
    try:
        return {key: str(text) for key, text in dict(entry.type.parse(value).value).items()}
    except InvalidValueError:
        return None


def change_info(change: Change, language: str) -> ChangeInfo:
    return {
        "seq": change.seq, "time": change.time, "name": change.name, "old": change.old, "new": change.new,
        "source": change.source, "outcome": change.outcome.value, "message": change.message.get(language),
        "effective": change.effective, "secret": change.secret, "shown_old": change.shown_old,
        "shown_new": change.shown,
    }


def framework_infos(known: Catalog, language: str) -> list[FrameworkInfo]:
    present_keys = set(known.frameworks())
    return [{"key": f.key, "label": f.label.get(language)} for f in FRAMEWORKS if f.key in present_keys]


def dependents(known: Catalog, names: set[str]) -> set[str]:
    """Variables whose applicability follows one of `names` (Paddle's pool sizes follow the strategy)."""
    return {entry.name for entry in known if entry.applies_when and entry.applies_when.variable in names}


def kernel_info(session: EnvSession) -> KernelInfo:
    return {"python": sys.executable, "version": platform.python_version(),
            "imported": sorted(r.module for r in session.watcher.imported())}


def profile_item_info(item: ProfileItem, known: Catalog) -> ProfileItemInfo:
    entry = known.get(item.name)
    return {"name": item.name, "value": item.value, "size": size_info(entry, item.value), "current": item.current,
            "current_size": size_info(entry, item.current), "action": item.action, "reason": item.reason}


# ---- replies to a request -----------------------------------------------------------------------------------------


def error_reply(message: str, reply_to: str | None, field: str | None = None, code: str = "invalid") -> ErrorReply:
    """A refused request: why, and what is allowed (a secret in the text is masked); the variable it is about and
    what kind of error, for the front end to act on."""
    return {"v": PROTOCOL_VERSION, "type": "error", "reply_to": reply_to, "message": redact(message), "field": field,
            "code": code}


def catalog_reply(session: EnvSession, language: str, reply_to: str) -> CatalogReply:
    return {"v": PROTOCOL_VERSION, "type": "catalog", "reply_to": reply_to, "language": language,
            "entries": [entry_info(entry, language) for entry in session.catalog],
            "frameworks": framework_infos(session.catalog, language)}


def state_reply(session: EnvSession, language: str, reply_to: str | None, history: int,
                last_report: str | None) -> StateReply:
    """Every catalog variable now, the latest `history` changes, facts about the kernel and the id of its last
    out-of-memory report."""
    changes, total = session.history_window(limit=history)
    return {
        "v": PROTOCOL_VERSION, "type": "state", "reply_to": reply_to,
        "variables": {entry.name: variable_info(session, entry.name, language) for entry in session.catalog},
        "history": [change_info(c, language) for c in changes], "history_total": total,
        "kernel": kernel_info(session), "last_report": last_report,
    }


def result_reply(report: SetReport | None, language: str, reply_to: str) -> ResultReply:
    """A request done: what it changed, and the kernel's verdict on the batch (`furthest`: the status furthest from
    taking effect; whether it needs a restart), which the front ends say without deciding it again."""
    changes = list(report) if report is not None else []
    status = furthest(change.outcome for change in changes)
    return {"v": PROTOCOL_VERSION, "type": "result", "reply_to": reply_to,
            "changes": [change_info(c, language) for c in changes],
            "status": status.value if status is not None else None,
            "restart": status is not None and status.needs_restart}


def freed_reply(result: FreeResult, language: str, reply_to: str, earlier: bool = False) -> FreedReply:
    """What a "free" request gave back (the memory before and after, what was cleared), in the sidebar's language;
    `earlier`: the free that gave the report's failed cell back before this request, which freed nothing again."""
    return {"v": PROTOCOL_VERSION, "type": "freed", "reply_to": reply_to,
            "result": FreeView(result, language, earlier).data()}


def history_reply(changes: Iterable[Change], total: int, language: str, reply_to: str) -> HistoryReply:
    return {"v": PROTOCOL_VERSION, "type": "history", "reply_to": reply_to,
            "changes": [change_info(c, language) for c in changes], "total": total}


def profile_reply(digest: str, approved: bool, stored: bool, items: Iterable[ProfileItem],
                  applied: SetReport | None, known: Catalog, language: str, reply_to: str) -> ProfileReply:
    """A notebook profile reviewed: what applying it would do, whether this exact profile is approved (and the
    approval kept), and what was applied (None: nothing)."""
    return {"v": PROTOCOL_VERSION, "type": "profile", "reply_to": reply_to, "digest": digest, "approved": approved,
            "stored": stored, "applied": applied is not None,
            "items": [profile_item_info(item, known) for item in items],
            "changes": [change_info(c, language) for c in applied] if applied is not None else []}


# ---- notices ------------------------------------------------------------------------------------------------------


def changed_notice(session: EnvSession, report: SetReport, language: str) -> ChangedNotice:
    """What a change did, with the variables it touched and those whose applicability follows them (a strategy change
    greys or un-greys the pool sizes)."""
    names = {change.name for change in report}
    names |= dependents(session.catalog, names)
    return {"v": PROTOCOL_VERSION, "type": "changed", "changes": [change_info(c, language) for c in report],
            "variables": {name: variable_info(session, name, language) for name in sorted(names)}}


def oom_notice(report: OomReport, language: str) -> OomNotice:
    """The out-of-memory report for the panel, in the sidebar's language."""
    return {"v": PROTOCOL_VERSION, "type": "oom", "report": OomView(report, language).data()}


def verify_notice(report: ClusterReport, made: float) -> VerifyNotice:
    """The last cluster.verify() result for the panel: one entry per node, in the report's order, nodes that did not
    answer last with their reason. Codes, not words (the verdicts decided in cluster/_seen.py): the sidebar labels them
    in its own language. Secrets travel only as match or mismatch, never as a value or the mask."""
    nodes: list[VerifyNodeInfo] = []
    for node in dict.fromkeys(s.node for s in report.seen if s.node not in report.unanswered):
        variables = [_verified(s) for s in report.seen if s.node == node]
        missing = sum(1 for v in variables if v["verdict"] == "missing")
        mismatch = sum(1 for v in variables if v["verdict"] == "differs")
        nodes.append({"node": node, "state": "mismatch" if missing or mismatch else "ok", "reason": None,
                      "ok": len(variables) - missing - mismatch, "mismatch": mismatch, "missing": missing,
                      "variables": variables})
    for node, why in report.unanswered.items():
        nodes.append({"node": node, "state": "lost", "reason": _cut(why, MAX_REASON), "ok": 0, "mismatch": 0,
                      "missing": 0, "variables": []})
    return {"v": PROTOCOL_VERSION, "type": "verify", "time": made, "ok": report.ok, "nodes": nodes}


def _verified(item: Seen) -> VerifyVariableInfo:
    # The report already masks what it knows to be secret; a value shaped like a credential is judged here again, so
    # neither the value nor the mask reaches the front end.
    secret = (MASK in (item.expected, item.seen) or is_secret(item.name, item.expected)
              or is_secret(item.name, item.seen))
    return {"name": item.name, "secret": secret,
            "expected": None if secret or item.expected is None else _cut(item.expected, MAX_VALUE),
            "seen": None if secret or item.seen is None else _cut(item.seen, MAX_VALUE),
            "matches": item.matches, "verdict": item.verdict, "arrived": item.arrived,
            "imported_before": list(item.imported_before)}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
