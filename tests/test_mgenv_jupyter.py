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


def test_the_readmes_load_ext_after_the_sidebar_loaded_the_extension_is_quiet(ip):
    """The sidebar loads the extension in a kernel with its constant (protocol LOAD_CODE); the README's first step,
    `%load_ext mgenv_jupyter`, then loads it again, harmless and quiet: no "already loaded... use %reload_ext"."""
    from IPython.utils.capture import capture_output

    from mgenv_jupyter.protocol._sidebar import LOAD_CODE

    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    ip.run_cell(LOAD_CODE, silent=True)  # as the sidebar sends it
    assert ip.find_line_magic("envset") is not None  # the sidebar's load did load it
    with capture_output() as loaded:
        ip.run_line_magic("load_ext", "mgenv_jupyter")
    assert loaded.stdout == "" and loaded.stderr == ""
    with capture_output() as again:  # and a second %load_ext is IPython's own "already loaded", as for any extension
        ip.run_line_magic("load_ext", "mgenv_jupyter")
    assert "already loaded" in again.stdout
    assert ip.run_line_magic("envset", "MY_SETTING=on")["MY_SETTING"].new == "on"
