"""Fixtures for the runtime tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """Jupyter's data directory (where approved profiles are kept), empty and private to the test."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    return tmp_path / "jupyter-data"
