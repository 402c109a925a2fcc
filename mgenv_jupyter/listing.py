"""The catalog as a pandas DataFrame with current values and status, for %envlist and notebooks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .text import current_language

if TYPE_CHECKING:
    import pandas

    from .runtime import EnvSession

COLUMNS = ["name", "framework", "category", "value", "status", "default", "when", "type", "allowed", "live_api",
           "description"]


def catalog_frame(
    session: EnvSession, framework: str | None = None, category: str | None = None, only_set: bool = False
) -> pandas.DataFrame:
    import pandas

    language = current_language()
    rows = []
    for entry in session.catalog:
        if framework is not None and entry.framework != framework:
            continue
        names = (entry.category.en, entry.category.zh)
        if category is not None and not any(category.lower() in n.lower() for n in names):
            continue
        state = session.state(entry.name)
        if only_set and state.value is None:
            continue
        rows.append({
            "name": entry.name,
            "framework": entry.framework,
            "category": entry.category.get(language),
            "value": state.value,
            "status": state.status,
            "default": entry.default,
            "when": entry.when.value,
            "type": entry.type.kind,
            "allowed": entry.type.allowed(),
            "live_api": entry.live_api_doc or entry.live_api,
            "description": entry.description.get(language),
        })
    return pandas.DataFrame(rows, columns=COLUMNS).set_index("name")
