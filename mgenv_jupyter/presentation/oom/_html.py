"""The report as HTML, for front ends that show HTML but not the labextension's renderer (classic Notebook, nbconvert,
VS Code): the text's sections as blocks and the remedies as a list."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .._freeing import freed_info, offer_line, report_holders
from ._text import OomText
from ._words import CAVEAT, NO_REMEDY, REMEDIES

if TYPE_CHECKING:
    from ...oom._remedies import Remedy


def oom_html(view: OomText) -> str:
    def block(lines: list[str]) -> str:
        return "".join(f"<div>{html.escape(line.strip())}</div>" for line in lines)

    def when(remedy: Remedy) -> str:
        return html.escape(view.when(remedy))

    remedies = "".join(
        f"<li><code>{html.escape(r.envset)}</code> — <b>{when(r)}</b>; {html.escape(r.why.get(view.lang))}"
        + (f"<br><small>{html.escape(CAVEAT.get(view.lang))}: {html.escape(r.caveat.get(view.lang))}</small>"
           if r.caveat is not None else "") + "</li>"
        for r in view.report.remedies) or f"<li>{html.escape(NO_REMEDY.get(view.lang))}</li>"
    if (done := freed_info(view.report, view.lang)) is not None:  # given back since: said instead of offered again
        offer = f"<div>{html.escape(done['summary'])}</div>"
    elif (free := view.free_offer) is not None:
        offer = f"<div>{html.escape(offer_line(free, view.lang))}</div>"
    else:
        offer = ""
    return (f"<div class='mgenv-oom'><div><b>{html.escape(view.headline())}</b></div>"
            f"{block(view.verdict_lines())}{block(view.number_lines())}{block(view.process_lines())}"
            f"{block(view.timeline_lines())}{block(view.site_lines())}{offer}"
            f"<div>{html.escape(REMEDIES.get(view.lang))}:</div>"
            f"<ol>{remedies}</ol>"
            f"{holders._repr_html_() if (holders := report_holders(view.report, view.lang)) is not None else ''}"
            f"<div><small>{html.escape(view.footer())}</small></div></div>")
