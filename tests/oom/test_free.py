"""Giving back what a failed cell holds, in a real IPython shell: a cell's function allocates a large NumPy array and
fails; the array stays alive through the traceback Python and IPython keep; `%memfree` (and `report.free()`) clears
those references, the array is collected and the process's RSS drops, while the user's variables and (unless asked)
the output cache stay. Real frameworks do the same in their venvs (tests/frameworks/test_free_real.py)."""

from __future__ import annotations

import gc
import sys

import psutil

import mgenv_jupyter
from mgenv_jupyter.presentation._freeing import FreeView

MiB = 1024**2
SIZE = 256 * MiB

FAILING_CELL = f"""
def step():
    big = np.ones({SIZE}, dtype=np.uint8)  # touched: its pages are resident
    refs.append(weakref.ref(big))
    raise MemoryError("stand-in: the next allocation failed")
step()
"""


def _fail(ip) -> None:
    ip.run_cell("import numpy as np, weakref\nrefs = []\nkeep = np.arange(1000)\nkept_id = id(keep)")
    ip.run_cell(FAILING_CELL)
    ip.run_cell("21 * 2")  # a result in the output cache


def test_memfree_gives_back_the_failed_cells_array_and_leaves_the_users_variables(ip):
    _fail(ip)
    gc.collect()
    assert ip.user_ns["refs"][0]() is not None, "the failed call's local is kept alive by the traceback"
    rss_before = psutil.Process().memory_info().rss
    view = ip.run_line_magic("memfree", "")
    assert isinstance(view, FreeView)
    assert ip.user_ns["refs"][0]() is None
    result = view.result
    assert result.rss_freed is not None and result.rss_freed >= 0.8 * SIZE, result.rss_freed
    assert rss_before - psutil.Process().memory_info().rss >= 0.8 * SIZE
    assert id(ip.user_ns["keep"]) == ip.user_ns["kept_id"] and ip.user_ns["keep"].sum() == 499500
    # By type first: an earlier test's array in the shared shell's cache would make `==` ambiguous.
    assert any(type(v) is int and v == 42 for v in ip.user_ns["Out"].values()), "the output cache is kept unless asked"
    assert result.outputs is None
    assert not hasattr(sys, "last_traceback") and not hasattr(sys, "last_value")
    said = repr(view)
    assert "frames of the failed cell's traceback" in said and "sys.last_traceback" in said
    assert "host RSS (this kernel)" in said and "gave back" in said
    assert "malloc_trim(0)" in said  # glibc here: the host heap's free parts go back too
    assert "Your variables were not touched" in said


def test_report_free_and_the_output_cache_option(ip):
    ip.run_cell("import numpy as np\nnp.ones(1000)")
    ip.run_cell("raise MemoryError('stand-in')")
    report = mgenv_jupyter.last_oom()
    assert report is not None
    assert len(ip.user_ns["Out"]) >= 1
    result = report.free(outputs=True)
    assert result.outputs is not None and result.outputs >= 1
    assert ip.user_ns["Out"] == {}
    assert "np" in ip.user_ns


def test_nothing_held_is_said_and_the_second_free_changes_nothing(ip):
    ip.run_cell("x = 1")
    ip.run_line_magic("memfree", "")
    again = ip.run_line_magic("memfree", "")
    assert "no failed cell is held" in repr(again)
    assert ip.user_ns["x"] == 1


def test_a_failing_allocator_call_is_reported_and_the_others_go_on(ip, monkeypatch):
    """A framework whose empty-cache call raises: the result says so, the rest of the free still happens."""
    broken = type(sys)("megengine")
    broken.coalesce_free_memory = lambda: (_ for _ in ()).throw(RuntimeError("device lost"))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "megengine", broken)
    _fail(ip)
    result = ip.run_line_magic("memfree", "").result
    assert any("megengine.coalesce_free_memory(): RuntimeError: device lost" in p for p in result.problems)
    assert ip.user_ns["refs"][0]() is None


def test_on_the_simulated_gpu_the_kernels_nvml_memory_drops_when_it_frees(ip, monkeypatch):
    """The fragmentation scenario climbs to 38 GiB of the kernel's on a simulated 40 GiB GPU; a free gives the cache
    back, and the fake NVML's process list shows the kernel at the scenario's start (2 GiB) from then on."""
    from pathlib import Path

    from mgenv_jupyter.memory import _simulation as simulation
    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler

    scenario = Path(__file__).parents[1] / "data" / "oom" / "fragmentation.json"
    monkeypatch.setenv("MGENV_SIMULATE_GPU", str(scenario))
    close_kernel_sampler()
    try:
        simulation.from_environment()  # its timeline starts now
        ip.run_cell("import time\ntime.sleep(1.2)")  # the scenario reaches its 38 GiB
        ip.run_cell("raise MemoryError('stand-in')")
        result = ip.run_line_magic("memfree", "").result
        assert result.simulated
        (device, before), = result.before.gpus.items()
        assert device == "gpu0 (simulated)" and before == 38 * 1024**3
        assert result.after.gpus[device] == 2 * 1024**3
        assert result.gpus_freed == {device: 36 * 1024**3}
        sampler = kernel_sampler()
        mark = sampler.marks[-1]
        assert (mark["kind"], mark["label"]) == ("freed", "freed 36 GiB") and "38 GiB → 2 GiB" in mark["note"]
        assert sampler.snapshot()["marks"][-1] == mark  # a chart opened later draws it too
        said = repr(ip.run_line_magic("memfree", ""))
        assert "gpu0 (simulated): this kernel (NVML): 2 GiB → 2 GiB (unchanged)" in said
    finally:
        monkeypatch.delenv("MGENV_SIMULATE_GPU")
        close_kernel_sampler()
        simulation.stop_environment()
