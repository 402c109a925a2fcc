"""The Framework Env sidebar in real JupyterLab and real Chromium: a user opens a notebook, opens the panel, sets a
variable and the kernel has it; a %envset in a cell shows up in the panel at once; the live memory panel draws the
simulated GPU; "Restart and apply" brings the notebook profile into a fresh kernel before any cell runs, without a
question: what the user sets in the sidebar is recorded as approved as they set it (a profile that came with the file
is asked about first: tests/browser/test_browser_profile_trust.py); the restart asks first (its question and layout:
tests/browser/test_layout_sidebar.py). Each test keeps a screenshot under test-artifacts/."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from layout_checks import clipped_text, overlapping, set_theme, unusable_inputs
from setup_beside import venv

from comm_traffic import CommTraffic
from lab_server import (
    PROFILE_QUESTION,
    ROOT,
    add_kernel_spec,
    chromium_page,
    main_thread_busy,
    open_notebook,
    open_sidebar,
    restart_and_apply,
    run_cell,
    screenshot,
    set_left_area_width,
    wait_for_saved_profile,
    write_notebook,
    write_user_settings,
)

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
ASYNC_LEVEL = "MEGENGINE_INTERP_ASYNC_LEVEL"


def editor(page, name: str):
    return page.locator(f".mgenv-sb [aria-label='{name}']")


def wait_for_value(page, name: str, value: str, timeout: int = 30_000) -> None:
    """Wait until the panel's editor for `name` shows `value` (what the kernel holds now)."""
    page.wait_for_function(
        "([name, value]) => document.querySelector(`.mgenv-sb [aria-label='${name}']`)?.value === value",
        arg=[name, value], timeout=timeout)


def set_size(page, name: str, number: str, unit: str) -> None:
    """Enter a size as a user does: the unit first (nothing is sent while the box is empty), then the number, Enter."""
    editor(page, f"{name} unit").select_option(unit)
    field = editor(page, name)
    field.fill(number)
    field.press("Enter")


def wait_for_size(page, name: str, number: str, unit: str, timeout: int = 30_000) -> None:
    """Wait until the kernel holds a value for `name` and the panel shows it back as `number` `unit`."""
    page.wait_for_function("""([name, number, unit]) => {
        const row = document.querySelector(`.mgenv-sb-row[data-name='${name}']`);
        const box = row?.querySelector(`[aria-label='${name}']`);
        const chosen = row?.querySelector(`[aria-label='${name} unit']`);
        return !!row?.classList.contains('mgenv-sb-set') && box.value === number && chosen.value === unit;
    }""", arg=[name, number, unit], timeout=timeout)


def widen_sidebar(page, right: int) -> None:
    """Drag the left area's edge to x = `right`, as a user widens the sidebar."""
    handle = page.locator("#jp-main-split-panel > .lm-SplitPanel-handle").first
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, 300)
    page.mouse.down()
    page.mouse.move(right, 300, steps=5)
    page.mouse.up()


def badge(page, name: str):
    return page.locator(f".mgenv-sb-row[data-name='{name}'] .mgenv-sb-badge")


def test_sidebar_sets_a_variable_the_kernel_sees_and_the_notebook_keeps(shared_lab):
    with shared_lab() as lab:
        name = write_notebook(lab, "sidebar.ipynb", [f"import os\nprint('kernel sees', os.environ.get('{THRESHOLD}'))"])
        with chromium_page() as page:
            open_notebook(page, lab, name)
            open_sidebar(page)
            page.get_by_label("Search variables").fill("eviction threshold")
            shown = page.eval_on_selector_all(".mgenv-sb-row:not([hidden])", "rows => rows.map(r => r.dataset.name)")
            unset_badge = badge(page, THRESHOLD).inner_text()
            set_size(page, THRESHOLD, "2048", "MiB")
            wait_for_size(page, THRESHOLD, "2", "GiB")  # the kernel's 2147483648 bytes, in the largest exact unit
            # No framework is imported in this kernel.
            assert badge(page, THRESHOLD).inner_text() == "takes effect at import"
            run_cell(page, 0)
            page.wait_for_selector("text=kernel sees 2147483648", timeout=30_000)
            profile = page.inner_text(".mgenv-sb-profile")
            screenshot(page, "sidebar-set-variable.png")
            page.keyboard.press("Control+s")
            saved = wait_for_saved_profile(lab.root / name)  # the profile travels with the file
    assert THRESHOLD in shown and len(shown) < 5, shown  # the search box keeps what matches name or description
    assert unset_badge == "not set"  # not "takes effect at import": nothing is set for the import to read
    assert f"{THRESHOLD}=2 GiB" in profile  # the one notation of sizes; the file keeps the bytes
    assert saved["metadata"]["mgenv_jupyter"] == {"profile": {THRESHOLD: "2147483648"}}
    assert "mgenv_jupyter" not in saved["cells"][0]["source"]  # nothing was written into the user's cells


