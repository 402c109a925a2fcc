"""An out-of-memory report's buttons ask the kernel of the notebook the report is an output of, whichever notebook the
sidebar follows (issue 36, point 4), in real JupyterLab and real Chromium.

Notebook a.ipynb fails with PyTorch's out-of-memory error on the simulated GPU (tests/data/oom/fragmentation.json);
its report is shown in a view of the output of its own (JupyterLab's "Create New View for Output", beside the
notebooks, still a.ipynb's output), and b.ipynb is opened after it: the sidebar follows b.ipynb. A click on the
report's Apply and on its "Free memory" reaches a.ipynb's kernel: the remedy is set there and kept in a.ipynb's
profile (b.ipynb's stays empty), and the memory is given back. Before, the buttons went through the sidebar's
connection, which answered nothing for a notebook it did not follow: "This report's notebook has no running kernel".

The error is a stand-in with PyTorch's class name and wording, raised without a GPU (tests/lab_server.py).
"""

from __future__ import annotations

from layout_checks import clipped_text, unusable_inputs

from lab_server import (
    KERNEL_READY_JS,
    OOM_SCENARIO,
    OOM_STAND_IN,
    chromium_page,
    execute_command,
    open_and_run,
    open_sidebar,
    raise_oom,
    screenshot,
    write_notebook,
)

VIEW = ".jp-LinkedOutputView .mgenv-oom"
APPLY = f"{VIEW} .mgenv-oom-remedy:first-child .mgenv-oom-apply"
APPLIED = f"{VIEW} .mgenv-oom-remedy:first-child .mgenv-oom-outcome"
FREE = f"{VIEW} .mgenv-oom-free .mgenv-oom-free-button"
FREED = f"{VIEW} .mgenv-oom-free .mgenv-oom-free-outcome"
SETTLED = ":is([data-state='applied'], [data-state='restart'], [data-state='error'])"

# Each open notebook's path → its profile (the notebook's metadata as the page holds it).
PROFILES_JS = """() => Object.fromEntries([...window.jupyterapp.shell.widgets('main')]
    .filter(widget => widget.content?.model?.getMetadata && widget.context)
    .map(widget => [widget.context.path, widget.context.model.getMetadata('mgenv_jupyter')?.profile ?? null]))"""


def test_a_reports_buttons_ask_its_own_notebooks_kernel_while_the_sidebar_follows_another(shared_lab):
    with shared_lab(env={"MGENV_SIMULATE_GPU": str(OOM_SCENARIO)}) as lab:
        a = write_notebook(lab, "own-a.ipynb", [
            "%load_ext mgenv_jupyter\nimport numpy as np\nweights = np.ones(64 << 20, dtype=np.uint8)",
            OOM_STAND_IN,
            raise_oom(after_s=1.5),
        ])
        b = write_notebook(lab, "own-b.ipynb", ["followed = 'b'"])
        with chromium_page() as page:
            open_and_run(page, lab, a, 3, until=".jp-Cell:nth-child(3) .mgenv-oom .mgenv-oom-apply")
            execute_command(page, "notebook:create-output-view", {"path": a, "index": 2})
            page.wait_for_selector(APPLY, timeout=60_000)
            execute_command(page, "docmanager:open", {"path": b, "options": {"mode": "split-right"}})
            page.wait_for_function(f"""() => window.jupyterapp.shell.currentWidget?.context?.path === '{b}'
                && ({KERNEL_READY_JS})()""", timeout=120_000)
            open_sidebar(page)
            followed = page.inner_text(".mgenv-sb-status")

            page.locator(APPLY).click()
            page.wait_for_selector(f"{APPLIED}{SETTLED}", timeout=60_000)
            applied = (page.get_attribute(APPLIED, "data-state"), page.inner_text(APPLIED))
            page.locator(FREE).click()
            page.wait_for_selector(f"{FREED}{SETTLED}", timeout=60_000)
            freed = (page.get_attribute(FREED, "data-state"), page.inner_text(FREED))
            followed_after = page.inner_text(".mgenv-sb-status")
            profiles = page.evaluate(PROFILES_JS)
            page.locator(FREED).scroll_into_view_if_needed()
            problems = unusable_inputs(page, VIEW) + clipped_text(page, VIEW)
            screenshot(page, "report-own-kernel-1400-light.png")

    assert followed.startswith(b) and followed_after.startswith(b), (followed, followed_after)
    assert applied[0] == "applied", applied
    assert freed[0] == "applied" and "gave back" in freed[1], freed
    assert profiles == {a: {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, b: None}, profiles
    assert problems == [], problems
