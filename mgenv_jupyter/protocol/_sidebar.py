"""The sidebar's messages over the comm target `mgenv_jupyter`: part of the one wire schema (with `_memory.py`), from
which labextension/src/schema.ts is generated (`python -m mgenv_jupyter.protocol`).

Every message carries `v` (the protocol version). Requests carry an `id`; the kernel's answer carries it back as
`reply_to`. Nothing in a message is ever executed: names and values are data, validated by the catalog.

Front end → kernel:
    {"v": 1, "id": "…", "type": "hello", "language": "en"}            → "catalog", then "state"
    {"v": 1, "id": "…", "type": "set", "assignments": {"NAME": "VALUE"}, "source": "sidebar", "force": false,
     "env_only": false}                                              → "result" (or "error"), then "changed"
                                      (source "restart": the values "Restart and apply" carries into a new kernel)
    {"v": 1, "id": "…", "type": "unset", "names": ["NAME"], "source": "sidebar"}        → same
    {"v": 1, "id": "…", "type": "refresh"}                             → "state"
    {"v": 1, "id": "…", "type": "memory", "on": true, "interval": 0.1} → "result", then "memory.batch" messages
    {"v": 1, "id": "…", "type": "history", "before": 120, "limit": 100}  → "history" (changes numbered below 120)
    {"v": 1, "id": "…", "type": "profile", "profile": {"NAME": "VALUE"}, "approve": false, "apply": true}
                                                                     → "profile" (and "changed" if applied)
    {"v": 1, "id": "…", "type": "verify"}    → runs cluster.verify() when Ray is initialised in the kernel: "result",
                                               then a "verify" notice to every sidebar (else "error", saying why)
    {"v": 1, "id": "…", "type": "free"}
                                             → gives back what the failed cell holds (protocol/_freeing.py): "freed",
                                               with the memory before and after
    {"v": 1, "id": "…", "type": "remedy", "report_id": "…", "remedy_id": "…"}
                                             → applies that remedy of the kernel's own last out-of-memory report
                                               (protocol/_oom.py): "result", or "error" for an unknown or stale id

Kernel → front end:
    "catalog"  every entry (EntryInfo: description, editor, details) in the requested language, and the frameworks
    "state"    every catalog variable's value and status, the latest changes, and facts about the kernel
    "history"  a window of older changes
    "profile"  a notebook profile reviewed: what applying it would change, what the kernel refuses and why, whether
               this exact profile is approved (the approval is kept outside the notebook), and what was applied
    "result"   a request succeeded; `changes` lists what it changed
    "error"    a request was rejected; `message` says why and what is allowed; nothing changed
    "changed"  sent to every open comm whenever anything changes the session (magics, widgets, the sidebar)
    "memory.batch" / "memory.snapshot"  the live memory stream (format: _memory.py beside this module)
    "verify"   the last cluster.verify() result node by node (`VerifyNotice`): sent to every open sidebar when
               verify() returns, and after a sidebar's hello when the kernel has one

Statuses travel as codes (`StatusCode`); front ends label them from one bilingual table (`Status.label`, generated
into the TypeScript as STATUS_LABELS).
"""

from __future__ import annotations

from typing import Literal, TypedDict

PROTOCOL_VERSION = 1
COMM_TARGET = "mgenv_jupyter"
# What the sidebar runs in a kernel that may not have loaded the extension: it loads it as `%load_ext mgenv_jupyter`
# does, without marking it loaded in IPython's extension manager, so the user's own `%load_ext mgenv_jupyter` (the
# README's first step) loads it again, harmless and quiet, rather than answering "already loaded... use %reload_ext".
# A constant: no source is ever built from what the user typed.
LOAD_CODE = "__import__('mgenv_jupyter').load_ipython_extension(get_ipython())"

REQUEST_TYPES = ("hello", "set", "unset", "refresh", "memory", "history", "profile", "verify", "free", "remedy",
                 "memtrace", "sweep_cell")
REPLY_TYPES = ("catalog", "state", "result", "error", "changed", "history", "profile", "freed", "sweep_cell")
# A notebook profile is applied only through a "profile" request, after the user approved that exact profile.
# An out-of-memory report's button sends a "remedy" request naming the kernel's own remedy (protocol/_oom.py), never
# a "set": the source "oom_report" is the kernel's own, and a set or unset that claims it is refused.
SIDEBAR_SOURCES = ("sidebar", "restart")


class HelloRequest(TypedDict):
    v: int
    id: str
    type: Literal["hello"]
    language: str


class SetRequest(TypedDict):
    v: int
    id: str
    type: Literal["set"]
    assignments: dict[str, str]
    source: str
    force: bool
    env_only: bool


