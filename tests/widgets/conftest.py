"""Fixtures for the widget tests: a stand-in framework module, and a size typed into a row as a user types it (a
number and a unit). `closing` (widgets closed at the end of a test) is in tests/conftest.py."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture
def fake_framework(probe_module, monkeypatch):
    """A module named like a framework that reads variables at import; it leaves sys.modules with the test."""

    def make(name: str, reads: list[str]) -> str:
        probe_module(name, reads)
        monkeypatch.setitem(sys.modules, name, None)  # remembers that it was absent...
        del sys.modules[name]  # ...so that the real import below is undone at teardown
        return name

    return make


@pytest.fixture
def set_size():
    """`set_size(widget, name, number, unit)`: type a size into the row of `name`, as a number and a unit."""

    def set_size(widget, name: str, number: float, unit: str) -> None:
        editor = widget.rows[name].editor
        editor.number.value = number
        editor.unit.value = unit

    return set_size
