"""Installing into a framework's own environment never breaks the framework: following the README, the package goes
into venvs that already hold MXNet 1.9.1 (numpy<1.24) and MegEngine 1.13 (Python 3.10, numpy<2), and afterwards the
framework still imports, its numpy unchanged, and the extension loads beside it."""

from __future__ import annotations

import subprocess

import pytest

from build_and_install import framework_venv_copy, pip

pytestmark = pytest.mark.slow

CHECK = (
    "import importlib, sys, numpy\n"
    "framework = importlib.import_module({module!r})\n"
    "import mgenv_jupyter\n"
    "report = mgenv_jupyter.session().set({{{variable!r}: {value!r}}})\n"
    "print(numpy.__version__, report[{variable!r}].outcome.value)\n"
)
VERSIONS = "import sys, numpy, {module}; print('%d.%d' % sys.version_info[:2], {module}.__version__, numpy.__version__)"


@pytest.mark.parametrize("framework, python, version, numpy_below, variable, value", [
    ("mxnet", "3.11", "1.9.1", (1, 24), "MXNET_ENGINE_TYPE", "NaiveEngine"),
    ("megengine", "3.10", "1.13.0", (2, 0), "MGE_DEFAULT_DEVICE", "cpu0"),
])
def test_the_package_installs_beside_the_framework_without_moving_its_numpy(built, framework, python, version,
                                                                             numpy_below, variable, value):
    with framework_venv_copy(framework) as venv_python:
        before = subprocess.run([str(venv_python), "-c", VERSIONS.format(module=framework)], capture_output=True,
                                text=True, timeout=300)
        assert before.returncode == 0, before.stderr[-3000:]
        pip(venv_python, f"{built['wheel']}[{framework}]")  # the README's `pip install "mgenv_jupyter[<framework>]"`
        checked = subprocess.run([str(venv_python), "-c", CHECK.format(module=framework, variable=variable,
                                                                        value=value)],
                                 capture_output=True, text=True, timeout=300)
        shown = subprocess.run([str(venv_python), "-m", "pip", "show", "--files", "mgenv_jupyter"],
                               capture_output=True, text=True, timeout=300).stdout
    # the venv is the one the README's user has: the framework at its version on its Python, numpy within its pin
    python_before, framework_before, numpy_before = before.stdout.split()
    assert (python_before, framework_before) == (python, version)
    assert tuple(int(part) for part in numpy_before.split(".")[:2]) < numpy_below
    assert checked.returncode == 0, checked.stderr[-3000:]
    numpy_after, outcome = checked.stdout.split()[-2:]
    assert numpy_after == numpy_before
    # the package is the wheel's, not an editable checkout's
    assert "Editable project location" not in shown and "mgenv_jupyter/__init__.py" in shown
    # the framework was imported before the variable was set: the session says what that means, whatever it is
    assert outcome in ("already_read", "may_be_latched", "effective", "applied_live")
