"""Helpers for scenario scripts run inside a framework's own venv: a real IPython shell and a JSON result line."""

from __future__ import annotations

import json
import warnings
from typing import Any


def shell() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mgenv_jupyter")
    return ip


def envset(ip: Any, line: str) -> dict[str, Any]:
    """Run `%envset line` and return outcomes, the AlreadyReadWarning messages it emitted (`warnings`) and the
    MayBeLatchedWarning ones (`may_be_latched`, a subclass, kept apart)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = ip.run_line_magic("envset", line)
    return {
        "outcomes": {c.name: c.outcome.value for c in report},
        "effective": {c.name: c.effective for c in report},
        "messages": {c.name: str(c.message) for c in report},
        "warnings": [str(w.message) for w in caught if w.category.__name__ == "AlreadyReadWarning"],
        "may_be_latched": [str(w.message) for w in caught if w.category.__name__ == "MayBeLatchedWarning"],
    }


def emit(result: dict[str, Any]) -> None:
    print("RESULT " + json.dumps(result, default=str))
