"""The kernel tier: notebooks and comms in a real Jupyter kernel, through nbclient or jupyter_client.

Every test in this directory is marked `kernel` and `slow`: `pytest -m "not slow"` leaves it out, `pytest -m kernel`
runs it alone."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.kernel)
            item.add_marker(pytest.mark.slow)
