"""The report as users read it: plain text (the fallback, with the %envset lines to copy) and HTML, in English and
Chinese."""

from __future__ import annotations

from mgenv_jupyter.oom.causes import Cause, Finding
from mgenv_jupyter.oom.recognise import OutOfMemory
from mgenv_jupyter.oom.remedies import Remedy
from mgenv_jupyter.oom.report import OomReport, Timeline
from mgenv_jupyter.oom.state import DeviceFigures, MemoryState, OtherProcess
from mgenv_jupyter.presentation.oom import OomView, sparkline
from mgenv_jupyter.text import Text

GiB = 1024**3


def report() -> OomReport:
    event = OutOfMemory("torch", "gpu", "torch.OutOfMemoryError", "...", 0, 2 * GiB,
                        {"allocated": 21 * GiB, "cached_free": 16 * GiB})
    state = MemoryState((DeviceFigures("gpu0 (simulated)", 0, 40 * GiB, 39 * GiB, 38 * GiB, simulated=True),),
                        (OtherProcess(0, 77, GiB, None, None),))
    timeline = Timeline("gpu0 (simulated) process", (1.0, 2.0, 3.0), (2 * GiB, 20 * GiB, 38 * GiB), 7, 2.0,
                        ((5, 2 * GiB), (6, 3 * GiB)))
    finding = Finding(Cause.FRAGMENTATION, 0.9, Text("16 GiB reserved <unallocated>", "预留 16 GiB"))
    remedy = Remedy(Cause.FRAGMENTATION, (("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),),
                    Text("growable segments", "可增长的显存段"), restart=False, caveat=Text("a caveat", "注意事项"))
    return OomReport(event, 0.0, state, timeline, (finding,), (remedy,), 0.012)


def test_text_in_english_with_the_line_to_copy():
    text = repr(OomView(report(), "en"))
    assert text.splitlines()[0] == "Out of memory on gpu0 (torch.OutOfMemoryError): 2 GiB asked for"
    assert "Verdict: fragmentation — 16 GiB reserved <unallocated>" in text
    assert "gpu0 (simulated): total 40 GiB; this kernel 38 GiB (NVML); other processes 1 GiB" in text
    assert "reserved but unallocated 16 GiB (8.0× the request)" in text
    assert "gpu0: pid 77 (not visible here) 1 GiB" in text
    assert "cell [7] went from 20 GiB to 38 GiB" in text and "[5] 2 GiB, [6] 3 GiB" in text
    assert "1. %envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   — applies live; growable segments" in text
    assert "caveat: a caveat" in text and "Report made in 12 ms" in text


def test_text_in_chinese():
    text = repr(OomView(report(), "zh"))
    assert "结论: 显存碎片 — 预留 16 GiB" in text and "可实时生效" in text and "gpu0(模拟)" in text


def test_html_escapes_and_lists_the_remedies():
    page = OomView(report(), "en")._repr_html_()
    assert "&lt;unallocated&gt;" in page and "<unallocated>" not in page
    assert "<ol><li><code>%envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True</code>" in page


def test_the_labextension_gets_the_report_as_data_beside_text_and_html():
    """IPython merges _repr_mimebundle_ with _repr_html_ and repr: the renderer's OOM_MIME, the fallbacks beside it."""
    from IPython.core.formatters import DisplayFormatter

    from mgenv_jupyter.protocol.oom import OOM_MIME, OOM_VERSION

    bundle, _ = DisplayFormatter().format(OomView(report(), "zh"))
    assert set(bundle) == {OOM_MIME, "text/html", "text/plain"}
    data = bundle[OOM_MIME]
    assert data["v"] == OOM_VERSION and data["language"] == "zh"
    assert data["headline"] == bundle["text/plain"].splitlines()[0]
    assert data["sections"][0][0].startswith("结论: 显存碎片") and data["sections"][-1][0].startswith("时间线")
    [remedy] = data["remedies"]
    assert remedy["assignments"] == [["PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"]]
    assert remedy["restart"] is False and remedy["when"] == "可实时生效" and remedy["caveat"] == "注意事项"
    assert data["no_remedy"] is None and data["footer"].startswith("报告生成用时 12 毫秒")


def test_sparkline_spans_the_range_and_fits_its_width():
    assert sparkline([0, 5, 10]) == "▁▄█"
    assert len(sparkline(list(range(1000)), 48)) <= 48 and sparkline([]) == ""