class UnsetRequest(TypedDict):
    v: int
    id: str
    type: Literal["unset"]
    names: list[str]
    source: str


class RefreshRequest(TypedDict):
    v: int
    id: str
    type: Literal["refresh"]


class MemoryRequest(TypedDict):
    v: int
    id: str
    type: Literal["memory"]
    on: bool
    interval: float


class HistoryRequest(TypedDict):
    v: int
    id: str
    type: Literal["history"]
    before: int | None
    limit: int


class ProfileRequest(TypedDict):
    v: int
    id: str
    type: Literal["profile"]
    profile: dict[str, str]
    approve: bool
    apply: bool


class VerifyRequest(TypedDict):
    """Run cluster.verify() in the kernel (only when Ray is initialised there). No code travels: just this request."""

    v: int
    id: str
    type: Literal["verify"]


StatusCode = Literal["effective", "pending_import", "pending_first_use", "already_read", "applied_live",
                     "may_be_latched", "no_longer_read", "option", "unset"]
EditorKind = Literal["choice", "switch", "presence", "fraction", "number", "size", "text", "key_value"]
# Changes a "history" request may ask for at once, and the most a sidebar holds.
MAX_HISTORY_WINDOW = 500
# The choice an optional NPURunConfig keyword offers for "leave it to the framework" (presentation/_editor.py).
NONE_CHOICE = "None"
ReadingCode = Literal["import", "first_use", "per_object", "every_call", "not_read", "option"]
# Whether a restart carries a variable the session set since the kernel started and a framework reads at start
# (runtime/_carry.py): "carry", or why it cannot: a secret never leaves the kernel, a variable that can load code
# never comes back from a front end without force.
CarryCode = Literal["carry", "secret", "loads_code"]


class SizeInfo(TypedDict):
    """A size setting's value as the kernel writes it in the one notation of sizes (catalog/_values.py `size_parts`:
    the largest unit that divides it exactly): "5" and "GiB" for the "5368709120" the environment holds. A size editor
    shows the two parts; everywhere else the sidebar writes "<number> <unit>" ("5 GiB") with the value itself on
    hover. The front end never splits a size itself."""

    number: str
    unit: str


class VariableInfo(TypedDict):
    """A variable's state now: its value (secrets masked), status and why, the live API written out with this value
    (or the default, then `live_example`), whether it applies with the values chosen (and why not), and for a
    `key:value` config its keys as the kernel parsed the value (`keys`; null for any other variable, when unset, or
    when the value does not parse), so the front end never splits it itself; likewise a size's value split into a
    number and a unit (`size`; null for any other variable, when unset, or when the value is not a whole count).
    `carry`: what "Restart and apply" does with the value this session set (runtime/_carry.py); null when there is
    nothing to carry."""

    value: str | None
    status: StatusCode
    message: str
    live: str | None
    live_example: bool
    applies: bool
    applies_reason: str | None
    keys: dict[str, str] | None
    size: SizeInfo | None
    carry: CarryCode | None


class UnitInfo(TypedDict):
    name: str
    bytes: int


class KeyInfo(TypedDict):
    """One key of a `key:value` config (PyTorch's allocator config): its own editor (a choice, a switch, a number or
    text), the framework's value while the key is left out (`default`; null: off or unlimited), what it takes, in
    words, and what it does, in the catalog's language."""

    name: str
    editor: EditorInfo
    default: str | None
    allowed: str
    description: str


class EditorInfo(TypedDict):
    """How to edit a variable (presentation/_editor.py): the same editor kind and bounds in every front end. A
    "key_value" editor has one typed editor per key (`keys`, in the config's order; empty for every other kind): a key
    left at its default is left out of the joined value, which the kernel checks and sets as one value."""

    kind: EditorKind
    choices: list[str]
    optional: bool
    min: float | None
    max: float | None
    integer: bool
    unit_bytes: int
    units: list[UnitInfo]
    on: str | None
    off: str | None
    placeholder: str
    keys: list[KeyInfo]


class EntryInfo(TypedDict):
    """A catalog entry as front ends show it, in one language (presentation layer); a size's default also split as
    the kernel writes it (`default_size`, as VariableInfo.size)."""

    name: str
    framework: str
    category: str
    description: str
    editor: EditorInfo
    when: ReadingCode
    reading: str
    read_at: str
    readers: list[str]
    default: str | None
    default_size: SizeInfo | None
    allowed: str
    caveats: list[str]
    replaced_by: str | None
    note: str | None
    applies_when: str | None
    extra: bool
    is_env: bool
    sweep: bool  # the sidebar offers "try several values…" (a %%envsweep cell) for it


