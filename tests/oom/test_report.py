"""A report as data: made from a real sampler's history and cell markers, kept as the last one, and JSON-ready."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from mgenv_jupyter.memory._host_source import HostSource
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.memory._shared import close_kernel_sampler, kernel_sampler
from mgenv_jupyter.oom._hook import installed_hook
from mgenv_jupyter.oom._recognise import recognise
from mgenv_jupyter.oom._report import build_report, last_report, remember
from mgenv_jupyter.presentation.oom import OomText


def test_a_host_oom_report_from_a_real_sampler(fresh_session):
    sampler = Sampler([HostSource()])
    try:
        for cell in (1, 2, 3):
            sampler.cells.start(cell)
            sampler.sample_once()
            time.sleep(0.01)  # the cell's two samples at two different times
            sampler.sample_once()
            sampler.cells.finish(cell, ok=cell != 3)
        event = recognise(MemoryError())
        report = build_report(event, sampler, fresh_session)
    finally:
        sampler.close()
    assert report.verdict.cause.value == "host" and report.remedies == ()
    assert report.timeline.series == "host process" and len(report.timeline.values) >= 6
    assert report.timeline.cell == 3 and [c for c, _ in report.timeline.earlier_peaks] == [1, 2]
    # what the sampler recorded of the series travels with it (the view reads it instead of parsing the key)
    assert report.timeline.info == {"key": "host process", "device": "host", "framework": None, "quantity": "process",
                                    "source": "host", "simulated": False, "node": None}
    assert 0 < report.took < 1
    data = json.loads(json.dumps(report.to_json()))
    assert data["event"]["framework"] == "python" and data["findings"][0]["cause"] == "host"
    remember(report)
    assert last_report() is report


def test_without_a_sampler_the_report_still_says_what_it_can(fresh_session):
    report = build_report(recognise(MemoryError()), None, fresh_session)
    assert report.timeline.values == () and report.state.host_total


# ---- issue 29, point 5: a report agrees with what it reports on -----------------------------------------------------

SCENARIOS = Path(__file__).parents[1] / "data" / "oom"
GiB = 1024**3
FRAGMENTATION = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which "
                 "1.10 GiB is free. Including non-PyTorch memory, this process has 38.00 GiB memory in use. Of the "
                 "allocated memory 21.00 GiB is allocated by PyTorch, and 16.30 GiB is reserved by PyTorch but "
                 "unallocated.")
# A stand-in named as PyTorch's class; defining it in the failing cell names torch, so the recorder pauses for it.
RAISE = ("OutOfMemoryError = type('OutOfMemoryError', (RuntimeError,), {'__module__': 'torch'})\n"
         "import time\ntime.sleep(2.5)\nraise OutOfMemoryError(" + repr(FRAGMENTATION) + ")")


@pytest.fixture
def panel(ip, monkeypatch):
    """The sidebar's live memory panel, opened before anything else: a subscription to the kernel's sampler whose
    batches are kept, as the panel's chart draws them."""
    monkeypatch.delenv("MGENV_SIMULATE_GPU", raising=False)
    close_kernel_sampler()
    batches: list[dict] = []
    sampler = kernel_sampler()
    subscription = sampler.subscribe(batches.append, interval=0.1)
    installed_hook().recorder.ensure()
    yield batches
    subscription.close()
    close_kernel_sampler()
    installed_hook().recorder.ensure()


def charted(batches: list[dict], series: str) -> list[int]:
    return [v for batch in batches for v in batch["columns"].get(series, []) if v is not None]


