"""A downloaded notebook's profile in real JupyterLab and real Chromium: nothing of it reaches the kernel until the user
approves that exact profile in JupyterLab's dialog; the kernel refuses LD_PRELOAD whatever the answer; an approved
profile is applied without a question when the notebook's kernel starts again; a changed profile asks again, and
"Don't apply" leaves the kernel untouched until the user reviews it from the sidebar.

The lab has a JUPYTER_DATA_DIR of its own (tests/lab_server.py), which a shared lab empties before each test, so it
starts with no approvals. The dialog is
photographed at a narrow and a wide window under test-artifacts/."""

from __future__ import annotations

import json
from pathlib import Path

from lab_server import (
    PROFILE_QUESTION,
    chromium_page,
    open_notebook,
    restart_and_apply,
    run_active_cell,
    screenshot,
    shut_down_kernels,
    write_notebook,
)

DEVICE = "MGE_DEFAULT_DEVICE"
PRELOAD = "LD_PRELOAD"
CHECK = "import os\nprint(*(f'{name}={os.environ.get(name)}' for name in ('MGE_DEFAULT_DEVICE', 'LD_PRELOAD')))"
NARROW, WIDE = (560, 820), (1400, 900)


def downloaded_notebook(lab, preload: Path, device: str) -> str:
    return write_notebook(lab, "downloaded.ipynb", [CHECK],
                          metadata={"mgenv_jupyter": {"profile": {PRELOAD: str(preload), DEVICE: device}}})


def question_rows(page) -> dict[str, list[str]]:
    """The dialog's tables, row by row: name → [value, now(, why)], keyed by each row's action."""
    return page.evaluate("""selector => {
        const rows = {};
        for (const row of document.querySelectorAll(`${selector} tbody tr`)) {
            rows[`${row.dataset.action} ${row.dataset.name}`] = [...row.children].slice(1).map(c => c.textContent);
        }
        return rows;
    }""", PROFILE_QUESTION)


def no_question(page) -> bool:
    return page.locator(PROFILE_QUESTION).count() == 0


def show_sidebar(page) -> None:
    """Show the Framework Env panel, whether or not the layout JupyterLab restored shows it already (a click on its
    tab would hide it then)."""
    page.evaluate("() => window.jupyterapp.shell.activateById('mgenv-jupyter-sidebar')")
    page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)


def profile_status(page, status: str, timeout: int = 60_000) -> str:
    """Wait until the panel says what became of the profile in this kernel; its words."""
    page.wait_for_selector(f".mgenv-sb-profile[data-status='{status}']", timeout=timeout)
    return page.inner_text(".mgenv-sb-profile")


def restart_and_apply_and_follow(page) -> str:
    """Restart and apply from the panel's toolbar, confirmed, and wait until the panel follows the new process again;
    returns the button's label as it was clicked."""
    page.evaluate("""() => {
        const node = document.querySelector('.mgenv-sb-config');
        window.__mgenvStates = [];
        new MutationObserver(() => window.__mgenvStates.push(node.dataset.connection))
            .observe(node, {attributes: true, attributeFilter: ['data-connection']});
    }""")
    label = restart_and_apply(page)
    page.wait_for_function("() => window.__mgenvStates.includes('restarting') && "
                           "document.querySelector('.mgenv-sb-config').dataset.connection === 'ready'", timeout=90_000)
    return label


