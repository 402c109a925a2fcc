"""The report as HTML (presentation/oom/_html.py), for front ends without the labextension's renderer."""

from __future__ import annotations

from oom_reports import report

from mgenv_jupyter.presentation.oom import OomView


def test_html_escapes_and_lists_the_remedies():
    page = OomView(report(), "en")._repr_html_()
    assert "&lt;unallocated&gt;" in page and "<unallocated>" not in page
    assert "<ol><li><code>%envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True</code>" in page
