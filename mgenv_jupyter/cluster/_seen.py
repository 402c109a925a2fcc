"""One variable on one node as `verify()` found it, with the verdict decided here once, as codes (protocol/_sidebar.py
VerifyArrival and VerifyVerdict): the notebook's table (verify_html.py), the report's text and the sidebar's view
(through the "verify" notice) only label them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..protocol._sidebar import VerifyArrival, VerifyVerdict

AT_START: VerifyArrival = "at_start"  # in the worker's start environment: every import there came after it
AFTER_START: VerifyArrival = "after_start"  # set while the worker ran: a reader imported before it did not see it
MISSING: VerifyArrival = "missing"  # the worker does not hold it

# How the report's text and the notebook's table call each arrival (the sidebar labels the codes in its language).
ARRIVED_TEXT: dict[VerifyArrival, str] = {AT_START: "at worker start", AFTER_START: "after worker start",
                                          MISSING: "missing"}


@dataclass(frozen=True)
class Seen:
    """One variable on one node: what the session wants and what the worker holds (masked when secret), and when it
    arrived there (a code: `AT_START`, `AFTER_START` or `MISSING`)."""

    node: str
    name: str
    expected: str | None
    seen: str | None
    matches: bool
    arrived: VerifyArrival
    imported_before: tuple[str, ...] = ()

    @property
    def takes_effect(self) -> bool:
        """A framework imported in that worker reads it: it was there when the worker started."""
        return self.arrived == AT_START

    @property
    def verdict(self) -> VerifyVerdict:
        """"ok": the worker holds the session's value (unset on both counts too); "missing": the session has a value
        the worker lacks; "differs": the worker holds another value."""
        if self.matches:
            return "ok"
        return "missing" if self.arrived == MISSING else "differs"

    @property
    def arrived_text(self) -> str:
        return ARRIVED_TEXT[self.arrived]


__all__ = ["AFTER_START", "ARRIVED_TEXT", "AT_START", "MISSING", "Seen"]
