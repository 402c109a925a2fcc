"""GPU-aware culling as the user of a notebook meets it, in real JupyterLab and Notebook 7 in real Chromium: a server
started with `--GpuCuller.idle_after=...` (as a hub's single-user arguments would), a notebook whose kernel holds
30 GiB of the simulated GPU and has run no cell since its first. The notebook is told, with the time of the shutdown
and a Keep button; Keep (an empty cell) keeps the kernel; told again, left alone, it is shut down and the notebook is
told why, how long it was idle and what it held. Screenshots at 1400 and 700 px, light and dark
(test-artifacts/culling-*.png)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from layout_checks import clipped_text, other_looks, overlapping, set_theme
from waiting import wait_until

from lab_server import TOKEN, Lab, chromium_page, open_notebook, run_cell, running_lab, screenshot, write_notebook

GIB = 2**30
CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}},
          "JupyterNotebookApp": {"expose_app_in_browser": True}}
# Idle 4 s after the last cell, then 12 s of notice: time enough for the notice's four screenshots.
CULLING = ("--GpuCuller.idle_after=4", "--GpuCuller.notice=12", "--GpuCuller.interval=0.5",
           f"--GpuCuller.min_bytes={GIB}")
TOAST = ".Toastify__toast"


def scenario(path: Path) -> Path:
    path.write_text(json.dumps({"name": "culling", "devices": [{
        "name": "NVIDIA A100-SXM4-80GB", "total": "80GB", "others": "512MB", "kernel": "512MB",
        "notebooks": {"big.ipynb": "30GB", "train.ipynb": "30GB"}, "other_processes": []}]}))
    return path


def kernels(lab: Lab) -> dict[str, Any]:
    with urllib.request.urlopen(f"{lab.url}/mgenv-jupyter/gpus?token={TOKEN}", timeout=30) as response:
        return {k["notebooks"][0]: k for k in json.load(response)["kernels"] if k["notebooks"]}


def cull_at(lab: Lab, notebook: str, told: bool) -> None:
    """Until the GPU view (read at most every half second) says when the notebook's kernel goes, or no longer says."""
    wait_until(lambda: (kernels(lab)[notebook]["cull_at"] is not None) == told, timeout_s=10,
               what=f"the GPU view to {'show' if told else 'drop'} {notebook}'s shutdown time")


def toast(page: Any, words: str, timeout_s: float = 60) -> str:
    """The text of the toast that says `words`, once it shows and has slid into place (a toast slides in from the
    right edge: until it has, a screenshot shows it cut)."""
    handle = page.wait_for_function(
        """([selector, words]) => {
            const found = [...document.querySelectorAll(selector)].find(t => t.textContent.includes(words));
            if (!found) return null;
            const box = found.getBoundingClientRect();
            const settled = box.right <= window.innerWidth && found.dataset.mgenvRight === String(box.right);
            found.dataset.mgenvRight = String(box.right);  // the same place at two looks: it has stopped moving
            return settled ? found.textContent : null;
        }""", arg=[TOAST, words], timeout=timeout_s * 1000, polling=100)
    return str(handle.json_value())


def look(page: Any, name: str) -> list[str]:
    screenshot(page, f"culling-{name}.png")
    outside = page.evaluate("""selector => [...document.querySelectorAll(selector)].filter(t => {
        const box = t.getBoundingClientRect();
        return box.left < 0 || box.top < 0 || box.right > window.innerWidth || box.bottom > window.innerHeight;
    }).map(t => `toast outside the window: ${t.textContent.slice(0, 40)}`)""", TOAST)
    return clipped_text(page, TOAST) + overlapping(page, f"{TOAST} button") + outside


def test_the_notebook_is_told_can_keep_its_kernel_and_is_told_why_it_was_shut_down(tmp_path: Path):
    for server in (tmp_path, tmp_path / "nb7"):
        (server / "config").mkdir(parents=True)
        (server / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    gpu = scenario(tmp_path / "gpu.json")
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": str(gpu)}, args=CULLING) as lab, \
            chromium_page(1400, 900) as page:
        write_notebook(lab, "big.ipynb", ["x = 1"])
        open_notebook(page, lab, "big.ipynb")
        run_cell(page, 0)
        notice = toast(page, "unless a cell runs")
        assert "big.ipynb: its kernel holds 30 GiB of GPU memory, idle " in notice, notice
        cull_at(lab, "big.ipynb", told=True)  # the GPU view says when, too
        problems = {"1400-light": look(page, "notice-1400-light"),
                    **other_looks(page, lambda name: look(page, f"notice-{name}"))}
        assert all(not found for found in problems.values()), problems

        page.click(f"{TOAST} button:has-text('Keep the kernel')")
        assert "big.ipynb: its kernel is kept (a cell ran)." in toast(page, "is kept")
        cull_at(lab, "big.ipynb", told=False)

        toast(page, "unless a cell runs")  # idle again, told again; this time nobody keeps it
        culled = toast(page, "big.ipynb: the server shut its idle kernel down at", timeout_s=60)
        assert "held 30 GiB of GPU memory; limit 4 s)." in culled, culled
        wait_until(lambda: "big.ipynb" not in kernels(lab), timeout_s=10, what="the GPU view to drop the kernel")
        set_theme(page, dark=True)
        assert not look(page, "culled-1400-dark")
        log = lab.log.read_text()
        assert "mgenv_jupyter: shut down kernel" in log and "(big.ipynb): it held 30 GiB of GPU memory" in log

    # Notebook 7, served by the same kind of server: told before and after, too.
    with running_lab(tmp_path / "nb7", env={"MGENV_SIMULATE_GPU": str(gpu)}, args=CULLING, app="notebook") as lab, \
            chromium_page(1000, 800) as page:
        write_notebook(lab, "train.ipynb", ["x = 1"])
        open_notebook(page, lab, "train.ipynb")
        run_cell(page, 0)
        assert "train.ipynb: its kernel holds 30 GiB" in toast(page, "unless a cell runs")
        screenshot(page, "culling-notebook7-notice.png")
        assert "held 30 GiB of GPU memory" in toast(page, "train.ipynb: the server shut its idle kernel down")
        screenshot(page, "culling-notebook7-culled.png")

