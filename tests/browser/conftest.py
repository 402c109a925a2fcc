"""The browser tier: JupyterLab (and Notebook 7) in headless Chromium, driven by Playwright (tests/lab_server.py).

Every test in this directory is marked `browser` and `slow` by tests/conftest.py: `pytest -m "not slow"` leaves it
out, `pytest -m browser` runs it alone.

Each module runs in one Chromium (tests/lab_server.py: chromium_page opens a new context in it for every page)."""

import pytest


@pytest.fixture(scope="module", autouse=True)
def one_chromium_per_module(chromium: object) -> None:
    """Every test module of this tier shares one Chromium (each page still gets a context of its own)."""

