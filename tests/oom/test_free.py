"""Giving back what a failed cell holds, in a real IPython shell: a cell's function allocates a large NumPy array and
fails; the array stays alive through the traceback Python and IPython keep; `%memfree` (and `report.free()`) clears
those references, the array is collected and the process's RSS drops, while the user's variables and (unless asked)
the output cache stay. Real frameworks do the same in their venvs (tests/frameworks/test_free_real.py)."""

from __future__ import annotations

import gc
import sys

import psutil
from IPython.utils.capture import capture_output
from node_series import NODE, kernels_sampler

import mgenv_jupyter
from mgenv_jupyter.oom._free import FreeResult, _GpusInUse, read
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


def test_report_free_as_a_cells_last_line_shows_what_memfree_shows(ip):
    """The README offers `mgenv_jupyter.last_oom().free()` as `%memfree`'s equal: as a cell's last line it shows the
    same view (text, HTML and the sidebar renderer's data), not the dataclass's fields."""
    from IPython.core.formatters import DisplayFormatter

    from mgenv_jupyter.protocol._freeing import FREE_MIME

    _fail(ip)
    with capture_output():
        ip.run_cell("import mgenv_jupyter\nfreed = mgenv_jupyter.last_oom().free()")
    result = ip.user_ns["freed"]
    bundle, _ = ip.displayhook.compute_format_data(result)  # what the shell shows for it as a cell's last line
    text = bundle["text/plain"]
    assert text.startswith("Freed what the failed cell held") and "FreeResult(" not in text
    assert "Your variables were not touched" in text
    assert isinstance(result, FreeResult) and repr(result) == repr(FreeView(result))
    notebook, _ = DisplayFormatter().format(result)  # as a notebook shows it: every type
    assert notebook[FREE_MIME] == FreeView(result).data() and "mgenv-free" in notebook["text/html"]


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
    """The fragmentation scenario climbs to 38 GiB of the kernel's on a simulated 40 GiB GPU; a free that asks a
    framework's allocator for its cache (a stand-in of CuPy's pools: no CUDA here) gives the cache back, and the fake
    NVML's process list shows the kernel at the scenario's start (2 GiB) from then on. A free that could only trim the
    host heap gives no GPU memory back (tests/kernel/test_oom_server_owner.py, in a kernel of a real server)."""
    from pathlib import Path
    from types import SimpleNamespace

    from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler
    from mgenv_jupyter.memory.simulated import _simulation as simulation

    scenario = Path(__file__).parents[1] / "data" / "oom" / "fragmentation.json"
    monkeypatch.setenv("MGENV_SIMULATE_GPU", str(scenario))
    pool = SimpleNamespace(free_all_blocks=lambda: None)
    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(get_default_memory_pool=lambda: pool,
                                                             get_default_pinned_memory_pool=lambda: pool))
    close_kernel_sampler()
    try:
        simulation.from_environment()  # its timeline starts now
        # A cell runs while the scenario's timeline climbs to its 38 GiB: the simulated GPU fills with time.
        ip.run_cell("import time\ntime.sleep(1.2)")
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


def test_memfree_reads_nvml_on_a_driver_older_than_510(ip):
    """Issue 36, point 6: %memfree read NVML through a copy of its own, without the shared client's fallback to the
    process list drivers before 510 have (`_v2`): there it missed every GPU, silently. The fake NVML answers only that
    list; the kernel's figure is read now (the sampler's list may be up to a second old), before and after."""
    import os

    from mgenv_jupyter.memory.simulated._fake_nvml import FakeDevice, FakeNvml, FakeProcess

    gib = 1024**3
    with FakeNvml([FakeDevice(total=16 * gib, processes=[FakeProcess(os.getpid(), 3 * gib)])],
                  driver_version="470.82.01") as fake:
        assert read(None).gpus == {"gpu0 (simulated)": 3 * gib}
        fake.devices[0].processes[0].used = 5 * gib  # the kernel took more just now
        result = ip.run_line_magic("memfree", "").result
        assert result.before.gpus == result.after.gpus == {"gpu0 (simulated)": 5 * gib}
        assert fake.calls["nvmlDeviceGetComputeRunningProcesses_v2"] >= 4 and not fake.calls[
            "nvmlDeviceGetComputeRunningProcesses_v3"]


# ---- what the user still holds is kept (issue 28) -------------------------------------------------------------------

