"""Each cell's memory in a real IPython shell with the extension loaded: the record of every finished cell (peak,
before, after, kept, on the host: the kernel's real RSS), the leak judged over three runs of one cell that each keep
more (naming the variable that grew, by the holders walk diffed) and not over runs that keep nothing, a cell without
an id never judged, and the note under the cell in English and Chinese. The front end's side is in
tests/browser/test_browser_cell_memory.py."""

from __future__ import annotations

import pytest

from mgenv_jupyter.comms._cells import RECORDS
from mgenv_jupyter.memory._cell_records import LEAK_MIN_BYTES
from mgenv_jupyter.presentation._cell_records import LeakNote, notice

MiB = 1 << 20
APPEND = "grow.append(np.ones(64 << 20, dtype=np.uint8))"  # 64 MiB a run, written (so resident)


@pytest.fixture
def records(ip):
    ip.run_cell("import numpy as np\ngrow = []\nsteady = 0", store_history=True, cell_id="setup")
    return RECORDS.get()


def host(record):
    (found,) = [d for d in record.devices if d.device == "host"]
    return found


def test_every_cell_gets_its_peak_and_what_it_kept(ip, records):
    ip.run_cell(APPEND, store_history=True, cell_id="grow")
    record = records.last
    figures = host(record)
    assert record.cell_id == "grow" and record.ok
    assert 60 * MiB <= figures.kept <= 80 * MiB
    assert figures.peak >= figures.after == figures.before + figures.kept
    data = notice(record)
    assert data["type"] == "cell_memory" and data["cell_id"] == "grow"
    assert data["record"]["devices"][-1]["kept"] == figures.kept and data["record"]["previous"] is None


def test_three_growing_runs_are_a_leak_naming_the_list(ip, records):
    shown = []
    records._show = shown.append
    for _ in range(3):
        ip.run_cell(APPEND, store_history=True, cell_id="grow")
    leak = records.last.leak
    assert leak is not None and leak.device == "host" and leak.runs == 3
    assert all(kept >= LEAK_MIN_BYTES for kept in leak.kept)
    (name, grew), *_ = leak.grew
    assert name == "grow" and abs(grew - 128 * MiB) < MiB  # two runs after the first of the three
    assert shown == [records.last]
    english, chinese = repr(LeakNote(records.last, "en")), repr(LeakNote(records.last, "zh"))
    assert "keeps more memory each time it runs" in english and "grow +128 MiB" in english
    assert "此单元每次运行都保留更多内存" in chinese and "主机" in chinese and "grow +128 MiB" in chinese


def test_runs_that_keep_nothing_are_no_leak(ip, records):
    for _ in range(3):
        ip.run_cell("steady += 1", store_history=True, cell_id="steady")
    assert records.last.leak is None


def test_a_run_that_frees_breaks_the_streak(ip, records):
    ip.run_cell(APPEND, store_history=True, cell_id="grow")
    ip.run_cell(APPEND, store_history=True, cell_id="grow")
    ip.run_cell("grow.clear()", store_history=True, cell_id="other")
    ip.run_cell(APPEND, store_history=True, cell_id="grow")
    assert records.last.leak is None  # the third run kept 64 MiB again, but after the memory came back


def test_a_cell_without_an_id_is_recorded_but_never_judged(ip, records):
    for _ in range(3):
        ip.run_cell(APPEND, store_history=True)
    assert records.last.cell_id is None and records.last.leak is None
    assert host(records.last).kept >= LEAK_MIN_BYTES


def test_a_failing_cell_is_recorded_as_failed(ip, records):
    ip.run_cell("raise ValueError('no')", store_history=True, cell_id="bad")
    assert records.last.ok is False and records.last.leak is None


def test_the_host_keeps_its_own_record_beside_a_simulated_gpu(ip, records):
    """Issue 36, point 1: on a kernel that sees a (simulated) GPU, the host was dropped from each cell's record (the
    host source charted nothing while a GPU was visible), so three growing runs got the GPU's unrelated figures and no
    leak note. The host is a device of its own, GPU or not."""
    ip.run_cell("%env MGENV_SIMULATE_GPU=a100-40gb", store_history=True, cell_id="simulate")
    shown = []
    records._show = shown.append
    for _ in range(3):
        ip.run_cell(APPEND, store_history=True, cell_id="grow")
        devices = {d.device for d in records.last.devices}
        assert "host" in devices and any(name.startswith("gpu0") for name in devices), devices
        assert records.last.simulated
        assert 60 * MiB <= host(records.last).kept <= 80 * MiB
    leak = records.last.leak
    assert leak is not None and leak.device == "host" and leak.grew[0][0] == "grow"
    assert shown == [records.last]
    assert [d["device"] for d in notice(records.last)["record"]["devices"]][-1] == "host"
