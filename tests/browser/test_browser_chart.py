"""The memory chart rendered live in JupyterLab in real Chromium, fed by the simulated GPU's `training` scenario: the
lines climb while cells run, each cell is marked, the DTR threshold and Paddle's first chunk are drawn. Its screenshots
in the light and the dark theme (test-artifacts/memory-chart.png, memory-chart-dark.png) are the README's pictures
(docs/)."""

from __future__ import annotations

from layout_checks import set_theme

from lab_server import chromium_page, run_all_cells, screenshot, write_notebook

OVERLAYS = ("%envset MEGENGINE_DTR_EVICTION_THRESHOLD=8GB FLAGS_allocator_strategy=naive_best_fit "
            "FLAGS_fraction_of_gpu_memory_to_use=0.5")
# Training steps of different lengths, so that their markers stand apart; all done before the scenario's NVML error
# window (20 s in).
CELLS = ["%load_ext mgenv_jupyter\n" + OVERLAYS, "chart = %memchart\nchart",
         *[f"import time\n\ntime.sleep({seconds})  # a few training steps" for seconds in (4, 2.5, 3.5, 4)]]
CHART = ".jp-OutputArea .mgenv-chart"
GiB = 1024**3


def test_memory_chart_draws_the_simulated_gpu_live(shared_lab):
    with shared_lab(env={"MGENV_SIMULATE_GPU": "training"}) as lab:
        write_notebook(lab, "chart.ipynb", CELLS)
        with chromium_page(width=800) as page:
            run_all_cells(page, lab, "chart.ipynb")
            # The side panels closed: the notebook and its chart about 700 px wide, as in a narrow window.
            page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
            page.wait_for_selector(f"{CHART} canvas", timeout=60_000)
            chart = f"document.querySelector('{CHART}').mgenvChart"
            # live: the number of points keeps growing while the notebook sits there
            page.wait_for_function(f"() => {chart}.store.length > 20", timeout=30_000)
            first = page.evaluate(f"() => {chart}.store.length")
            page.wait_for_function(f"() => {chart}.store.length > {first + 10}", timeout=30_000)
            # every training cell has finished (its marker carries its duration)
            page.wait_for_function(f"() => {chart}.markers.filter(m => m.cell >= 3 && m.end !== null).length >= 4",
                                   timeout=60_000)
            # The training scenario's NVML fails from its 20th to its 23rd second, on purpose (the chart says so): a
            # loaded machine can reach this line then, so the line is read once NVML answers again.
            page.wait_for_function(f"() => document.querySelector('{CHART} .mgenv-chart-status')?.textContent"
                                   ".includes('NVML ok')", timeout=30_000)
            status = page.inner_text(f"{CHART} .mgenv-chart-status")
            legend = page.inner_text(f"{CHART} .mgenv-chart-legend")
            markers = page.evaluate(f"() => {chart}.markers.map(m => m.cell)")
            process = page.evaluate(f"() => {chart}.store.column('gpu0 (simulated) process').filter(v => v !== null)")
            page.locator(CHART).scroll_into_view_if_needed()
            page.locator(CHART).screenshot(path=str(screenshot(page, "memory-chart.png")))
            set_theme(page, dark=True)
            page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            page.locator(CHART).screenshot(path=str(screenshot(page, "memory-chart-dark.png")))
    assert status.startswith("Simulated GPU (training) · NVML ok")  # the simulation named once, then NVML in words
    assert "simulated" in legend
    assert "DTR eviction threshold (8 GiB)" in legend and "Paddle first chunk (20 GiB)" in legend  # listed, in GiB
    assert {3, 4, 5, 6} <= set(markers), markers
    assert max(process) - process[0] > 2 * GiB  # 256 MiB a second for 14 s: the kernel's memory climbed