def test_the_try_it_recipe_with_the_panel_open_reports_what_the_error_and_the_chart_say(ip, panel):
    """README's "Try it" recipe, the panel already open: MGENV_SIMULATE_GPU set in a cell (the fragmentation
    scenario climbs to 38 GiB), then a cell that fails with PyTorch's error saying 38 GiB. The sampler the panel
    started follows the variable within a second, so the report's figures are the chart's readings: this kernel
    38 GiB, the climb on its timeline, samples while the cell ran. (It said 2 GiB, free 37.1 GiB, with a flat
    timeline and "no sample while the cell ran": the simulated GPU started only as the report was made.)"""
    ip.run_cell(f"%env MGENV_SIMULATE_GPU={SCENARIOS / 'fragmentation.json'}", store_history=True)
    ip.run_cell(RAISE, store_history=True)
    report = last_report()
    assert report is not None and report.verdict.cause.value == "fragmentation"
    device = report.state.gpu(0)
    assert device is not None and device.simulated and device.kernel == 38 * GiB, device
    assert device.free is not None and device.free < 2 * GiB
    climb = report.timeline.during_cell()
    assert report.timeline.series == "gpu0 (simulated) process" and len(climb) >= 10 and climb[-1] == 38 * GiB
    time.sleep(0.6)  # the panel's next batch
    assert charted(panel, "gpu0 (simulated) process")[-1] == device.kernel  # the chart says what the report says
    assert "no sample while the cell ran" not in "\n".join(OomText(report, "en").lines())


def test_a_host_memory_error_draws_host_memory_while_gpus_are_charted(ip, panel):
    """The demo's host-memory error, with a simulated GPU charted: the verdict is about the host, and so is the
    timeline (the kernel's RSS, as the host source keeps it once a second beside the GPUs), not the GPU's series."""
    # As demo.ipynb does: the simulated GPU asked for, then a chart of it.
    ip.run_cell("%env MGENV_SIMULATE_GPU=a100-40gb\nchart = %memchart", store_history=True)
    ip.run_cell("import time\ntime.sleep(1.5)", store_history=True)
    ip.run_cell("import numpy as np, time\nheld = np.ones(256 * 1024**2, dtype=np.uint8)\ntime.sleep(2.2)\n"
                "raise MemoryError('stand-in: the next allocation did not fit')", store_history=True)
    report = last_report()
    assert report is not None and report.verdict.cause.value == "host"
    assert report.timeline.series == "host process" and report.timeline.info is not None
    assert report.timeline.info["device"] == "host"
    assert len(report.timeline.during_cell()) >= 2 and max(report.timeline.values) >= 256 * 1024**2
    assert "gpu0" not in "\n".join(OomText(report, "en").timeline_lines())
    ip.user_ns.pop("held", None)
    ip.user_ns.pop("chart").close()


def test_growth_between_cells_is_read_from_the_readings_taken_while_no_cell_ran():
    """Issue 36, point 5: growth from the first reading after a cell ended to the first once the next started is
    nobody's cell's; growth within a cell, growth below BETWEEN_MIN_BYTES and a gap without a reading of its own
    are not said (a gap's growth cannot be told from a cell's without one)."""
    from mgenv_jupyter.oom._report import BETWEEN_MIN_BYTES, Between, growth_between

    gib = 1024**3
    # cell 2 ran 10–11 (its records' reading at 11.0), nothing ran until cell 3 at 20; cell 3 ran 20–21.3, cell 4
    # (the failing one) started at 21.5 with no reading between 21.3 and 21.5.
    times = (10.0, 10.5, 11.0, 15.0, 20.0, 20.5, 21.2, 21.6)
    values = (2 * gib, 4 * gib, 4 * gib, 30 * gib, 36 * gib, 37 * gib, 37 * gib, 38 * gib)
    cells = [(2, 10.0, 11.0), (3, 20.0, 21.3), (4, 21.5, None)]
    assert growth_between(times, values, cells) == (Between(2, 3, 4 * gib, 36 * gib),)
    assert growth_between(times, values, cells)[0].grew == 32 * gib
    small = tuple(v if t < 15 else 4 * gib + BETWEEN_MIN_BYTES - 1 for t, v in zip(times, values, strict=True))
    assert growth_between(times, small, cells) == ()
    # the same growth inside one long cell is that cell's
    assert growth_between(times, values, [(2, 10.0, 21.3), (4, 21.5, None)]) == ()
