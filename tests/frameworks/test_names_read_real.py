"""The names each framework's installed source reads (tests/framework_checks/env_names.py, in the framework's own
venv) are the ones mgenv_jupyter/catalog/_names_read.py lists for its version, and none of them is refused as a near
miss of a catalog name (issue 29, point 13: PyTorch's PYTORCH_HIP_ALLOC_CONF, TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE and
others were refused without --force). After a framework's venv changes, `python tests/write_names_read.py`."""

from __future__ import annotations

import pytest
from write_names_read import PACKAGES

from mgenv_jupyter.catalog import _names_read, catalog

from framework_venvs import run

# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [(framework, "env_names.py", *packages) for framework, packages in PACKAGES.items()]


@pytest.mark.parametrize("framework", list(PACKAGES))
def test_every_name_a_framework_reads_is_listed_and_never_a_near_miss(framework):
    found = run(framework, "env_names.py", *PACKAGES[framework])
    assert found["versions"] == {package: _names_read.VERSIONS[package] for package in PACKAGES[framework]}
    assert found["names"] == _names_read.NAMES_READ[framework], "run python tests/write_names_read.py"
    refused = {name: catalog().near_miss(name) for name in found["names"] if name not in catalog()}
    assert {name: meant for name, meant in refused.items() if meant is not None} == {}