ALLOC_CONF = "PYTORCH_ALLOC_CONF"


def test_sidebar_edits_a_key_value_config_key_by_key_as_the_widget_does(shared_lab):
    """PYTORCH_ALLOC_CONF as the AllocatorWidget draws it: one typed input per key (the kernel's "key_value" editor),
    the joined value under them; each key edit is the sidebar's one "set" request with the joined value, and the
    kernel's os.environ has it. A key the kernel refuses keeps what was typed, with the reason under it. Screenshots
    at a narrow and a wide panel, light and dark: test-artifacts/sidebar-key-value-<width>-<theme>.png."""
    row = f".mgenv-sb-row[data-name='{ALLOC_CONF}']"
    with shared_lab() as lab:
        name = write_notebook(lab, "keys.ipynb", [
            f"import os\nprint('kernel sees', repr(os.environ.get('{ALLOC_CONF}')))"])
        with chromium_page(width=1400, height=900) as page:
            open_notebook(page, lab, name)
            open_sidebar(page)
            page.get_by_label("Search variables").fill(ALLOC_CONF)
            group = editor(page, ALLOC_CONF)
            role = group.get_attribute("role")
            keys = page.eval_on_selector_all(f"{row} .mgenv-sb-key", "lines => lines.map(l => l.dataset.key)")
            kinds = {key: page.eval_on_selector(f"{row} [aria-label='{ALLOC_CONF} {key}']",
                                                "el => el.tagName === 'SELECT' ? 'select' : el.type")
                     for key in ("backend", "expandable_segments", "max_split_size_mb")}
            all_default = page.inner_text(f"{row} .mgenv-sb-joined")
            editor(page, f"{ALLOC_CONF} expandable_segments").check()
            page.wait_for_selector(f"{row}.mgenv-sb-set", timeout=30_000)  # the kernel holds it
            split = editor(page, f"{ALLOC_CONF} max_split_size_mb")
            split.fill("5")  # below the allocator's 11 MB: the kernel refuses it
            split.press("Enter")
            page.wait_for_selector(f"{row} .mgenv-sb-row-error:not([hidden])", timeout=30_000)
            refusal = page.inner_text(f"{row} .mgenv-sb-row-error")
            kept = split.input_value()
            split.fill("128")
            split.press("Enter")
            page.wait_for_selector(f"{row} .mgenv-sb-row-error[hidden]", state="attached", timeout=30_000)
            page.wait_for_function(
                """row => document.querySelector(`${row} .mgenv-sb-joined code`)?.textContent
                    === 'expandable_segments:True,max_split_size_mb:128'""", arg=row, timeout=30_000)
            status = badge(page, ALLOC_CONF).inner_text()
            run_cell(page, 0)
            page.wait_for_selector("text=kernel sees 'expandable_segments:True,max_split_size_mb:128'",
                                   timeout=30_000)
            problems: dict[str, list[str]] = {}
            for width in (280, 480):
                set_left_area_width(page, width)
                for theme in ("light", "dark"):
                    set_theme(page, dark=theme == "dark")
                    problems[f"{width}-{theme}"] = [
                        *unusable_inputs(page, row), *clipped_text(page, row),
                        *overlapping(page, f"{row} .mgenv-sb-key:not([hidden]) > :not([hidden])")]
                    page.evaluate("row => document.querySelector(row).scrollIntoView({block: 'start'})", row)
                    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
                    screenshot(page, f"sidebar-key-value-{width}-{theme}.png")  # the first keys
                    page.locator(f"{row} .mgenv-sb-joined").scroll_into_view_if_needed()
                    screenshot(page, f"sidebar-key-value-{width}-{theme}-joined.png")  # the last keys, the value
            set_theme(page, dark=False)
            page.keyboard.press("Control+s")
            saved = wait_for_saved_profile(lab.root / name)
    assert role == "group"  # the variable's name names the group of its key inputs
    assert keys[:3] == ["backend", "expandable_segments", "max_split_size_mb"]
    assert kinds == {"backend": "select", "expandable_segments": "checkbox", "max_split_size_mb": "number"}
    assert all_default == "every key at its default (the variable is left unset)"
    assert "max_split_size_mb" in refusal and kept == "5"
    assert status == "takes effect at first use"  # no torch in this kernel: its allocator reads it at first use
    assert problems == {"280-light": [], "280-dark": [], "480-light": [], "480-dark": []}
    assert saved["metadata"]["mgenv_jupyter"] == {
        "profile": {ALLOC_CONF: "expandable_segments:True,max_split_size_mb:128"}}


