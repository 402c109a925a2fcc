"""imported(): a framework a cell is still importing counts as not imported, so the sampler's thread never reads a
half-initialised module (which broke `import megengine` in a cell while a chart was open)."""

from __future__ import annotations

import sys
import threading

import pytest

from mgenv_jupyter.base._imported import imported
from mgenv_jupyter.memory._framework_sources import FrameworkSource
from mgenv_jupyter.runtime.frameworks import LiveApi

SLOW_PACKAGE = '''
import slowfw.core  # the submodule is complete before the package is
slowfw_started.set()  # noqa: F821 (given by the test through builtins)
slowfw_finish.wait(30)  # noqa: F821
'''


@pytest.fixture
def slow_import(tmp_path, monkeypatch):
    """A package `slowfw` whose import blocks in its __init__ until the test lets it finish, imported in a thread as a
    cell would import it."""
    import builtins

    (tmp_path / "slowfw").mkdir()
    (tmp_path / "slowfw" / "__init__.py").write_text(SLOW_PACKAGE)
    (tmp_path / "slowfw" / "core.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    started, finish = threading.Event(), threading.Event()
    monkeypatch.setattr(builtins, "slowfw_started", started, raising=False)
    monkeypatch.setattr(builtins, "slowfw_finish", finish, raising=False)
    importer = threading.Thread(target=__import__, args=("slowfw",))
    importer.start()
    assert started.wait(30)
    yield finish
    finish.set()
    importer.join(30)
    for name in ("slowfw", "slowfw.core"):
        sys.modules.pop(name, None)


def test_a_package_still_being_imported_and_its_submodules_count_as_not_imported(slow_import):
    assert "slowfw" in sys.modules and "slowfw.core" in sys.modules  # what a bare sys.modules lookup would see
    assert imported("slowfw") is None
    assert imported("slowfw.core") is None  # complete itself, but its package is not
    slow_import.set()
    for _ in range(300):
        if imported("slowfw") is not None:
            break
        threading.Event().wait(0.1)
    assert imported("slowfw") is sys.modules["slowfw"]
    assert imported("slowfw.core") is sys.modules["slowfw.core"]


def test_a_memory_source_and_a_live_api_wait_until_the_import_has_finished(slow_import):
    class SlowSource(FrameworkSource):
        name = "slowfw"

        def _read(self, module):
            raise AssertionError("read a module still being imported")

    source = SlowSource()
    assert source.sample() == [] and source.idle
    api = LiveApi("slowfw", lambda entry, value: None, lambda entry: None, lambda entry, value: "")
    assert not api.available()


def test_absent_modules_are_not_imported_and_nothing_is_imported_by_asking():
    assert imported("surely_not_a_module_xyz") is None
    assert "surely_not_a_module_xyz" not in sys.modules
