"""The Ray tier: a real local Ray cluster (a head and two more nodes started with `ray start` from .venvs/ray, see
tests/local_ray.py) that the notebook side drives (cluster_scenario.py). It takes about a minute in all.

Every test in this directory is marked `ray` and `slow` by tests/conftest.py: `pytest -m ray` runs it alone. Without
.venvs/ray (./dev setup makes it) it skips, or fails under ./dev test (MGENV_REQUIRE_FRAMEWORKS=1)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import local_ray
import pytest

HERE = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ray: a real local Ray cluster started with `ray start` (tests/ray_cluster)")


@pytest.fixture(scope="session")
def local_cluster() -> Iterator[local_ray.LocalCluster]:
    if not local_ray.available():
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail(f"{local_ray.VENV} is missing: run ./dev setup")
        pytest.skip("the Ray venv is not set up (./dev setup makes .venvs/ray)")
    with local_ray.LocalCluster(["node_a", "node_b", "node_c"]) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def scenario(local_cluster: local_ray.LocalCluster) -> dict[str, Any]:
    """One run of the notebook side against the cluster; the tests read what it saw."""
    import time

    began = time.monotonic()
    result = local_cluster.run(HERE / "cluster_scenario.py")
    result["scenario_seconds"] = time.monotonic() - began
    return result
