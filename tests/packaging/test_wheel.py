"""Installing as users do: the sdist and the wheel built from a clean export carry the front end, and a fresh
environment given only the wheel (plus JupyterLab) has the extension enabled and every widget working."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import zipfile

import pytest

from build_and_install import clean_export, make_venv, pip

pytestmark = pytest.mark.slow


def test_the_sdist_carries_the_typescript_and_the_lock_file_and_no_build_output(built):
    with tarfile.open(built["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"labextension/package.json", "labextension/package-lock.json", "labextension/src/index.ts",
            "labextension/src/schema.ts", "hatch_build.py"} <= names
    assert not [n for n in names if n.startswith(("labextension/node_modules", "mgenv_jupyter/labextension",
                                                    "mgenv_jupyter/static", "labextension/lib"))]


def test_the_wheel_ships_each_built_file_once(built):
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = wheel.namelist()
    shared = "mgenv_jupyter-0.1.0.data/data/share/jupyter/labextensions/mgenv-jupyter/"
    assert {f"{shared}package.json", f"{shared}install.json", "mgenv_jupyter/static/memory_chart.js",
            "mgenv_jupyter/locale/zh_CN/LC_MESSAGES/mgenv_jupyter.json"} <= set(names)
    assert any(n.startswith(f"{shared}static/") and n.endswith(".js") for n in names)
    assert not [n for n in names if n.startswith("mgenv_jupyter/labextension/")]  # not also inside the package
    basenames = [n.rsplit("/", 1)[-1] for n in names if n.endswith(".js") and "/static/" in n]
    assert len(basenames) == len(set(basenames))
    assert "Successfully built" in built["log"]


def test_a_fresh_environment_with_the_wheel_has_the_extension_and_the_widgets(built, tmp_path):
    python = make_venv(tmp_path / "user")
    pip(python, str(built["wheel"]), "jupyterlab>=4,<5")
    listed = subprocess.run([str(python.with_name("jupyter")), "labextension", "list"], capture_output=True,
                            text=True, timeout=300)
    output = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)  # without the colours
    assert "mgenv-jupyter v0.1.0 enabled OK (python, mgenv_jupyter)" in output, output
    # The server extension (every notebook's GPU memory) is enabled by the wheel's jupyter-config file.
    servers = subprocess.run([str(python.with_name("jupyter")), "server", "extension", "list"], capture_output=True,
                             text=True, timeout=300)
    server_output = re.sub(r"\x1b\[[0-9;]*m", "", servers.stdout + servers.stderr)
    assert "mgenv_jupyter.server enabled" in server_output, server_output
    assert re.search(r"mgenv_jupyter\.server\s+OK", server_output), server_output
    made = subprocess.run([str(python), "-c", (
        "import mgenv_jupyter\n"
        "dtr = mgenv_jupyter.DTRWidget(gpu_total_bytes=16 * 1024**3)\n"
        "chart = mgenv_jupyter.MemoryChart()\n"
        "print(type(dtr).__name__, type(chart).__name__, len(chart._esm) > 1000)\n"
        "chart.close(); dtr.close()\n"
        "from jupyterlab_server.translation_utils import get_installed_packages_locale\n"
        "print('locale' if 'mgenv_jupyter' in get_installed_packages_locale('zh_CN')[0] else 'no locale')\n"
    )], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr[-3000:]
    assert made.stdout.split() == ["DTRWidget", "MemoryChart", "True", "locale"]


def test_without_node_the_build_stops_at_build_time_saying_what_to_install(tmp_path):
    """A source tree without its built front end and a PATH without node and npm: `python -m build` fails before
    making a wheel, with the message that names Node.js and the released wheel (not a broken package at import)."""
    source = clean_export(tmp_path / "export")
    empty = tmp_path / "no-node-bin"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(source)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "PATH": str(empty)})
    assert done.returncode != 0
    assert "node and npm could not be found on PATH. Install Node.js 18 or newer" in done.stdout + done.stderr
    assert not list((tmp_path / "dist").glob("*.whl"))