def test_a_downloaded_profile_is_applied_only_after_the_user_approves_that_exact_profile(tmp_path, shared_lab):
    preload = tmp_path / "untrusted" / "libpreload.so"  # never created, never set
    with shared_lab() as lab:
        name = downloaded_notebook(lab, preload, "cpu0")

        # 1. Opening the notebook: the kernel has set nothing, and the user is asked.
        with chromium_page(*NARROW) as page:
            open_notebook(page, lab, name)
            page.wait_for_selector(PROFILE_QUESTION, timeout=60_000)
            before_answer = run_active_cell(page)  # through the command registry: the dialog is modal
            rows = question_rows(page)
            title = page.inner_text(f"{PROFILE_QUESTION} .jp-Dialog-header")
            body = page.inner_text(f"{PROFILE_QUESTION} .mgenv-profile-review")
            screenshot(page, "profile-trust-dialog-narrow.png")
            page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
            screenshot(page, "profile-trust-dialog-wide.png")
            focused = page.evaluate("() => document.activeElement?.textContent")
            page.get_by_role("button", name="Apply profile").click()
            page.wait_for_selector(PROFILE_QUESTION, state="detached", timeout=10_000)
            # The answer goes to the kernel over the comm; the (hidden) panel says when the kernel has applied it.
            page.wait_for_selector(".mgenv-sb-profile[data-status='applied']", state="attached", timeout=30_000)
            after_answer = run_active_cell(page)
            show_sidebar(page)
            profile_panel = profile_status(page, "applied")
            refused_mark = page.get_attribute(".mgenv-sb-profile-refused-mark", "title")
            screenshot(page, "profile-trust-applied-sidebar.png")

            # 2. "Restart and apply": a new process, the same approved profile, no question.
            restart_label = restart_and_apply_and_follow(page)
            profile_status(page, "applied")
            after_restart = run_active_cell(page)
            asked_on_restart = not no_question(page)

        assert before_answer == f"{DEVICE}=None {PRELOAD}=None"  # nothing applied while the question is open
        assert title == "Apply this notebook’s profile?"
        assert "downloaded.ipynb" in body and "Nothing has been set yet" in body
        assert set(rows) == {f"set {DEVICE}", f"refused {PRELOAD}"}
        assert rows[f"set {DEVICE}"] == ["cpu0", "(not set)"]
        value, now, why = rows[f"refused {PRELOAD}"]
        assert (value, now) == (str(preload), "(not set)")
        assert why.startswith(f"{PRELOAD} makes the dynamic loader load other libraries")  # the kernel's reason
        assert why.endswith("it is never taken from a notebook profile")
        assert "Will not be applied" in body
        assert focused == "Don’t apply"  # Enter alone does not consent
        assert after_answer == f"{DEVICE}=cpu0 {PRELOAD}=None"
        assert "applied to this kernel" in profile_panel and f"{PRELOAD}=" in profile_panel
        assert refused_mark and "never taken from a notebook profile" in refused_mark
        assert (lab.data / "mgenv_jupyter" / "approved_profiles.db").is_file()  # kept outside the notebook
        # The kernel already holds what the profile sets (and never takes LD_PRELOAD): no count, only a fresh process.
        assert restart_label == "Restart and apply"
        assert after_restart == f"{DEVICE}=cpu0 {PRELOAD}=None"
        assert not asked_on_restart

        # 3. Reopening the notebook in a new browser, with a new kernel: applied at once, no question.
        shut_down_kernels(lab)
        with chromium_page(*WIDE) as page:
            open_notebook(page, lab, name)
            show_sidebar(page)
            profile_status(page, "applied")
            reopened = run_active_cell(page)
            asked_on_reopen = not no_question(page)
        assert reopened == f"{DEVICE}=cpu0 {PRELOAD}=None"
        assert not asked_on_reopen

        # 4. The file changes on disk (cpu1): a profile nobody approved, so the user is asked again.
        shut_down_kernels(lab)
        saved = json.loads((lab.root / name).read_text())
        assert saved["metadata"]["mgenv_jupyter"] == {"profile": {PRELOAD: str(preload), DEVICE: "cpu0"}}
        downloaded_notebook(lab, preload, "cpu1")
        with chromium_page(*WIDE) as page:
            open_notebook(page, lab, name)
            page.wait_for_selector(PROFILE_QUESTION, timeout=60_000)
            changed_rows = question_rows(page)
            page.get_by_role("button", name="Don’t apply").click()
            page.wait_for_selector(PROFILE_QUESTION, state="detached", timeout=10_000)
            declined = run_active_cell(page)
            show_sidebar(page)
            declined_panel = profile_status(page, "declined")
            screenshot(page, "profile-trust-declined-sidebar.png")
            # The way back: review it from the sidebar, and approve it this time.
            page.get_by_role("button", name="Review and apply…").click()
            page.wait_for_selector(PROFILE_QUESTION, timeout=30_000)
            page.get_by_role("button", name="Apply profile").click()
            profile_status(page, "applied")
            reviewed = run_active_cell(page)

        assert set(changed_rows) == {f"set {DEVICE}", f"refused {PRELOAD}"}
        assert changed_rows[f"set {DEVICE}"] == ["cpu1", "(not set)"]
        assert declined == f"{DEVICE}=None {PRELOAD}=None"
        assert "not applied: you have not approved this profile" in declined_panel
        assert reviewed == f"{DEVICE}=cpu1 {PRELOAD}=None"
    assert not preload.exists()
