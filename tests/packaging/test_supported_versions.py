"""The wheel, built from a clean export (conftest.py's `built`), beside the oldest and the newest JupyterLab and
Notebook that the [lab] extra allows, each in a venv that ./dev sets up: .venvs/lab-oldest (JupyterLab 4.0.x with
Notebook 7.0.x) and .venvs/lab-newest (the newest 4.x with the newest 7.x). One server per venv (it serves JupyterLab
and Notebook 7 alike) is shared by the checks, each in real Chromium with a kernel of that venv:

- JupyterLab lists the extension as enabled and compatible (4.0 refused a front end built against 4.6's packages);
- the Framework Env panel opens and a variable set in it reaches the kernel;
- the out-of-memory report renders its Apply buttons, and one applies;
- the inline memory chart draws;
- Notebook 7 opens the panel from its View menu.

Screenshots: test-artifacts/supported-<venv>-*.png."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from setup_beside import venv

from build_and_install import pip
from lab_server import (
    OOM_SCENARIO,
    OOM_STAND_IN,
    Lab,
    chromium_page,
    open_and_run,
    open_notebook,
    open_sidebar,
    raise_oom,
    run_cell,
    running_lab,
    screenshot,
    shut_down_kernels,
    write_notebook,
)

# One Chromium for the module (tests/lab_server.py): each page still gets a context of its own.
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.usefixtures("chromium")]

# venv: (JupyterLab, Notebook) version prefixes it must hold; "newest" is whatever 4.x and 7.x pip chose for it.
VENVS = {"lab-oldest": ("4.0.", "7.0."), "lab-newest": ("4.", "7.")}
ASYNC_LEVEL = "MEGENGINE_INTERP_ASYNC_LEVEL"
PRINT_LEVEL = f"import os\nprint('kernel sees', os.environ.get('{ASYNC_LEVEL}'))"
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook on screen


def versions(python: Path) -> tuple[str, str]:
    done = subprocess.run([str(python), "-c", "import jupyterlab, notebook; print(jupyterlab.__version__, "
                           "notebook.__version__)"], capture_output=True, text=True, timeout=120, check=True)
    lab, notebook = done.stdout.split()
    return lab, notebook


@pytest.fixture(scope="module", params=list(VENVS))
def lab(request, built, tmp_path_factory) -> Iterator[tuple[str, Lab]]:
    """The wheel installed into the venv (over what it held), checked as `jupyter labextension list` sees it, and a
    server of that venv running with the simulated GPU of the out-of-memory scenario."""
    name = request.param
    python = venv(name) / "bin" / "python"
    if not python.exists():
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail(f"{python} is missing: run ./dev setup")
        pytest.skip(f"{name} venv not set up (./dev setup)")
    lab_version, notebook_version = versions(python)
    wanted_lab, wanted_notebook = VENVS[name]
    assert lab_version.startswith(wanted_lab) and notebook_version.startswith(wanted_notebook), (lab_version,
                                                                                                 notebook_version)
    if name == "lab-newest":
        assert not lab_version.startswith("4.0."), lab_version  # two different ends of the range
    pip(python, "--no-deps", "--force-reinstall", str(built["wheel"]))
    listed = subprocess.run([str(python.with_name("jupyter")), "labextension", "list"], capture_output=True,
                            text=True, timeout=300)
    output = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)
    assert "mgenv-jupyter v0.1.0 enabled OK (python, mgenv_jupyter)" in output, output
    assert "is not compatible" not in output, output
    with running_lab(tmp_path_factory.mktemp(name), env={"MGENV_SIMULATE_GPU": str(OOM_SCENARIO)},
                     jupyter=python.with_name("jupyter")) as server:
        yield name, server


@pytest.fixture(autouse=True)
def first_visit(lab) -> None:
    """Each check starts from JupyterLab's default layout, as on a first visit: the server forgets the workspace the
    check before it left (the notebooks and the panel it had open), and the kernels that check started are shut down
    (each samples the simulated GPU while it runs)."""
    shut_down_kernels(lab[1])
    for saved in (lab[1].root.parent / "workspaces").glob("*"):
        saved.unlink()


def test_the_panel_sets_a_variable_the_kernel_sees(lab):
    name, server = lab
    notebook = write_notebook(server, "panel.ipynb", [PRINT_LEVEL])
    with chromium_page() as page:
        open_notebook(page, server, notebook)
        open_sidebar(page)
        page.get_by_label("Search variables").fill("async level")
        page.locator(f".mgenv-sb [aria-label='{ASYNC_LEVEL}']").select_option("0")  # an enum: a select
        page.wait_for_selector(f".mgenv-sb-profile :text('{ASYNC_LEVEL}=0')", timeout=30_000)
        run_cell(page, 0)
        page.wait_for_selector("text=kernel sees 0", timeout=60_000)
        screenshot(page, f"supported-{name}-panel.png")


def test_the_out_of_memory_report_renders_its_apply_buttons(lab):
    name, server = lab
    report = f"{NOTEBOOK} .jp-Cell:nth-child(3) .mgenv-oom"
    notebook = write_notebook(server, "oom.ipynb", [
        "%load_ext mgenv_jupyter",
        # Made a cell before the failing one: a cell naming a framework not imported yet pauses the recorder.
        OOM_STAND_IN,
        raise_oom(after_s=2),
    ])
    with chromium_page() as page:
        open_and_run(page, server, notebook, 3, until=f"{report} .mgenv-oom-apply")
        labels = page.locator(f"{report} .mgenv-oom-apply").all_inner_texts()
        # The remedy that sets PYTORCH_CUDA_ALLOC_CONF ("Free memory" comes before it)
        remedy = page.locator(f"{report} .mgenv-oom-remedy").filter(
            has=page.locator(".mgenv-oom-envset", has_text="PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"))
        remedy.locator(".mgenv-oom-apply").click()
        outcome = remedy.locator(".mgenv-oom-outcome:is([data-state='restart'], [data-state='applied'], "
                                 "[data-state='error'])")
        outcome.wait_for(timeout=60_000)
        state, said = outcome.get_attribute("data-state"), outcome.inner_text()
        remedy.scroll_into_view_if_needed()
        screenshot(page, f"supported-{name}-oom.png")
    assert "Apply" in labels, labels
    assert state == "applied", said


def test_the_inline_chart_draws(lab):
    name, server = lab
    chart = f"{NOTEBOOK} .jp-OutputArea .mgenv-chart"
    notebook = write_notebook(server, "chart.ipynb", ["%load_ext mgenv_jupyter\nchart = %memchart\nchart"])
    with chromium_page() as page:
        open_notebook(page, server, notebook)
        run_cell(page, 0)
        page.wait_for_selector(f"{chart} .uplot canvas", timeout=60_000)
        live = f"document.querySelector('{chart}').mgenvChart"
        page.wait_for_function(f"() => {live}.store.length > 5", timeout=60_000)
        legend = page.inner_text(f"{chart} .mgenv-chart-legend")
        width = page.evaluate(f"() => document.querySelector('{chart} .uplot canvas').width")
        page.locator(chart).scroll_into_view_if_needed()
        screenshot(page, f"supported-{name}-chart.png")
    assert "simulated" in legend and width > 200, (legend, width)


def test_notebook_7_opens_the_panel_from_its_view_menu(lab):
    name, server = lab
    notebook = write_notebook(server, "nb7.ipynb", [PRINT_LEVEL])
    with chromium_page() as page:
        page.goto(server.page_url(f"notebooks/{notebook}"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        page.click("li.lm-MenuBar-item:has-text('View')")
        page.locator(".lm-Menu-itemLabel:text-is('Framework Env')").click()
        page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)
        page.get_by_label("Search variables").fill("async level")
        page.locator(f".mgenv-sb [aria-label='{ASYNC_LEVEL}']").select_option("1")
        page.wait_for_selector(f".mgenv-sb-profile :text('{ASYNC_LEVEL}=1')", timeout=30_000)
        run_cell(page, 0)
        page.wait_for_selector("text=kernel sees 1", timeout=60_000)
        screenshot(page, f"supported-{name}-notebook7.png")
