"""MXNet's objects as the holders walk sizes them (runtime/frameworks/_mxnet.py): nothing is declared until mxnet is
imported, and with the real MXNet in its venv a Gluon block's parameters are read from its registries (a user's
Block overriding collect_params() and its attribute look-ups runs none of them; tests/framework_checks/
holders_real.py, checked for every framework in tests/frameworks/test_free_real.py)."""

from __future__ import annotations

import sys

import pytest

from mgenv_jupyter.runtime.frameworks import _mxnet

from framework_venvs import run


def test_nothing_is_declared_until_mxnet_is_imported(monkeypatch):
    for name in [name for name in sys.modules if name == "mxnet" or name.startswith("mxnet.")]:
        monkeypatch.delitem(sys.modules, name)
    assert _mxnet.tensor_kinds() is None


@pytest.mark.slow
def test_a_gluon_block_is_read_from_its_registries_with_the_real_mxnet():
    r = run("mxnet", "holders_real.py", "mxnet")
    rows = {row["name"]: row for row in r["rows"]}
    assert rows["model"]["parameters"] == 2 and rows["model"]["what"] == "Dense (mxnet)"
    assert r["counting"]["parameters"] == 2 and set(r["counting_calls"].values()) == {0}