def test_envset_in_a_cell_shows_up_in_the_panel_at_once(shared_lab):
    with shared_lab() as lab:
        name = write_notebook(lab, "envset.ipynb", [
            "%load_ext mgenv_jupyter",
            f"import time\nt0 = time.time()\n%envset {ASYNC_LEVEL}=1\nprint('T0', repr(t0))",
        ])
        with chromium_page() as page:
            open_notebook(page, lab, name)
            open_sidebar(page)
            run_cell(page, 0)
            page.wait_for_selector(".jp-Notebook .jp-CodeCell >> nth=0 >> .jp-InputPrompt:text-matches('\\[1\\]')",
                                   timeout=30_000)
            # Stamp the moment the row changes, in the page, with the wall clock the kernel's time.time() uses.
            page.evaluate("""name => {
                const row = document.querySelector(`.mgenv-sb-row[data-name='${name}']`);
                window.__mgenvSeen = null;
                new MutationObserver((_, observer) => {
                    if (row.classList.contains('mgenv-sb-set')) {
                        window.__mgenvSeen = performance.timeOrigin + performance.now();
                        observer.disconnect();
                    }
                }).observe(row, {attributes: true, subtree: true, childList: true, characterData: true});
            }""", ASYNC_LEVEL)
            run_cell(page, 1)
            page.wait_for_function("() => window.__mgenvSeen !== null", timeout=30_000)
            seen_ms = page.evaluate("() => window.__mgenvSeen")
            page.wait_for_selector("text=/T0 \\d+\\.\\d+/", timeout=30_000)
            t0 = float(page.inner_text(".jp-OutputArea-output:has-text('T0')").split()[1])
            wait_for_value(page, ASYNC_LEVEL, "1", timeout=5_000)
            page.locator(".mgenv-sb-history > summary").click()
            history = page.inner_text(".mgenv-sb-history-list")
            screenshot(page, "sidebar-envset-latency.png")
    latency_ms = seen_ms - t0 * 1000
    print(f"%envset -> panel latency: {latency_ms:.1f} ms")
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    (ROOT / "test-artifacts" / "sidebar-envset-latency.txt").write_text(f"{latency_ms:.1f} ms\n")
    assert f"{ASYNC_LEVEL}: (unset) → 1 [magic]" in history
    assert latency_ms < 500, f"%envset took {latency_ms:.0f} ms to reach the panel"


