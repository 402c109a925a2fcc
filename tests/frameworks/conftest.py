"""The frameworks tier: MegEngine, Paddle, MXNet, PyTorch, JAX and TensorFlow themselves, each in its own venv under
.venvs/ (scenarios in tests/framework_checks/, run by tests/framework_venvs.py).

Every test in this directory is marked `frameworks` and `slow`: `pytest -m "not slow"` leaves it out,
`pytest -m frameworks` runs it alone."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.frameworks)
            item.add_marker(pytest.mark.slow)
