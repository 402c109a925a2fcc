"""`VerifyView`: `verify()`'s answer (a `ClusterReport`) as a notebook shows it: one line per node and variable as
text, and one table, node by node, of what each node's workers hold for each variable, whether that is the session's
value, and when it arrived (so whether a framework there reads it). Every form labels the same verdicts
(cluster/_seen.py).

Values are shown as the session shows them (its normalised text: "5368709120", not "5GB"), a secret as the mask only
(the report never holds one in clear; a value shaped like a credential is masked here too), long ones cut with the
whole value as a tooltip. Everything quoted is escaped: a value is data, never markup.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..base._display import text_and_html
from ..catalog._secrets import shown
from ..cluster._seen import MISSING, Seen
from ..cluster._verify_report import ClusterReport

_LONGEST = 48  # characters of a value shown in the table; the whole value is its tooltip

_STYLE = """<style>
.mgenv-verify { max-width: 100%; overflow-x: auto; font-size: var(--jp-ui-font-size1, 12px); }
.mgenv-verify-summary { margin: 2px 0 4px; font-weight: 600; }
.mgenv-verify-summary.mgenv-verify-bad { color: var(--jp-error-color1, #d32f2f); }
.mgenv-verify table.mgenv-verify-table { border-collapse: collapse; table-layout: auto; width: auto; max-width: 100%;
  margin: 0; }
.mgenv-verify table.mgenv-verify-table th, .mgenv-verify table.mgenv-verify-table td { padding: 2px 8px;
  text-align: left; vertical-align: top; line-height: 1.35; white-space: normal; max-width: none;
  border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); }
.mgenv-verify table.mgenv-verify-table th { font-weight: 600; }
.mgenv-verify table .mgenv-verify-node { font-weight: 600; white-space: nowrap; }
.mgenv-verify table .mgenv-verify-name, .mgenv-verify table .mgenv-verify-value {
  font-family: var(--jp-code-font-family, monospace); }
.mgenv-verify table .mgenv-verify-value { max-width: 16em; overflow-wrap: anywhere; }
.mgenv-verify table .mgenv-verify-ok { color: var(--jp-success-color1, #388e3c); }
.mgenv-verify table .mgenv-verify-differs, .mgenv-verify table .mgenv-verify-missing {
  color: var(--jp-error-color1, #d32f2f); }
.mgenv-verify table .mgenv-verify-note { color: var(--jp-ui-font-color2, #666); }
</style>"""


@dataclass(frozen=True)
class VerifyView:
    report: ClusterReport

    def lines(self) -> list[str]:
        out = []
        for s in self.report.seen:
            if s.arrived == MISSING:
                out.append(f"{s.node}: {s.name} " + ("missing" if s.verdict == "missing"
                                                     else "ok, unset there as in the session"))
                continue
            verdict = "ok" if s.verdict == "ok" else f"differs (worker has {s.seen!r})"
            effect = ("; a framework imported there reads it" if s.takes_effect
                      else f"; already imported there: {', '.join(s.imported_before)}" if s.imported_before else "")
            out.append(f"{s.node}: {s.name} {verdict}, {s.arrived_text}{effect}")
        out += [f"{label}: no answer ({why})" for label, why in self.report.unanswered.items()]
        return out

    def __repr__(self) -> str:
        return "\n".join(self.lines()) or "no variables to verify"

    def _repr_html_(self) -> str:
        """A table, node by node, of what the workers hold (see `report_html`)."""
        return report_html(self.report.seen, self.report.unanswered, self.report.ok)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return text_and_html(self)


def report_html(seen: Sequence[Seen], unanswered: Mapping[str, str], ok: bool) -> str:
    """verify()'s report (what each node's workers hold, the nodes that did not answer and why, whether all is as the
    session has it) as an HTML table, one group of rows per node (a node that did not answer: one row saying why)."""
    nodes = list(dict.fromkeys([*(s.node for s in seen), *unanswered]))
    rows: list[str] = []
    for node in nodes:
        items = [s for s in seen if s.node == node]
        span = max(1, len(items))
        head = f"<td class='mgenv-verify-node' rowspan='{span}'>{_text(node)}</td>"
        if node in unanswered:
            rows.append(f"<tr>{head}<td colspan='4' class='mgenv-verify-missing'>no answer: "
                        f"{_text(unanswered[node])}</td></tr>")
            continue
        for index, item in enumerate(items):
            rows.append("<tr>" + (head if index == 0 else "") + _row(item) + "</tr>")
    return (f"{_STYLE}<div class='mgenv-verify'>{_summary(seen, unanswered, ok, nodes)}"
            "<table class='mgenv-verify-table'>"
            "<thead><tr><th>node</th><th>variable</th><th>its workers hold</th><th>matches the session</th>"
            "<th>arrived</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _summary(seen: Sequence[Seen], unanswered: Mapping[str, str], ok: bool, nodes: list[str]) -> str:
    count = f"{len(nodes)} node{'s' if len(nodes) != 1 else ''}"
    if not nodes:
        return "<div class='mgenv-verify-summary'>verify(): no node answered, none was asked</div>"
    if ok:
        text = (f"verify(): {count} answered; each holds the session's value of every variable" if seen
                else f"verify(): {count}, no variables to verify")
        return f"<div class='mgenv-verify-summary'>{_text(text)}</div>"
    wrong = sorted({s.node for s in seen if not s.matches} | set(unanswered))
    text = f"verify(): {count}; not as the session has it on {', '.join(wrong)}"
    return f"<div class='mgenv-verify-summary mgenv-verify-bad'>{_text(text)}</div>"


def _row(item: Seen) -> str:
    if item.verdict == "missing":
        verdict = "<td class='mgenv-verify-missing'>missing</td>"
    elif item.verdict == "ok":
        verdict = "<td class='mgenv-verify-ok'>✓ yes</td>"
    else:
        expected = "unset" if item.expected is None else _value(item.name, item.expected)
        verdict = f"<td class='mgenv-verify-differs'>✗ no: the session has {expected}</td>"
    if item.arrived == MISSING:
        arrived = ""
    elif item.takes_effect:
        arrived = f"{_text(item.arrived_text)} <span class='mgenv-verify-note'>(imports there read it)</span>"
    elif item.imported_before:
        arrived = (f"{_text(item.arrived_text)} <span class='mgenv-verify-note'>(already imported: "
                   f"{_text(', '.join(item.imported_before))})</span>")
    else:
        arrived = _text(item.arrived_text)
    value = "" if item.seen is None else _value(item.name, item.seen)
    # A long name wraps after an underscore, not inside a word.
    name = _text(item.name).replace("_", "_<wbr>")
    return (f"<td class='mgenv-verify-name'>{name}</td><td class='mgenv-verify-value'>{value}</td>"
            f"{verdict}<td>{arrived}</td>")


def _value(name: str, value: str) -> str:
    text = shown(name, value) or ""
    if len(text) <= _LONGEST:
        return _text(text)
    return f"<span title='{html.escape(text, quote=True)}'>{_text(text[:_LONGEST - 1])}…</span>"


def _text(text: str) -> str:
    return html.escape(text, quote=True)


__all__ = ["VerifyView", "report_html"]
