"""The headline warning and its way out, in real JupyterLab and real Chromium (issue 29, points 1 and 2).

A framework (a labelled stand-in for TensorFlow: the test kernel has none; it reads its variables at import, as
TensorFlow does) is imported, then a cell's `%envset` sets two variables it read at start. The warning under the cell
is the user's: it names their cell, never our source, and says how to get out. The sidebar's "Restart and apply" then
lists both values the cell set beside the profile, with a box each to keep it in the notebook; one is kept, one is
not. After the restart both are in os.environ before any cell runs, the kept one in the saved notebook's profile.
Screenshots of the warning and the question: the panel at 250 px beside the notebook, 1000 and 1280 px wide, light
and dark, in English and in Chinese (under test-artifacts/)."""

from __future__ import annotations

import pytest
from layout_checks import set_theme

from lab_server import (
    CHINESE_LAB,
    PROFILE_QUESTION,
    RESTART_BUTTON,
    RESTART_QUESTION,
    cell_output,
    chromium_page,
    open_details,
    open_notebook,
    open_sidebar,
    run_cell,
    screenshot,
    set_left_area_width,
    wait_for_saved_profile,
    write_notebook,
)

LEVEL, ONEDNN = "TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS"
STAND_IN = (
    "%load_ext mgenv_jupyter\n"
    "# A stand-in for TensorFlow, which this kernel does not have: like TensorFlow, it reads these variables when it\n"
    "# is imported, and keeps what it read.\n"
    "import pathlib, sys, tempfile\n"
    "folder = pathlib.Path(tempfile.mkdtemp())\n"
    "(folder / 'tensorflow.py').write_text(\"import os\\n"
    f"SEEN = {{name: os.environ.get(name) for name in ('{LEVEL}', '{ONEDNN}')}}\\n\")\n"
    "sys.path.insert(0, str(folder))\n"
    "import tensorflow"
)
CELLS = [
    STAND_IN,
    f"%envset {LEVEL}=2 {ONEDNN}=0",
    f"import os, sys\nprint('fresh:', 'tensorflow' not in sys.modules, os.environ.get('{LEVEL}'), "
    f"os.environ.get('{ONEDNN}'))",
]


def test_restart_and_apply_carries_what_a_cell_set_and_keeps_what_the_user_ticks(shared_lab):
    with shared_lab() as lab:
        name = write_notebook(lab, "way-out.ipynb", CELLS)
        with chromium_page(1280, 900) as page:
            open_notebook(page, lab, name)
            run_cell(page, 0)
            run_cell(page, 1)
            warning = cell_output(page, 1, "AlreadyReadWarning")
            open_sidebar(page)
            button = page.locator(RESTART_BUTTON)
            page.wait_for_function(
                "selector => document.querySelector(selector)?.getAttribute('aria-label') === 'Restart and apply (2)'",
                arg=RESTART_BUTTON, timeout=30_000)
            button.click()
            question = page.locator(RESTART_QUESTION)
            rows = question.locator("tbody tr").evaluate_all(
                "rows => rows.map(r => [r.dataset.name, r.dataset.origin, r.querySelector('input')?.checked ?? null])")
            question.get_by_label(f"Keep {ONEDNN} in the notebook").uncheck()
            screenshot(page, "way-out-restart-question.png")
            question.get_by_role("button", name="Restart and apply").click()
            # The new kernel's history: both values, before any cell ran.
            open_details(page, ".mgenv-sb-history")
            page.wait_for_selector(".mgenv-sb-history-list :text('[restart]')", timeout=60_000)
            history = page.inner_text(".mgenv-sb-history-list")
            asked = page.locator(PROFILE_QUESTION).count()
            run_cell(page, 2)
            fresh = cell_output(page, 2, "fresh:")
            saved = wait_for_saved_profile(lab.root / name)
    # The warning is the user's: their line, not our source; and it says what to do.
    assert warning.startswith(f"AlreadyReadWarning — cell [2], line 1: %envset {LEVEL}=2 {ONEDNN}=0\n")
    assert "mgenv_jupyter/" not in warning and "_session.py" not in warning and "self._change" not in warning
    assert "\nWay out: " in warning and "'Restart and apply'" in warning
    assert f"`%envset {LEVEL}=2` before tensorflow is imported" in warning
    # Listed beside the (empty) profile, each kept unless the user says no.
    assert rows == [[LEVEL, "session", True], [ONEDNN, "session", True]]
    # The kept value comes with the profile, the other one as the restart's carry-over; nothing is set twice.
    assert f"{LEVEL}: (unset) → 2 [profile]" in history and f"{ONEDNN}: (unset) → 0 [restart]" in history
    assert history.count(LEVEL) == 1
    assert asked == 0  # the kept value is the user's own profile: nothing to approve
    assert fresh.strip() == "fresh: True 2 0"
    assert saved["metadata"]["mgenv_jupyter"] == {"profile": {LEVEL: "2"}}  # only what the user kept




@pytest.mark.parametrize("language", ["en", "zh"])
def test_screenshots_of_the_warning_and_the_restart_question(shared_lab, language):
    """The warning under its cell and the restart question, with the panel 250 px wide beside the notebook, at 1000
    and 1280 px, light and dark: each picture is opened and checked by eye (test-artifacts/way-out-*.png)."""
    with shared_lab(settings=CHINESE_LAB if language == "zh" else None) as lab:
        name = write_notebook(lab, "way-out.ipynb", CELLS[:2])
        with chromium_page(1280, 800) as page:
            open_notebook(page, lab, name)
            # First: the panel's hello tells the kernel the user's language (by id: its tab title is translated).
            page.evaluate("() => window.jupyterapp.shell.activateById('mgenv-jupyter-sidebar')")
            page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)
            run_cell(page, 0)
            run_cell(page, 1)
            warning = cell_output(page, 1, "AlreadyReadWarning")
            set_left_area_width(page, 250)
            shots = []
            for dark in (False, True):
                set_theme(page, dark)
                for width in (1280, 1000):
                    page.set_viewport_size({"width": width, "height": 800})
                    set_left_area_width(page, 250)
                    page.locator(".jp-Cell:nth-child(2)").scroll_into_view_if_needed()
                    theme = "dark" if dark else "light"
                    shots.append(screenshot(page, f"way-out-warning-{language}-{width}-{theme}.png"))
                    page.locator(RESTART_BUTTON).click()
                    question = page.locator(RESTART_QUESTION)
                    question.wait_for()
                    shots.append(screenshot(page, f"way-out-question-{language}-{width}-{theme}.png"))
                    text = question.inner_text()
                    question.locator(".jp-Dialog-button.jp-mod-reject").click()
                    question.wait_for(state="detached")
    assert all(shot.stat().st_size > 10_000 for shot in shots)
    if language == "zh":
        assert "解决办法" in warning and "重启并应用" in warning
        assert warning.startswith("AlreadyReadWarning — 单元格 [2] 第 1 行: %envset")
        assert "新内核将得到" in text and "保存在笔记本中" in text
    else:
        assert "Way out" in warning and warning.startswith("AlreadyReadWarning — cell [2], line 1: %envset")
        assert "the new kernel gets" in text and "In the notebook" in text
