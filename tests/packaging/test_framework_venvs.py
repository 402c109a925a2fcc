"""Installing into a framework's own environment never breaks the framework: following the README, the package goes
into venvs that already hold MXNet 1.9.1 (numpy<1.24) and MegEngine 1.13 (Python 3.10, numpy<2), and afterwards the
framework still imports, its numpy unchanged, and the extension loads beside it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from build_and_install import make_venv, pip

pytestmark = pytest.mark.slow

# pyenv's Python 3.10 (MegEngine 1.13's newest), found through pyenv itself: a bare `python` is whichever comes first
# on PATH, a venv's 3.11 where one is active (as in a shell that sourced a worktree's environment), and MegEngine has
# no wheel for that.
PY310 = ["env", "PYENV_VERSION=3.10.13", "pyenv", "exec", "python"]
CHECK = (
    "import importlib, numpy\n"
    "framework = importlib.import_module({module!r})\n"
    "import mgenv_jupyter\n"
    "report = mgenv_jupyter.session().set({{{variable!r}: {value!r}}})\n"
    "print(numpy.__version__, report[{variable!r}].outcome.value)\n"
)


@pytest.mark.parametrize("framework, python, installed, variable, value", [
    ("mxnet", [sys.executable], ["mxnet==1.9.1", "numpy<1.24"], "MXNET_ENGINE_TYPE", "NaiveEngine"),
    ("megengine", PY310, ["megengine==1.13.0", "numpy<2"], "MGE_DEFAULT_DEVICE", "cpu0"),
])
def test_the_package_installs_beside_the_framework_without_moving_its_numpy(built, tmp_path, framework, python,
                                                                             installed, variable, value):
    venv_python = make_venv(tmp_path / framework, python)
    # The framework as the user has it already, from the index; uncompiled (what is checked is the install that
    # follows: pip byte-compiling MegEngine's 1.5 GB took a third of its install here).
    pip(venv_python, "--no-compile", *installed)
    version = subprocess.run([str(venv_python), "-c", "import numpy; print(numpy.__version__)"], capture_output=True,
                             text=True, check=True).stdout.strip()
    pip(venv_python, f"{built['wheel']}[{framework}]")  # the README's `pip install "mgenv_jupyter[<framework>]"`
    checked = subprocess.run([str(venv_python), "-c", CHECK.format(module=framework, variable=variable, value=value)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr[-3000:]
    numpy_after, outcome = checked.stdout.split()[-2:]
    assert numpy_after == version
    # the framework was imported before the variable was set: the session says what that means, whatever it is
    assert outcome in ("already_read", "may_be_latched", "effective", "applied_live")