HELD_CELL = f"""
import numpy as np, weakref
refs = []
def step():
    big = np.ones({SIZE}, dtype=np.uint8)
    refs.append(weakref.ref(big))
    raise MemoryError("stand-in: the next allocation failed")
try:
    step()
except MemoryError as e:
    err = e
    raise
"""


def test_an_error_the_user_holds_keeps_its_traceback_and_the_result_says_what_del_gives_back(ip):
    """`err = e; raise`, then %memfree: `err.__traceback__` was None afterwards. Now it is kept, with the locals of
    its frames, and the result names the variable; doing what it says gives the memory back."""
    ip.run_cell(HELD_CELL)
    view = ip.run_line_magic("memfree", "")
    err = ip.user_ns["err"]
    assert err.__traceback__ is not None
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    assert "big" in frames[-1].f_locals and ip.user_ns["refs"][0]() is not None
    said = repr(view)
    assert "Kept, as you still hold it or it still runs:\n  err holds the traceback: del err gives back 256 MiB" in said
    assert view.result.to_json()["kept"] == ["err holds the traceback: del err gives back 256 MiB"]
    del err, frames, tb
    ip.run_cell("del err")  # what the result says to do
    ip.run_line_magic("memfree", "")
    assert ip.user_ns["refs"][0]() is None


def test_a_widget_does_not_hold_the_traceback(ip):
    """Issue 36, point 2: in the demo, a DTR widget shown earlier reached the traceback through the shell (its session
    link holds the shell, which holds the last error), and %memfree said "dtr holds the traceback", keeping it."""
    ip.run_cell("import mgenv_jupyter\ndtr = mgenv_jupyter.DTRWidget(); dtr", store_history=True)
    try:
        _fail(ip)
        view = ip.run_line_magic("memfree", "")
        assert "holds the traceback" not in repr(view) and view.result.to_json()["kept"] == []
        assert ip.user_ns["refs"][0]() is None
    finally:
        ip.user_ns["dtr"].close()


def test_a_suspended_generator_that_stored_an_error_goes_on_running(ip):
    """A generator caught the error, stored it and kept running; the cell raised it. The free closed the generator:
    its `finally` ran, and `next()` raised StopIteration."""
    ip.run_cell(f"""
import numpy as np
log = []
def step():
    big = np.ones({SIZE}, dtype=np.uint8)
    raise MemoryError("stand-in")
def batches():
    try:
        while True:
            try:
                yield "batch"
                step()
            except MemoryError as error:
                stored = error
                yield stored
    finally:
        log.append("finally ran")
stream = batches()
next(stream)
""")
    ip.run_cell("raise next(stream)")
    # Held from here on outside the namespace, where no walk looks: only the generator's own state protects it.
    stream = ip.user_ns.pop("stream")
    view = ip.run_line_magic("memfree", "")
    assert ip.user_ns["log"] == []
    assert next(stream) == "batch"
    assert "the frame of batches, a suspended generator or coroutine (clearing it would close it)" in repr(view)
    stream.close()
    assert ip.user_ns["log"] == ["finally ran"]


def test_a_suspended_coroutine_is_not_closed(ip):
    ip.run_cell(f"""
import numpy as np, types
log = []
@types.coroutine
def pause(value=None):
    return (yield value)
def step():
    big = np.ones({SIZE}, dtype=np.uint8)
    raise MemoryError("stand-in")
async def worker():
    try:
        while True:
            try:
                await pause("waiting")
                step()
            except MemoryError as error:
                await pause(error)
    finally:
        log.append("finally ran")
task = worker()
task.send(None)
""")
    ip.run_cell("raise task.send(None)")
    task = ip.user_ns.pop("task")  # held outside the namespace from here on
    view = ip.run_line_magic("memfree", "")
    assert ip.user_ns["log"] == []
    assert task.send(None) == "waiting"
    assert "the frame of worker, a suspended generator or coroutine" in repr(view)
    task.close()
    assert ip.user_ns["log"] == ["finally ran"]


