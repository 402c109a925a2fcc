"""The report as the labextension's renderer receives it (presentation/oom/_wire.py)."""

from __future__ import annotations

from oom_reports import report

from mgenv_jupyter.oom._report import Timeline
from mgenv_jupyter.presentation.oom import OomView
from mgenv_jupyter.protocol._oom import OomReportData

from wire_check import check


def test_no_samples_no_chart():
    data = OomView(report(Timeline()), "en").data()
    assert data["timeline"] == {"title": "no samples recorded before the failure", "chart": None,
                                "lines": ["no samples recorded before the failure"]}


def test_the_data_has_the_schemas_shape_in_both_languages_and_carries_each_remedy_as_data():
    for language in ("en", "zh"):
        view = OomView(report(), language)
        data = view.data()
        check(data, OomReportData)
        assert data["headline"] == view.headline() and data["footer"] == view.footer()
        [remedy] = data["remedies"]
        assert remedy["envset"] == "%envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
        assert remedy["cause"] == "fragmentation" and remedy["why"] == report().remedies[0].why.get(language)
