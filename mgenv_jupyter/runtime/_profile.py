"""A notebook profile under review: what applying it would change, what the kernel refuses, and applying it.

The profile is data from a file that may come from anyone. Nothing in it is applied until the user has approved that
exact content (`ProfileTrust`); even then the kernel applies only catalog variables, never a code-loading variable or a
secret (`policy.refusal`), and only values their type accepts. Refused items are listed with the reason, and the rest
is applied as one batch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..base._errors import InvalidValueError
from ..base._text import Text
from ..catalog._secrets import shown
from ..protocol import ProfileAction
from . import _policy as policy
from ._outcome import SetReport
from ._session import EnvSession

Action = ProfileAction
MAX_ITEMS = 1000
TOO_MANY = Text("a profile holds at most {count} variables", "一份配置最多只能有 {count} 个变量")


@dataclass(frozen=True)
class ProfileItem:
    """One variable of a profile: its value as shown (secrets masked), the kernel's value now, and what applying the
    profile would do with it ("set", "unchanged", "refused" with the reason)."""

    name: str
    value: str | None
    current: str | None
    action: Action
    reason: str | None = None


def review(session: EnvSession, profile: Mapping[str, str]) -> list[ProfileItem]:
    """What applying `profile` would do, variable by variable. Changes nothing."""
    if len(profile) > MAX_ITEMS:
        raise InvalidValueError(TOO_MANY.get().format(count=MAX_ITEMS))
    items = []
    for name, value in profile.items():
        entry = session.catalog.get(name)
        shown_name = name if len(name) <= 100 else name[:100] + "…"
        current = shown(name, session.get(name)) if entry is not None else None
        reason = policy.refusal(name, entry, value, "profile", force=False)
        if reason is None and entry is not None:
            try:
                parsed = entry.type.parse(value)
            except InvalidValueError:
                reason = f"{name}: the value is not allowed here: expected {entry.type.allowed()}"
            else:
                action: Action = "unchanged" if parsed.text == session.get(name) else "set"
                items.append(ProfileItem(name, shown(name, value), current, action))
                continue
        items.append(ProfileItem(shown_name, shown(name, value), current, "refused", reason))
    return items


def apply(session: EnvSession, profile: Mapping[str, str], items: list[ProfileItem]) -> SetReport | None:
    """Set every item the review accepted, as one batch with source "profile" (the kernel checks each again)."""
    chosen = [(item.name, profile[item.name]) for item in items if item.action == "set"]
    return session.set(chosen, source="profile") if chosen else None
