"""The DTR and allocator widgets' "Try several values…": a `%%envsweep` cell for the widget's main setting, handed to
the open Framework Env panels (which insert it below the active cell, unrun) and shown in the widget to copy."""

from __future__ import annotations

from mgenv_jupyter.tuner._offers import cell_offers
from mgenv_jupyter.widgets import AllocatorWidget, DTRWidget

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def test_dtr_offers_thresholds_at_shares_of_the_gpu(fresh_session, closing, monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "a100-40gb")
    widget = DTRWidget()
    closing(widget)
    offered: list = []
    cell_offers.observe(offered.append)
    try:
        widget.try_button.click()
    finally:
        cell_offers.unobserve(offered.append)
    code = offered[0].code
    assert code.splitlines()[0] == f"%%envsweep {THRESHOLD}=0,10GB,20GB,30GB,36GB"
    assert "Framework Env panel inserts this cell" in widget.message.value and "%%envsweep" in widget.message.value
    assert fresh_session.get(THRESHOLD) is None and fresh_session.history == []  # nothing set, nothing run


def test_an_edited_value_is_where_the_suggestion_starts(fresh_session, closing):
    widget = DTRWidget(gpu_total_bytes=16 * 1024**3)
    closing(widget)
    widget.threshold_row.editor.number.value = 4
    widget.threshold_row.editor.unit.value = "GB"
    code = widget.try_several()
    assert code.splitlines()[0] == f"%%envsweep {THRESHOLD}=2GB,4GB,8GB,16GB"  # a half, it, twice, four times
    assert "Copy this into a new cell" in widget.message.value  # no Framework Env panel is open here


def test_the_allocator_widget_sweeps_its_first_setting(fresh_session, closing):
    widget = AllocatorWidget(framework="paddle")
    closing(widget)
    assert widget.try_several().splitlines()[0] == (
        "%%envsweep FLAGS_allocator_strategy=auto_growth,naive_best_fit,thread_local")
