"""`verify()`'s answer: a `Seen` per node and variable, and the nodes that did not answer, as data and as a table
(`frame()`); a notebook shows it as presentation's `VerifyView` (text and HTML). Every form labels the same codes
(`Seen`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from ..base._display import Shown
from ._nodes import Node
from ._seen import Seen

if TYPE_CHECKING:
    import pandas


@dataclass(frozen=True, repr=False)
class ClusterReport(Shown):
    """`verify()`'s answer: a `Seen` per node and variable, and the nodes that did not answer (label → why)."""

    display_kind: ClassVar[str] = "cluster_report"

    nodes: list[Node]
    seen: list[Seen]
    unanswered: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.unanswered and all(item.matches for item in self.seen)

    def frame(self) -> pandas.DataFrame:
        import pandas

        return pandas.DataFrame([{"node": s.node, "name": s.name, "expected": s.expected, "seen": s.seen,
                                  "matches": s.matches, "arrived": s.arrived_text,
                                  "imported_before": ", ".join(s.imported_before)} for s in self.seen],
                                columns=["node", "name", "expected", "seen", "matches", "arrived", "imported_before"])


__all__ = ["ClusterReport"]
