"""The browser tier: JupyterLab (and Notebook 7) in headless Chromium, driven by Playwright (tests/lab_server.py).

Every test in this directory is marked `browser` and `slow`: `pytest -m "not slow"` leaves it out, `pytest -m browser`
runs it alone."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