def test_live_memory_panel_draws_the_simulated_gpu_and_stops_when_hidden(shared_lab):
    with shared_lab(env={"MGENV_SIMULATE_GPU": "a100-40gb"}) as lab:
        name = write_notebook(lab, "memory.ipynb", ["x = 1"])
        with chromium_page() as page:
            traffic = CommTraffic(page)
            open_notebook(page, lab, name)
            open_sidebar(page)
            status = ".mgenv-sb-memory .mgenv-chart-status:has-text('Simulated GPU (a100-40gb)')"
            page.wait_for_selector(status, timeout=30_000)
            rows = "() => document.querySelector('.mgenv-sb-chart').mgenvChart.store.length"
            page.wait_for_function(f"() => ({rows})() > 20", timeout=30_000)
            page.wait_for_selector(".mgenv-sb-memory canvas", timeout=10_000)
            legend = page.inner_text(".mgenv-sb-memory .mgenv-chart-legend")
            page.locator(".mgenv-sb-memory").screenshot(path=str(screenshot(page, "sidebar-memory-panel.png")))
            busy_shown = main_thread_busy(page, MEASURE_S)
            asked = traffic.mark()
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']").click()  # hide the panel
            # The kernel has stopped once it answers the panel's "memory off": what it sent before has arrived by then.
            traffic.wait_for_answer({"type": "memory", "on": False}, after=asked)
            hidden_start = page.evaluate(rows)
            busy_hidden = main_thread_busy(page, MEASURE_S)
            hidden_end = page.evaluate(rows)
    report = (f"main thread busy over {MEASURE_S:.0f} s: live panel at 10 Hz {busy_shown:.1%}, "
              f"panel hidden {busy_hidden:.1%}")
    print(report)
    (ROOT / "test-artifacts" / "sidebar-memory-main-thread.txt").write_text(report + "\n")
    assert "(simulated)" in legend and "gpu0" in legend
    assert hidden_end == hidden_start, "the kernel kept streaming to a hidden panel"


MEASURE_S = 5.0


