"""The magics in JupyterLab in real Chromium: a user runs a notebook and reads what %envset says."""

from __future__ import annotations

from lab_server import chromium_page, run_all_cells, running_lab, screenshot, write_notebook


def test_envset_in_jupyterlab(tmp_path):
    with running_lab(tmp_path) as lab:
        write_notebook(lab, "magics.ipynb", [("%load_ext mgenv_jupyter"),
                    ("%envset MEGENGINE_DTR_EVICTION_THRESHOLD=5GB")])
        with chromium_page() as page:
            run_all_cells(page, lab, "magics.ipynb")
            page.wait_for_selector(".jp-OutputArea-output:has-text('5368709120')", timeout=60_000)
            text = page.inner_text(".jp-Notebook")
            screenshot(page, "magics-in-jupyterlab.png")
    assert "takes effect at import" in text
