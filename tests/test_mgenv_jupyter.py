"""The package face (mgenv_jupyter/__init__.py): `import mgenv_jupyter` stays cheap, and the widgets are imported on
first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import mgenv_jupyter


def test_importing_the_package_does_not_import_ipywidgets():
    code = "import sys, mgenv_jupyter; assert 'ipywidgets' not in sys.modules; mgenv_jupyter.DTRWidget; " \
           "assert 'ipywidgets' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError):
        mgenv_jupyter.NoSuchWidget  # noqa: B018


def test_every_name_the_package_exports_is_there():
    from mgenv_jupyter import widgets

    assert [name for name in mgenv_jupyter.__all__ if not hasattr(mgenv_jupyter, name)] == []
    for name in ("AllocatorWidget", "ConfigWidget", "DTRWidget", "MemoryChart"):
        assert getattr(mgenv_jupyter, name) is getattr(widgets, name)
    assert mgenv_jupyter.session() is mgenv_jupyter.session()  # one session per kernel
