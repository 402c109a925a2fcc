"""The frameworks tier: MegEngine, Paddle, MXNet, PyTorch, JAX and TensorFlow themselves, each in its own venv under
.venvs/ (scenarios in tests/framework_checks/, run by tests/framework_venvs.py).

Every test in this directory is marked `frameworks` and `slow` by tests/conftest.py: `pytest -m "not slow"` leaves
it out, `pytest -m frameworks` runs it alone.

A module that lists its scenarios in `SCENARIOS` ((framework, script, *args) each, in the order its tests ask for them)
gets them started ahead, two at a time, while its tests run (framework_venvs.Ahead), when more than one of its tests
runs (one test alone waits for its own scenario only)."""

from collections.abc import Iterator

import pytest

from framework_venvs import ahead


@pytest.fixture(scope="module", autouse=True)
def scenarios_started_ahead(request: pytest.FixtureRequest) -> Iterator[None]:
    selected = [item for item in request.session.items if item.module is request.module]
    with ahead(getattr(request.module, "SCENARIOS", []) if len(selected) > 1 else []):
        yield