class FrameworkInfo(TypedDict):
    key: str
    label: str


class ChangeInfo(TypedDict):
    seq: int
    time: float
    name: str
    old: str | None
    new: str | None
    source: str
    outcome: StatusCode
    message: str
    effective: str | None
    secret: bool
    shown_old: str | None  # `old` and `new` as a user reads them where that differs: a size as "5 GiB" (the kernel's
    shown_new: str | None  # one notation of sizes); null: as they are


class KernelInfo(TypedDict):
    python: str
    version: str
    imported: list[str]


class CatalogReply(TypedDict):
    v: int
    type: Literal["catalog"]
    reply_to: str | None
    language: str
    entries: list[EntryInfo]
    frameworks: list[FrameworkInfo]


class StateReply(TypedDict):
    v: int
    type: Literal["state"]
    reply_to: str | None
    variables: dict[str, VariableInfo]
    history: list[ChangeInfo]
    history_total: int
    kernel: KernelInfo
    # The id of the kernel's last out-of-memory report (null: none since the extension loaded): a report shown with
    # another id belongs to an earlier kernel or an earlier failure, and the kernel refuses its buttons.
    last_report: str | None


class ResultReply(TypedDict):
    """A request succeeded: what it changed, the status that stands for the whole batch (of its changes', the one
    furthest from taking effect now; null when nothing changed) and whether that status needs a restart of the kernel
    (`Status.needs_restart`): decided in the kernel, the front end only says it."""

    v: int
    type: Literal["result"]
    reply_to: str
    changes: list[ChangeInfo]
    status: StatusCode | None
    restart: bool


class ErrorReply(TypedDict):
    """A refused request: `message` for people; `field` (the variable it is about, or null) and `code` (what kind of
    error: "bad_value", "near_miss", "refused", "bad_request", "internal", ...) for code, which never reads the
    message."""

    v: int
    type: Literal["error"]
    reply_to: str | None
    message: str
    field: str | None
    code: str


class ChangedNotice(TypedDict):
    v: int
    type: Literal["changed"]
    changes: list[ChangeInfo]
    variables: dict[str, VariableInfo]


class HistoryReply(TypedDict):
    v: int
    type: Literal["history"]
    reply_to: str
    changes: list[ChangeInfo]
    total: int


ProfileAction = Literal["set", "unchanged", "refused"]


class ProfileItemInfo(TypedDict):
    """One variable of a reviewed profile: its value there, the kernel's now, what applying does (and why not); for a
    size, both split as the kernel writes them (`size`, `current_size`, as VariableInfo.size), so the profile and the
    question before it is applied show 3 GiB."""

    name: str
    value: str | None
    size: SizeInfo | None
    current: str | None
    current_size: SizeInfo | None
    action: ProfileAction
    reason: str | None


class ProfileReply(TypedDict):
    v: int
    type: Literal["profile"]
    reply_to: str
    digest: str
    approved: bool
    stored: bool
    applied: bool
    items: list[ProfileItemInfo]
    changes: list[ChangeInfo]


VerifyArrival = Literal["at_start", "after_start", "missing"]
# "ok": the worker holds the session's value; "missing": the session has a value the worker lacks; "differs": another.
VerifyVerdict = Literal["ok", "differs", "missing"]
VerifyNodeState = Literal["ok", "mismatch", "lost"]


class VerifyVariableInfo(TypedDict):
    """One variable on one node, as cluster.verify() found it: the session's value and what that node's workers hold
    (both null for a secret: the kernel compared it, and only `matches` says how that went), when it arrived in the
    worker ("at_start": in the environment the worker process started with, so a framework imported there reads it)
    and the framework modules that worker had already imported. `verdict` is the kernel's one verdict
    (cluster/_seen.py), which every front end labels."""

    name: str
    secret: bool
    expected: str | None
    seen: str | None
    matches: bool
    verdict: VerifyVerdict
    arrived: VerifyArrival
    imported_before: list[str]


class VerifyNodeInfo(TypedDict):
    """One node: "lost" when it did not answer (`reason` says why), "mismatch" when a variable differs or is missing
    there, and how many variables matched, differed and were missing."""

    node: str
    state: VerifyNodeState
    reason: str | None
    ok: int
    mismatch: int
    missing: int
    variables: list[VerifyVariableInfo]


class VerifyNotice(TypedDict):
    """Kernel → sidebar: the last cluster.verify() result, node by node (`time`: when it was made, epoch seconds)."""

    v: int
    type: Literal["verify"]
    time: float
    ok: bool
    nodes: list[VerifyNodeInfo]
