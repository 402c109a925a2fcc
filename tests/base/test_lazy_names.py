"""Names imported on first use (base/_lazy_names.py), as the packages use it: importing mgenv_jupyter or its memory
package stays cheap, and each name comes from its module when first asked for."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from mgenv_jupyter.base._lazy_names import lazy_names


def test_a_name_is_imported_when_first_asked_for_and_kept():
    namespace: dict[str, object] = {}
    getattr_, dir_ = lazy_names("mgenv_jupyter.base", {"quoted": "_quoting"}, namespace)
    assert "quoted" in dir_() and namespace == {}
    from mgenv_jupyter.base._quoting import quoted

    assert getattr_("quoted") is quoted and namespace == {"quoted": quoted}
    with pytest.raises(AttributeError, match="module 'mgenv_jupyter.base' has no attribute 'other'"):
        getattr_("other")


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, mgenv_jupyter, mgenv_jupyter.memory; "
            "print(sorted(m for m in ('numpy', 'pandas', 'pynvml', 'psutil') if m in sys.modules))")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stdout
    assert time.perf_counter() - started < 10


def test_every_name_the_package_exports_comes_from_its_module():
    from mgenv_jupyter import memory
    from mgenv_jupyter.memory import _sampler as sampler
    from mgenv_jupyter.memory import _sources as sources

    assert [name for name in memory.__all__ if not hasattr(memory, name)] == []
    assert memory.Sampler is sampler.Sampler
    assert not hasattr(memory, "FakeNvml")  # a test double is imported from its module, never part of the face
    assert memory.gpu_total_bytes is sources.gpu_total_bytes
    assert set(memory.__all__) <= set(dir(memory))
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchSource'"):
        memory.NoSuchSource  # noqa: B018
