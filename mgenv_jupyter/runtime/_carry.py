"""What a restart must carry over so the user keeps what they set: the variables this session changed since the
kernel started (through a magic, a widget, the API, the sidebar, a file) whose value a framework reads when it starts —
at import, or at a first use — and which a new kernel therefore only gets if it has them before its first cell.

The kernel decides, for each such variable, whether a restart may carry it: never a secret (its value never leaves
the kernel), never one a notebook profile could not hold (a variable that can load code, judged as for a profile).
Front ends only list what the kernel said ("Restart and apply" in the sidebar) and send the values back to the new
kernel, which checks them again like any other change.
"""

from __future__ import annotations

from ..catalog import ReadWhen
from ..catalog._secrets import is_secret
from ..protocol._sidebar import CarryCode
from . import _policy as policy
from ._session import EnvSession

_READ_AT_START = (ReadWhen.IMPORT, ReadWhen.FIRST_USE)


def carry_code(session: EnvSession, name: str) -> CarryCode | None:
    """Whether a restart carries `name`: "carry", "secret" or "loads_code" (it cannot), or None when the session did
    not set it since the kernel started, set it back to the value the kernel started with, unset it, or a framework
    reads it on every use anyway (the next cell that sets it again is in time)."""
    entry = session.catalog.get(name)
    if entry is None or not entry.is_env or (entry.when not in _READ_AT_START and entry.first_use is None):
        return None
    value = session.environ.get(name)
    if value is None or value == session.start_environ.get(name) or not session.changed_by_session(name):
        return None
    if is_secret(name, value):
        return "secret"
    if policy.refusal(name, entry, value, "profile", force=False) is not None:
        return "loads_code"
    return "carry"


def carried(session: EnvSession) -> dict[str, CarryCode]:
    """Every variable `carry_code` says something about, in the order the session first changed them."""
    codes = {name: carry_code(session, name) for name in session.changed_through_session()}
    return {name: code for name, code in codes.items() if code is not None}


def still_to_carry(session: EnvSession, assignments: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What a restart's carried values still change in the new kernel: a value the kernel already holds (the
    notebook profile, applied just before, had it) is not set a second time."""
    return [(name, value) for name, value in assignments if session.get(name) != value]
