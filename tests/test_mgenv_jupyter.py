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
