"""The report in words (presentation/oom/_text.py): the plain text users read and copy the `%envset` lines from,
in English and Chinese."""

from __future__ import annotations

from oom_reports import report

from mgenv_jupyter.presentation.oom import OomView, sparkline


def test_text_in_english_with_the_line_to_copy():
    text = repr(OomView(report(), "en"))
    assert text.splitlines()[0] == "Out of memory on gpu0 (torch.OutOfMemoryError): 2 GiB asked for"
    assert "Verdict: fragmentation — 16 GiB reserved <unallocated>" in text
    assert "gpu0 (simulated): total 40 GiB; this kernel 38 GiB (NVML); other processes 1 GiB" in text
    assert "reserved but unallocated 16 GiB (8.0× the request)" in text
    assert "gpu0: pid 77 (not visible here) 1 GiB" in text
    assert "cell [7] went from 20 GiB to 38 GiB" in text and "[5] 2 GiB, [6] 3 GiB" in text
    assert "Timeline (gpu0 (simulated) process, last 1 min): ▁▄█" in text  # the text fallback keeps its sparkline
    assert "samples while the cell ran: 1 (about 1 s apart), and one at the failure" in text
    assert ("1. %envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   — once set: applied live; growable segments"
            in text)
    assert "caveat: a caveat" in text and "Report made in 12 ms" in text

def test_a_remedy_says_the_status_the_session_will_give_it_or_that_it_needs_a_restart():
    """The words %envdiff and the sidebar use: never "applies live" for a value that waits for the first use."""
    import dataclasses

    from mgenv_jupyter.runtime._status import Status

    base = report()
    pending = dataclasses.replace(base.remedies[0], statuses=(("PYTORCH_CUDA_ALLOC_CONF", Status.PENDING_FIRST_USE),))
    restart = dataclasses.replace(base.remedies[0], restart=True)
    for remedy, english in ((pending, "once set: takes effect at first use"),
                            (restart, "needs a restart (Framework Env sidebar: Restart and apply)")):
        view = OomView(dataclasses.replace(base, remedies=(remedy,)), "en")
        assert f"   — {english};" in repr(view) and view.data()["remedies"][0]["when"] == english

def test_text_in_chinese():
    text = repr(OomView(report(), "zh"))
    assert "结论: 显存碎片 — 预留 16 GiB" in text and "设置后:已实时应用" in text and "gpu0(模拟)" in text

def test_sparkline_spans_the_range_and_fits_its_width():
    assert sparkline([0, 5, 10]) == "▁▄█"
    assert len(sparkline(list(range(1000)), 48)) <= 48 and sparkline([]) == ""


def test_growth_while_no_cell_ran_is_said_as_its_own_fact_and_comes_first_when_the_cell_climbed_by_nothing():
    """Issue 36, point 5: "cell [3] went from 38 GiB to 38 GiB" stays true but is no headline; the growth between
    cells [2] and [3] is said first, in English and Chinese. A cell that climbed more keeps the first line."""
    from oom_reports import GiB, gpu_timeline

    from mgenv_jupyter.oom._report import Between

    idle = gpu_timeline((1.0, 2.0, 3.0), (2 * GiB, 38 * GiB, 38 * GiB), 3, 2.0, ((2, 2 * GiB),),
                        between=(Between(2, 3, 2 * GiB, 38 * GiB),))
    lines = [line.strip() for line in OomView(report(idle), "en").timeline_lines()]
    assert lines[1] == "grew by 36 GiB between cells [2] and [3], while no cell ran (from 2 GiB to 38 GiB)"
    assert lines[2].startswith("cell [3] went from 38 GiB to 38 GiB (peak 38 GiB)")
    chinese = [line.strip() for line in OomView(report(idle), "zh").timeline_lines()]
    assert chinese[1] == "在单元 [2] 与 [3] 之间、没有单元运行时增长了 36 GiB(从 2 GiB 到 38 GiB)"
    climbing = gpu_timeline((1.0, 2.0, 3.0), (2 * GiB, 3 * GiB, 38 * GiB), 3, 2.0, ((2, 2 * GiB),),
                            between=(Between(2, 3, 2 * GiB, 3 * GiB),))
    lines = [line.strip() for line in OomView(report(climbing), "en").timeline_lines()]
    assert lines[1].startswith("cell [3] went from 3 GiB to 38 GiB")
    assert "grew by 1 GiB between cells [2] and [3], while no cell ran (from 2 GiB to 3 GiB)" in lines[3:]


def test_the_cells_samples_are_said_as_far_apart_as_they_were_taken_while_it_ran():
    """The spacing said with the count is that of the cell's own samples (the recorder's 1 Hz here), not the whole
    timeline's: the readings taken as each earlier cell started and ended crowd that one (a fresh clone's browser
    run said "4 (about 0.4 s apart)" for a cell the recorder sampled once a second)."""
    from oom_reports import GiB, gpu_timeline

    boundaries = (1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6)  # earlier cells' starts and ends, a tenth of a second apart
    during = (2.0, 3.0, 4.0, 5.0)  # the failing cell from 2.0 s: the recorder's samples
    times = boundaries + during + (6.0,)  # and the one at the failure
    timeline = gpu_timeline(times, tuple(2 * GiB for _ in times), 7, 2.0, ((5, 2 * GiB),))
    text = repr(OomView(report(timeline, failed_at=6.0), "en"))
    assert "samples while the cell ran: 4 (about 1 s apart), and one at the failure" in text, text
