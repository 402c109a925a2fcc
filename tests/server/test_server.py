"""The server extension is found and enabled the way `pip install` enables it: the jupyter-config file the wheel ships
as shared data turns it on, and `jupyter server extension list` shows it enabled and loadable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

import mgenv_jupyter.server as server

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "jupyter-config" / "jupyter_server_config.d" / "mgenv_jupyter.json"


def test_the_extension_points_name_the_server_package():
    assert server._jupyter_server_extension_points() == [{"module": "mgenv_jupyter.server"}]


def test_the_wheel_ships_the_config_file_that_enables_it():
    shared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"][
        "shared-data"]
    assert shared["jupyter-config/jupyter_server_config.d/mgenv_jupyter.json"] == (
        "etc/jupyter/jupyter_server_config.d/mgenv_jupyter.json")
    assert json.loads(CONFIG.read_text()) == {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}


@pytest.mark.slow
def test_jupyter_server_extension_list_shows_it_enabled_and_ok(tmp_path):
    """With the shipped file in a config directory, as pip puts it under <prefix>/etc/jupyter."""
    (tmp_path / "jupyter_server_config.d").mkdir()
    shutil.copy(CONFIG, tmp_path / "jupyter_server_config.d" / CONFIG.name)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path)}
    listed = subprocess.run([str(Path(sys.executable).with_name("jupyter")), "server", "extension", "list"],
                            capture_output=True, text=True, env=env, timeout=120)
    text = listed.stdout + listed.stderr
    section = text[text.index(str(tmp_path)):]
    assert "mgenv_jupyter.server \x1b[32menabled" in section or "mgenv_jupyter.server enabled" in section, text
    assert "mgenv_jupyter.server" in section[section.index("Validating mgenv_jupyter.server"):] and "OK" in section
