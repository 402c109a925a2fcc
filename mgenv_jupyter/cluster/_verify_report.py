"""`verify()`'s answer: a `Seen` per node and variable, and the nodes that did not answer, as a table (`frame()`),
as text (`lines()`, its repr) and, in a notebook, as HTML (verify_html.py). Every form labels the same codes (`Seen`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._nodes import Node
from ._seen import MISSING, Seen
from ._verify_html import report_html

if TYPE_CHECKING:
    import pandas


@dataclass(frozen=True)
class ClusterReport:
    """`verify()`'s answer: a `Seen` per node and variable, and the nodes that did not answer (label → why)."""

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

    def lines(self) -> list[str]:
        out = []
        for s in self.seen:
            if s.arrived == MISSING:
                out.append(f"{s.node}: {s.name} " + ("missing" if s.verdict == "missing"
                                                     else "ok, unset there as in the session"))
                continue
            verdict = "ok" if s.verdict == "ok" else f"differs (worker has {s.seen!r})"
            effect = ("; a framework imported there reads it" if s.takes_effect
                      else f"; already imported there: {', '.join(s.imported_before)}" if s.imported_before else "")
            out.append(f"{s.node}: {s.name} {verdict}, {s.arrived_text}{effect}")
        out += [f"{label}: no answer ({why})" for label, why in self.unanswered.items()]
        return out

    def __repr__(self) -> str:
        return "\n".join(self.lines()) or "no variables to verify"

    def _repr_html_(self) -> str:
        """In a notebook: a table, node by node, of what the workers hold (see `verify_html`)."""
        return report_html(self.seen, self.unanswered, self.ok)


__all__ = ["ClusterReport"]
