"""The memory chart rendered live in JupyterLab in real Chromium, fed by the simulated GPU."""

from __future__ import annotations

from lab_server import chromium_page, run_all_cells, running_lab, screenshot, write_notebook


def test_memory_chart_draws_the_simulated_gpu_live(tmp_path):
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": "a100-40gb"}) as lab:
        write_notebook(lab, "chart.ipynb", [("%load_ext mgenv_jupyter\n%memchart"),
                    ("import time\nfor step in range(3):\n    time.sleep(0.5)")])
        with chromium_page() as page:
            run_all_cells(page, lab, "chart.ipynb")
            page.wait_for_selector(".jp-OutputArea .mgenv-chart canvas", timeout=60_000)
            # live: the number of points keeps growing while the notebook sits there
            count = "() => document.querySelector('.jp-OutputArea .mgenv-chart').mgenvChart.store.length"
            page.wait_for_function(f"() => ({count})() > 20", timeout=30_000)
            first = page.evaluate(count)
            page.wait_for_function(f"() => ({count})() > {first + 10}", timeout=30_000)
            status = page.inner_text(".jp-OutputArea .mgenv-chart-status")
            legend = page.inner_text(".jp-OutputArea .mgenv-chart-legend")
            markers = page.evaluate("() => document.querySelector('.jp-OutputArea .mgenv-chart').mgenvChart"
                                    ".markers.map(m => m.cell)")
            page.locator(".jp-OutputArea .mgenv-chart").first.screenshot(path=str(screenshot(page, "memory-chart.png")))
    assert "SIMULATED GPU" in status
    assert "simulated" in legend and "GiB" in legend
    assert markers, "cell markers reached the chart"
