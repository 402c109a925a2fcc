"""The catalog as a table of current values and statuses (%envlist): a pandas DataFrame for code, a compact table in
a notebook (presentation/_tables.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base._text import Text, current_language
from . import present

if TYPE_CHECKING:
    import pandas

    from ..runtime import EnvSession

COLUMNS = ["name", "framework", "category", "value", "status", "default", "when", "type", "allowed", "live_api",
           "description"]
SHOWN = ["value", "status", "default", "description"]  # what fits a notebook column; the rest stay in the frame


def catalog_frame(
    session: EnvSession, framework: str | None = None, category: str | None = None, only_set: bool = False
) -> pandas.DataFrame:
    import pandas

    language = current_language()
    rows = []
    # The table's own words in both languages, so it shows in the session's language whenever it is shown.
    texts: dict[str, dict[object, Text]] = {"category": {}, "status": {}, "description": {}}
    for entry in session.catalog:
        if framework is not None and entry.framework != framework:
            continue
        names = (entry.category.en, entry.category.zh)
        if category is not None and not any(category.lower() in n.lower() for n in names):
            continue
        view = present(session, entry.name, language)
        if only_set and view.value is None:
            continue
        facts = view.details
        assert facts is not None  # a catalog entry always has details
        texts["category"][entry.name] = entry.category
        texts["status"][entry.name] = view.status.label
        texts["description"][entry.name] = entry.description
        rows.append({
            "name": entry.name,
            "framework": entry.framework,
            "category": entry.category.get(language),
            "value": view.value,
            "status": view.label,
            "default": entry.default,
            "when": entry.when.value,
            "type": entry.type.kind,
            "allowed": facts.allowed,
            "live_api": facts.live,
            "description": facts.description,
        })
    from ._tables import env_table, size_cells

    frame = pandas.DataFrame(rows, columns=COLUMNS).set_index("name")
    return env_table(frame, SHOWN, language, texts, size_cells(session.catalog, frame, ("value", "default")))
