"""The out-of-memory report as the front end receives it: a display output under the failing cell whose bundle holds,
beside text/plain and text/html, `OOM_MIME` with an `OomReportData`. The labextension renders that one with a button
per remedy, and the Framework Env panel shows the last report, sent over its comm as an `OomNotice`. A click sends the
remedy's assignments as the sidebar's own "set" request over the comm (source "oom_report"), so the kernel validates
it like any sidebar edit and the notebook profile keeps it. Nothing in it is executed: names and values are data, and
the kernel checks them again when they come back.
"""

from __future__ import annotations

from typing import Literal, TypedDict

OOM_MIME = "application/vnd.mgenv-jupyter.oom+json"
OOM_VERSION = 1


class OomRemedyInfo(TypedDict):
    """One remedy: the catalog variables it sets (name, value) in order, the `%envset` line that does the same, whether
    the kernel needs a restart for it to take effect, and its reason and caveat in the report's language."""

    cause: str
    assignments: list[list[str]]
    envset: str
    restart: bool
    when: str
    why: str
    caveat: str | None


class OomReportData(TypedDict):
    """The report in the report's language: the headline, the lines of the verdict, numbers, other processes and
    timeline (`sections`, each a title line then its lines), the remedies best first (or `no_remedy`), the footer."""

    v: int
    language: str
    headline: str
    sections: list[list[str]]
    remedies: list[OomRemedyInfo]
    remedies_title: str
    no_remedy: str | None
    footer: str


class OomNotice(TypedDict):
    """Kernel → sidebar, over its comm: a cell ran out of memory (sent to every open sidebar as the report is made, and
    after a sidebar's hello when the kernel has one), so the panel shows the last report."""

    v: int
    type: Literal["oom"]
    report: OomReportData
