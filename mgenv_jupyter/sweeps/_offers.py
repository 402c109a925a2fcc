"""What the kernel hands to the open Framework Env sidebars for the user to act on, never acting itself: values for
the notebook profile (`SweepResult.apply()` of values the running framework already read), and a `%%envsweep` cell
to insert below the active cell ("try several values…", "try it first"), which the user then runs or not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..base._kernel_state import LastResultSlot
from ..base._last_result import LastResult


@dataclass(frozen=True)
class ProfileOffer:
    """Variables for the notebook profile, for restart-and-apply: every open sidebar adds them."""

    assignments: Mapping[str, str]


@dataclass(frozen=True)
class CellOffer:
    """A cell for the notebook: the followed notebook's sidebar inserts it below the active cell, unrun."""

    code: str


def profile_offers() -> LastResult[ProfileOffer]:
    """The kernel's last profile offer and the sidebars told of each (kept in the kernel's state)."""
    return _PROFILE_OFFERS.last()


def cell_offers() -> LastResult[CellOffer]:
    """The kernel's last cell offer and the sidebars told of each (kept in the kernel's state)."""
    return _CELL_OFFERS.last()


_PROFILE_OFFERS: LastResultSlot[ProfileOffer] = LastResultSlot("sweep's profile offer")
_CELL_OFFERS: LastResultSlot[CellOffer] = LastResultSlot("sweep cell offer")
