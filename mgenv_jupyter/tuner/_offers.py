"""What the kernel hands to the open Framework Env sidebars for the user to act on, never acting itself: values for
the notebook profile (`SweepResult.apply()` of values the running framework already read), and a `%%envsweep` cell
to insert below the active cell ("try several values…", "try it first"), which the user then runs or not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .._last_result import LastResult


@dataclass(frozen=True)
class ProfileOffer:
    """Variables for the notebook profile, for restart-and-apply: every open sidebar adds them."""

    assignments: Mapping[str, str]


@dataclass(frozen=True)
class CellOffer:
    """A cell for the notebook: the followed notebook's sidebar inserts it below the active cell, unrun."""

    code: str


profile_offers: LastResult[ProfileOffer] = LastResult("sweep's profile offer")
cell_offers: LastResult[CellOffer] = LastResult("sweep cell offer")