def test_a_function_still_running_in_a_thread_keeps_its_locals(ip):
    ip.run_cell(f"""
import numpy as np, queue, threading
errors, go, seen = queue.Queue(), threading.Event(), []
def step():
    big = np.ones({SIZE}, dtype=np.uint8)
    raise MemoryError("stand-in")
def worker():
    data = np.ones(1 << 20, dtype=np.uint8)
    marker = "the thread's local"
    try:
        step()
    except MemoryError as error:
        errors.put(error)
        del error
    go.wait(60)
    seen.append((marker, int(data.sum())))
thread = threading.Thread(target=worker)
thread.start()
""")
    ip.run_cell("raise errors.get(timeout=60)")
    view = ip.run_line_magic("memfree", "")
    ip.user_ns["go"].set()
    ip.user_ns["thread"].join(60)
    assert ip.user_ns["seen"] == [("the thread's local", 1 << 20)]
    assert "the frame of worker, still running in another thread (its locals are in use)" in repr(view)
    assert "frames of the failed cell's traceback" in repr(view)  # the finished step() was cleared


def test_when_the_search_stops_at_its_bound_nothing_is_cleared_and_the_result_says_why(ip):
    """A namespace larger than the walk's bound: it cannot tell whether a variable holds the error, so no traceback
    is cut and no frame cleared; dropping Python's and IPython's hold still gives the memory back when nothing else
    holds it."""
    ip.user_ns["rows"] = [[[0] for _ in range(10_000)] for _ in range(15)]  # 300,000 objects: past 200,000
    try:
        _fail(ip)
        view = ip.run_line_magic("memfree", "")
        said = repr(view)
        assert "the search for variables that hold it stopped at its bound" in said, said
        assert "frames of the failed cell's traceback" not in said
        assert ip.user_ns["refs"][0]() is None
    finally:
        del ip.user_ns["rows"]


def test_the_reports_offer_to_free_is_said_before_the_numbered_remedies_not_as_one_of_them(ip):
    """The offer sets nothing: it is a line of its own before "Remedies, best first:", which are numbered from 1 (a
    bullet over "1." read as one list numbered "·, 1."); in HTML it is not an item of the numbered list either."""
    _fail(ip)
    view = ip.run_line_magic("oom", "")
    lines = repr(view).splitlines()
    offer = next(i for i, line in enumerate(lines) if "%memfree" in line and "Free what the failed cell holds" in line)
    heading = lines.index("Remedies, best first:")
    assert lines[offer].startswith("First, without a restart: %memfree") and offer < heading
    assert not any(line.lstrip().startswith(("•", "·")) for line in lines)
    page = view._repr_html_()
    numbered = page[page.index("<ol>"):page.index("</ol>")]
    assert "%memfree" not in numbered and page.index("First, without a restart") < page.index("<ol>")


def test_a_reading_names_the_kernels_gpus_and_every_allocator_by_their_fields():
    """The node "gpubox"'s GPU is not the kernel's: its 5 GiB are no "this kernel (NVML)" figure, and its pool is not
    one the free would ask a framework to give back. Its allocator's counters are shown, as every allocator's."""
    with kernels_sampler() as sampler:
        reading = read(sampler)
    gib = 1024**3
    assert reading.gpus == {"gpu0 (simulated)": 6 * gib}
    assert reading.allocators == {"torch gpu0": (4 * gib, 5 * gib), f"{NODE} torch gpu1": (gib, 3 * gib)}
    assert _GpusInUse(reading)() == [0]


def test_the_frees_host_figure_is_the_kernels_process_tree_as_the_chart_reads_it(ip):
    """Issue 36, "one reading": the free read psutil's RSS of the kernel process alone, while the chart, a cell's
    record and the report read the whole process tree (a DataLoader worker's memory is the kernel's too). A child
    holding 200 MiB now counts in `%memfree`'s host RSS, as in the sampler's host series."""
    import subprocess
    import time

    from mgenv_jupyter.memory._proc_figures import resident_bytes
    from mgenv_jupyter.memory._process_tree import kernel_tree
    from mgenv_jupyter.memory._shared import kernel_sampler

    child = subprocess.Popen([sys.executable, "-c", "import sys, time\nheld = b'x' * (200 << 20)\n"
                              "print('held', flush=True)\ntime.sleep(120)"], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        sampler = kernel_sampler()
        deadline = time.monotonic() + 30
        while child.pid not in kernel_tree(sampler.sources).pids():  # the tree is walked again at most once a second
            assert time.monotonic() < deadline, "the sampler's process tree never listed the child"
            time.sleep(0.05)
        held = resident_bytes(child.pid) or 0
        result = ip.run_line_magic("memfree", "").result
        own = psutil.Process().memory_info().rss
        assert held >= 200 * MiB and result.before.rss is not None and result.before.rss >= own + held - 32 * MiB, (
            result.before.rss, own, held)
    finally:
        child.kill()
        child.wait()
