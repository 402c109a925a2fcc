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