def test_settings_set_the_memory_interval_and_how_much_history_is_shown(shared_lab):
    """The user's JupyterLab settings (Settings → Framework Env): samples every 0.5 s instead of 0.1 s, and a history
    of the latest 2 changes, with the older ones a click away."""
    with shared_lab(env={"MGENV_SIMULATE_GPU": "a100-40gb"}) as lab:
        write_user_settings(lab, "mgenv-jupyter:sidebar", {"memoryInterval": 0.5, "historyShown": 2})
        name = write_notebook(lab, "settings.ipynb", [
            f"%load_ext mgenv_jupyter\n%envset {ASYNC_LEVEL}=0\n%envset {ASYNC_LEVEL}=1\n%envset {ASYNC_LEVEL}=2"])
        with chromium_page() as page:
            open_notebook(page, lab, name)
            open_sidebar(page)
            times = "() => document.querySelector('.mgenv-sb-chart').mgenvChart.store.times"
            page.wait_for_function(f"() => ({times})().length > 8", timeout=30_000)
            stamps = page.evaluate(times)
            run_cell(page, 0)
            page.locator(".mgenv-sb-history > summary").click()
            page.wait_for_selector(".mgenv-sb-history-count:text('showing the latest 2 of 3 changes')", timeout=30_000)
            latest = page.locator(".mgenv-sb-history-item").count()
            page.get_by_role("button", name="Show older changes").click()
            page.wait_for_function("() => document.querySelectorAll('.mgenv-sb-history-item').length === 3",
                                   timeout=10_000)
            older_hidden = page.locator(".mgenv-sb-history-older").is_hidden()
            screenshot(page, "sidebar-settings.png")
    steps = sorted(b - a for a, b in zip(stamps, stamps[1:], strict=False))
    assert 0.4 < steps[len(steps) // 2] < 0.6, steps  # the median step: the kernel samples every 0.5 s
    assert latest == 2
    assert older_hidden  # nothing older than the first change


def test_restart_and_apply_brings_the_profile_into_a_fresh_kernel(shared_lab):
    with shared_lab() as lab:
        name = write_notebook(lab, "restart.ipynb", [
            "marker = 'old kernel'",
            f"import os\nprint('fresh:', 'marker' not in globals(), '|', os.environ.get('{THRESHOLD}'))",
        ])
        with chromium_page() as page:
            open_notebook(page, lab, name)
            run_cell(page, 0)
            open_sidebar(page)
            set_size(page, THRESHOLD, "3", "GiB")
            page.wait_for_selector(f".mgenv-sb-profile :text('{THRESHOLD}=3 GiB')", timeout=30_000)
            page.locator(".mgenv-sb-history > summary").click()
            clicked = restart_and_apply(page)
            # Only the new kernel's history has the profile's entry: the panel applied it as the kernel came back.
            page.wait_for_selector(".mgenv-sb-history-list :text('[profile]')", timeout=60_000)
            history = page.inner_text(".mgenv-sb-history-list")
            asked = page.locator(PROFILE_QUESTION).count()
            run_cell(page, 1)
            page.wait_for_selector("text=/fresh: True/", timeout=60_000)
            output = page.inner_text(".jp-OutputArea-output:has-text('fresh:')")
            screenshot(page, "sidebar-restart-and-apply.png")
    assert output.strip() == "fresh: True | 3221225472"
    # The kernel already holds the profile's value: no count, only a fresh process.
    assert clicked == "Restart and apply"
    assert f"{THRESHOLD}: (unset) → 3 GiB [profile]" in history  # applied by the panel, in the new kernel (a size
    # in the one notation: the kernel holds 3221225472, as the cell printed)
    assert asked == 0  # the user's own setting: approved when they made it


STRATEGY = "FLAGS_allocator_strategy"
POOL = ("FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb", "FLAGS_reallocate_gpu_memory_in_mb")
# How many of the rows named are greyed.
GREYED = """names => names.filter(name =>
    document.querySelector(`.mgenv-sb-row[data-name='${name}']`).classList.contains('mgenv-sb-inapplicable')).length"""


def test_paddle_pool_sizes_grey_out_with_the_reason_when_the_strategy_does_not_use_them(shared_lab):
    """The kernel decides what applies: naive_best_fit chosen in the panel un-greys Paddle's pool sizes; a %envset of
    another strategy in a cell greys them again, each with the reason beside it, and they stay editable."""
    with shared_lab() as lab:
        name = write_notebook(lab, "strategy.ipynb", [f"%load_ext mgenv_jupyter\n%envset {STRATEGY}=auto_growth"])
        with chromium_page(height=2000) as page:  # tall enough for every Paddle row in one picture
            open_notebook(page, lab, name)
            open_sidebar(page)
            page.get_by_label("Search variables").fill("FLAGS_")
            editor(page, STRATEGY).select_option("naive_best_fit")
            page.wait_for_function(f"names => ({GREYED})(names) === 0", arg=list(POOL), timeout=30_000)
            run_cell(page, 0)
            page.wait_for_function(f"names => ({GREYED})(names) === names.length", arg=list(POOL), timeout=30_000)
            reasons = {pool: page.inner_text(f".mgenv-sb-row[data-name='{pool}'] .mgenv-sb-applies") for pool in POOL}
            enabled = [editor(page, pool).is_enabled() for pool in POOL]
            kinds = page.eval_on_selector_all(".mgenv-sb-row:not([hidden]) [data-editor]",
                                              "nodes => [...new Set(nodes.map(n => n.dataset.editor))].sort()")
            page.locator(".mgenv-sb .jp-AccordionPanel-title:has-text('Live GPU memory')").click()  # fold the chart
            widen_sidebar(page, 620)
            screenshot(page, "sidebar-paddle-pool-greyed.png")
    for pool, reason in reasons.items():
        assert "naive_best_fit" in reason and "auto_growth" in reason, (pool, reason)
    assert all(enabled)
    assert kinds == ["choice", "fraction", "number", "size", "switch"]


PADDLE_FLAG = "FLAGS_initial_cpu_memory_in_mb"


def _paddle_kernel_missing() -> str | None:
    python = venv("paddle") / "bin" / "python"
    if not python.exists():
        return f"{python} is missing (./dev setup makes it)"
    done = subprocess.run([str(python), "-c", "import ipykernel"], capture_output=True)
    if done.returncode:
        return ".venvs/paddle has no ipykernel, so it cannot run a notebook kernel (add ipykernel to its venv in ./dev)"
    return None


@pytest.mark.setup_venvs
def test_paddle_kernel_badges_and_restart_and_apply(shared_lab):
    missing = _paddle_kernel_missing()
    if missing:
        if os.environ.get("MGENV_REQUIRE_FRAMEWORKS"):
            pytest.fail(missing)
        pytest.skip(missing)
    with shared_lab() as lab:
        add_kernel_spec(lab, "mgenv-paddle", {
            "argv": [str(venv("paddle") / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Paddle (mgenv)", "language": "python"})
        name = write_notebook(lab, "paddle.ipynb", [
            "import paddle",
            f"import os\nos.environ['{PADDLE_FLAG}'] = '100'  # too late: paddle read it at import",
            f"import paddle\nprint('paddle sees', paddle.get_flags(['{PADDLE_FLAG}'])['{PADDLE_FLAG}'])",
        ], kernelspec={"name": "mgenv-paddle", "display_name": "Paddle (mgenv)", "language": "python"})
        with chromium_page() as page:
            open_notebook(page, lab, name)
            open_sidebar(page)
            run_cell(page, 0)
            page.wait_for_function(  # imported: the value it read is the one in effect
                f"() => document.querySelector(\".mgenv-sb-row[data-name='{PADDLE_FLAG}'] .mgenv-sb-badge\")"
                ".textContent === 'effective'", timeout=120_000)
            run_cell(page, 1)
            page.wait_for_function(
                f"() => document.querySelector(\".mgenv-sb-row[data-name='{PADDLE_FLAG}'] .mgenv-sb-badge\")"
                ".textContent === 'already read, restart needed'", timeout=30_000)
            page.get_by_label("Search variables").fill(PADDLE_FLAG)
            screenshot(page, "sidebar-paddle-already-read.png")
            set_size(page, PADDLE_FLAG, "200", "MiB")  # the way out: set it in the panel, which keeps it in the profile
            page.wait_for_selector(f".mgenv-sb-profile :text('{PADDLE_FLAG}=200')", timeout=30_000)
            page.locator(".mgenv-sb-history > summary").click()
            clicked = restart_and_apply(page)
            page.wait_for_selector(".mgenv-sb-history-list :text('[profile]')", timeout=120_000)
            asked = page.locator(PROFILE_QUESTION).count()
            run_cell(page, 2)
            page.wait_for_selector("text=/paddle sees \\d+/", timeout=120_000)
            seen = page.inner_text(".jp-OutputArea-output:has-text('paddle sees')")
            screenshot(page, "sidebar-paddle-restart-and-apply.png")
    assert seen.strip() == "paddle sees 200"
    assert clicked == "Restart and apply (1)"  # paddle read the old value at import: only a restart applies it
    assert asked == 0


def test_built_extension_is_what_jupyterlab_loads():
    """The venv's JupyterLab lists the prebuilt extension as enabled (./dev setup links the build there)."""
    jupyter = Path(os.sys.executable).with_name("jupyter")
    listed = subprocess.run([str(jupyter), "labextension", "list"], capture_output=True, text=True, timeout=120)
    lines = [line for line in (listed.stdout + listed.stderr).splitlines() if "mgenv-jupyter" in line]
    assert lines and "enabled" in lines[0] and "OK" in lines[0], listed.stdout + listed.stderr


def test_kernel_without_the_package_says_how_to_install_it(shared_lab):
    """A kernel from an environment without mgenv_jupyter: the panel says so, and how to install it there."""
    hide = ("import sys\n"  # as if the package were not installed in the kernel's environment
            "class Hide:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.partition('.')[0] == 'mgenv_jupyter':\n"
            "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
            "sys.meta_path.insert(0, Hide())\n"
            "from ipykernel import kernelapp\n"
            "kernelapp.launch_new_instance()\n")
    with shared_lab() as lab:
        add_kernel_spec(lab, "no-mgenv", {
            "argv": [os.sys.executable, "-c", hide, "-f", "{connection_file}"],
            "display_name": "Python without mgenv", "language": "python"})
        name = write_notebook(lab, "other-env.ipynb", ["print('hello')"],
                              kernelspec={"name": "no-mgenv", "display_name": "Python without mgenv",
                                          "language": "python"})
        with chromium_page() as page:
            open_notebook(page, lab, name)
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']").click()
            page.wait_for_selector(".mgenv-sb-config[data-connection='not-installed']", timeout=60_000)
            notice = page.inner_text(".mgenv-sb-notice")
            screenshot(page, "sidebar-not-installed.png")
    assert "mgenv_jupyter is not installed in this kernel’s environment" in notice
    assert "%pip install mgenv_jupyter" in notice


def test_panel_follows_the_active_notebook_and_closed_ones(shared_lab):
    with shared_lab() as lab:
        first = write_notebook(lab, "first.ipynb", [f"import os\nprint('first sees', os.environ.get('{ASYNC_LEVEL}'))"])
        second = write_notebook(lab, "second.ipynb", ["x = 2"])
        with chromium_page() as page:
            open_notebook(page, lab, first)
            open_sidebar(page)
            page.wait_for_selector(".mgenv-sb-status:text('first.ipynb')", timeout=30_000)
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title^='File Browser']").click()
            page.locator(f".jp-DirListing-item[title^='Name: {second}']").dblclick()
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab[title='Framework Env']").click()
            page.wait_for_selector(".mgenv-sb-status:text('second.ipynb')", timeout=60_000)
            page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)
            editor(page, ASYNC_LEVEL).select_option("0")  # an enum: a select
            page.wait_for_selector(f".mgenv-sb-profile :text('{ASYNC_LEVEL}=0')", timeout=30_000)
            screenshot(page, "sidebar-follows-second-notebook.png")
            page.locator(".jp-NotebookPanel:visible .jp-InputPrompt").first.click()  # focus the notebook, then save
            page.keyboard.press("Control+s")
            wait_for_saved_profile(lab.root / second)
            page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabCloseIcon").click()
            # Back on the first notebook: its own kernel, which never had the second one's setting, and no profile.
            page.wait_for_selector(".mgenv-sb-status:text('first.ipynb')", timeout=30_000)
            page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)
            value = editor(page, ASYNC_LEVEL).input_value()
            profile = page.inner_text(".mgenv-sb-profile")
            run_cell(page, 0)
            page.wait_for_selector("text=first sees None", timeout=30_000)
            screenshot(page, "sidebar-follows-back-to-first.png")
    assert value == ""
    assert ASYNC_LEVEL not in profile
    saved = json.loads((lab.root / second).read_text())
    assert saved["metadata"]["mgenv_jupyter"] == {"profile": {ASYNC_LEVEL: "0"}}


def test_sidebar_in_notebook_7(shared_lab):
    """Notebook 7 (when installed beside JupyterLab) shows the same panel: View → Left Sidebar → Show Framework Env."""
    pytest.importorskip("notebook", minversion="7", reason="Notebook 7 is not installed in this environment")
    with shared_lab(app="notebook") as lab:
        name = write_notebook(lab, "nb7.ipynb", [f"import os\nprint('kernel sees', os.environ.get('{THRESHOLD}'))"])
        with chromium_page() as page:
            page.goto(lab.page_url(f"notebooks/{name}"))
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            page.click("li.lm-MenuBar-item:has-text('View')")
            page.locator(".lm-Menu-itemLabel:text-is('Framework Env')").click()  # View › Framework Env
            page.wait_for_selector(".mgenv-sb-config[data-connection='ready'] .mgenv-sb-row", timeout=60_000)
            set_size(page, THRESHOLD, "1", "GiB")
            page.wait_for_selector(f".mgenv-sb-profile :text('{THRESHOLD}=1 GiB')", timeout=30_000)
            run_cell(page, 0)
            page.wait_for_selector("text=kernel sees 1073741824", timeout=30_000)
            screenshot(page, "sidebar-notebook7.png")
