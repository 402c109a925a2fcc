"""The widgets in a real Jupyter kernel (nbclient): displayed with real comms, driven from later cells, kept in step
with `%envset`, and still right after a change made from another thread."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient

CELLS = [
    "%load_ext mgenv_jupyter\nimport os, threading, mgenv_jupyter\n"
    "dtr = mgenv_jupyter.DTRWidget(gpu_total_bytes=16 * 1024**3)\ndtr",
    # what a click does in the browser: the front end sets the values, then presses Apply
    "dtr.threshold_row.editor.number.value = 4\ndtr.threshold_row.editor.unit.value = 'GiB'\n"
    "dtr.switch_row.checkbox.value = True\ndtr.apply_button.click()\n"
    "print('ENV', os.environ['MEGENGINE_DTR_EVICTION_THRESHOLD'], os.environ['MEGENGINE_ENABLE_DROP'])\n"
    "print('SHARE', dtr.share.value)",
    "%envdiff",
    "%envset MEGENGINE_DTR_EVICTION_THRESHOLD=2GB",
    "print('WIDGET', dtr.threshold_row.editor.number.value, dtr.threshold_row.editor.unit.value)",
    "t = threading.Thread(target=lambda: mgenv_jupyter.session().set({'MEGENGINE_DTR_EVICTION_THRESHOLD': '1GB'}))\n"
    "t.start(); t.join()\nprint('THREAD', dtr.threshold_row.editor.number.value, dtr.threshold_row.editor.unit.value)",
    "paddle = mgenv_jupyter.AllocatorWidget(framework='paddle')\npaddle",
    "dtr.close(); paddle.close()\nprint('OBSERVERS', len(mgenv_jupyter.session()._observers))",
]


def test_widgets_in_a_real_kernel(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [cell.outputs for cell in nb.cells]
    for cell, cell_outputs in zip(CELLS, outputs, strict=True):
        assert not any(o.output_type == "error" for o in cell_outputs), f"{cell!r} failed: {cell_outputs}"
    shown = outputs[0][0]["data"]
    assert "application/vnd.jupyter.widget-view+json" in shown  # a real widget view, not a text fallback
    assert nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]  # its model went over comms
    text = ["".join(o.get("text", "") for o in cell_outputs) for cell_outputs in outputs]
    assert f"ENV {4 * 1024**3} 1" in text[1] and "25%" in text[1]
    assert "widget" in outputs[2][0]["data"]["text/plain"]  # %envdiff: source "widget"
    assert "WIDGET 2.0 GiB" in text[4]
    assert "THREAD 1.0 GiB" in text[5]
    assert "OBSERVERS 0" in text[7]
