"""The largest-fit search with real kernels, each probe a fresh one: on this machine's host memory (a cell holding
FIT_MB MiB, a 600 MiB budget, a 10% margin) it lands within 10% of the true largest in at most 14 probes; on the
simulated GPU (labelled simulated) it finds the largest allocation under the device's total less the margin; the
frame lists every probe, `.best` is the answer and `.apply()` sets it."""

from __future__ import annotations

import os

import pytest

from mgenv_jupyter.sweeps._fit import Verdict

MIB = 2**20
HOLD = "import os\nheld = b'1' * (int(os.environ['FIT_MB']) * 2**20)\n"


def test_host_memory_largest_fit_is_within_ten_percent_in_at_most_fourteen_probes(ip, monkeypatch):
    monkeypatch.delenv("FIT_MB", raising=False)  # .apply() sets it here; the test leaves nothing behind
    result = ip.run_cell_magic("envsweep", "FIT_MB=1..1024 --largest-fit --budget 600MB --margin 10% --setup none -o",
                               HOLD)
    frame = result.frame()
    assert len(frame) == len(result.points) <= 14 and frame["FIT_MB"].tolist() == [
        p.values["FIT_MB"] for p in result.points]  # every probe, in the order it ran
    assert result.budget.bytes == int(600 * MIB * 0.9) and result.budget.total == 600 * MIB
    best = result.best
    assert best is not None and result.choice.value == "largest_fit"
    value = int(best.values["FIT_MB"])
    # The kernel's own memory under the held bytes, read off the answer's probe: the true largest is what is left.
    kernel_itself = best.peak_host_bytes - value * MIB
    true_largest = (result.budget.bytes - kernel_itself) // MIB
    assert 0 < kernel_itself < 400 * MIB and abs(value - true_largest) <= 0.1 * true_largest
    search = result.search
    above = [p for p in result.points if search.position(p) == search.position(best) + 1]
    assert above and search.verdict(above[0], result.budget) == Verdict.TOO_BIG  # the next value up did not fit
    assert all(search.verdict(p, result.budget) != Verdict.STOPS for p in result.points)
    text = repr(ip.display_formatter.format(result)[0]["text/plain"])
    assert f"FIT_MB={value}" in text and "540 MiB (600 MiB less 10%)" in text
    result.apply()
    assert os.environ["FIT_MB"] == str(value)


# The array is held for half a second: the simulated device mirrors the process's memory as the kernel's sampler reads
# it, and a cell that ends at once could end before a reading on a loaded machine (a fresh clone's run saw a probe of
# 856 MiB peak at 492 MiB).
SIMULATED_HOLD = ("import os, time\nimport numpy as np\nx = np.ones(int(os.environ['FIT_MB']) * 2**17)\n"
                  "time.sleep(0.5)\n")


def test_simulated_gpu_largest_fit_stays_under_the_devices_total_less_the_margin(fresh_session, monkeypatch):
    import mgenv_jupyter

    monkeypatch.setenv("MGENV_SIMULATE_GPU", "mirror-1gb")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    result = mgenv_jupyter.sweep(SIMULATED_HOLD, {"FIT_MB": range(1, 2049)}, setup="", search="largest_fit",
                                 margin="10%", timeout=120)
    assert result.simulated_devices and result.budget.of.value == "device" and result.budget.total == 1024**3
    assert result.budget.bytes == int(1024**3 * 0.9) and len(result.points) <= 12
    best = result.best
    assert best is not None and best.simulated and best.peak_device_bytes <= result.budget.bytes
    value = int(best.values["FIT_MB"])
    kernel_itself = best.peak_device_bytes - value * MIB
    assert abs(value - (result.budget.bytes - kernel_itself) // MIB) <= 0.1 * value
    assert "(simulated)" in repr(_view(result))  # labelled simulated


def _view(result):
    from mgenv_jupyter.presentation.sweep import SweepView

    return SweepView(result, language="en")


@pytest.mark.parametrize("cell, choice", [
    ("raise ValueError('the data loader is empty')", "fit_so_far"),
    ("import os\nheld = b'1' * (int(os.environ['FIT_MB']) * 2**20)", "nothing_fits"),
])
def test_a_probe_that_fails_for_another_reason_stops_the_search_and_says_why(ip, cell, choice):
    result = ip.run_cell_magic("envsweep", "FIT_MB=400..800 --largest-fit --budget 200MB --setup none -o", cell)
    assert result.choice.value == choice and result.best is None
    status = _view(result).lines()[1]
    if choice == "fit_so_far":
        assert len(result.points) == 1 and "ValueError: the data loader is empty" in status
        assert status.startswith("the search stopped at FIT_MB=600: error")
    else:
        assert "nothing fits: FIT_MB=400, the smallest, peaked at" in status
