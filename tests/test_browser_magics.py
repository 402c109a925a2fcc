"""The magics in JupyterLab in real Chromium: a user runs a notebook and reads what %envset says."""

from __future__ import annotations

import nbformat
import pytest

from lab_server import chromium_page, run_all_cells, running_lab, screenshot

pytestmark = pytest.mark.slow


def test_envset_in_jupyterlab(tmp_path):
    with running_lab(tmp_path) as lab:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("%load_ext mgenv_jupyter"),
                    nbformat.v4.new_code_cell("%envset MEGENGINE_DTR_EVICTION_THRESHOLD=5GB")]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, lab.root / "magics.ipynb")
        with chromium_page() as page:
            run_all_cells(page, lab, "magics.ipynb")
            page.wait_for_selector(".jp-OutputArea-output:has-text('5368709120')", timeout=60_000)
            text = page.inner_text(".jp-Notebook")
            screenshot(page, "magics-in-jupyterlab.png")
    assert "takes effect at import" in text
