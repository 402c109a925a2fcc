"""`OomView` as IPython displays it (presentation/oom/__init__.py): the renderer's data with the text and HTML
fallbacks beside it."""

from __future__ import annotations

from oom_reports import report

from mgenv_jupyter.presentation.oom import OomView


def test_the_labextension_gets_the_report_as_data_beside_text_and_html():
    """IPython merges _repr_mimebundle_ with _repr_html_ and repr: the renderer's OOM_MIME, the fallbacks beside it."""
    from IPython.core.formatters import DisplayFormatter

    from mgenv_jupyter.protocol._oom import OOM_MIME, OOM_VERSION

    bundle, _ = DisplayFormatter().format(OomView(report(), "zh"))
    assert set(bundle) == {OOM_MIME, "text/html", "text/plain"}
    data = bundle[OOM_MIME]
    assert data["v"] == OOM_VERSION and data["language"] == "zh"
    assert data["headline"] == bundle["text/plain"].splitlines()[0]
    assert data["sections"][0][0].startswith("结论: 显存碎片")
    assert data["sections"][-1][0].startswith("GPU 上的其他进程")
    timeline = data["timeline"]
    assert timeline["title"] == "gpu0 (模拟) 进程 的时间线:单元 [7] 直到失败,对比之前各单元的峰值"
    assert timeline["lines"][0] == "单元 [7] 从 20 GiB 升至 38 GiB(峰值 38 GiB)"  # no sparkline beside the chart
    assert not any(bar in line for line in timeline["lines"] for bar in "▁▂▃▄▅▆▇█")
    assert [o["label"] for o in timeline["chart"]["overlays"]] == [
        "gpu0 (模拟) 总量(40 GiB)", "失败时占用 + 申请的 2 GiB(40 GiB)", "单元 [6] 峰值(3 GiB)",
        "单元 [5] 峰值(2 GiB)"]
    [remedy] = data["remedies"]
    assert remedy["assignments"] == [["PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"]]
    assert remedy["restart"] is False and remedy["when"] == "设置后:已实时应用" and remedy["caveat"] == "注意事项"
    assert data["no_remedy"] is None and data["footer"].startswith("报告生成用时 12 毫秒")
