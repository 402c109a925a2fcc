"""The Framework Env panel shows the kernel's last cluster.verify() result node by node (issue 13), in real JupyterLab
and Chromium with a real kernel.

This tier's kernel has no Ray, so no real verify() runs here: a cell builds the result from data (cluster.verify's
own Seen and ClusterReport, as verify() makes them from the workers' answers) and records it through
cluster.last_verify.remember, the function verify() itself calls with its report. From there everything is real: the
kernel's comm sends it as a "verify" notice, a panel opened afterwards gets it after its hello, a panel already open
gets the next one at once, and the panel's "Verify nodes" button sends its JSON request to this Ray-less kernel, which
refuses it saying why. tests/ray_cluster checks that a real verify() on a real cluster makes the same notice.

Checked: per node its name, state and counts, the session's value beside the workers', a secret and a value shaped
like a credential only as "the same"/"another value" (neither the value nor a mask anywhere in the panel), when each
variable arrived, the note that workers are new processes; at 280 and 480 px, light and dark, nothing covered or cut
off without a tooltip and nothing sticking out of the panel. Screenshots: test-artifacts/sidebar-verify-*.png.
"""

from __future__ import annotations

from layout_checks import clipped_text, set_theme, sticking_out, unusable_inputs

from lab_server import (
    chromium_page,
    open_notebook,
    open_sidebar,
    run_cell,
    screenshot,
    set_left_area_width,
    write_notebook,
)

TOKEN = "sk-proj-abcdefghijklmnopqrstuvwx"  # shaped like a credential, under a name that does not say so
RECORD = f"""\
from mgenv_jupyter.catalog._secrets import MASK
from mgenv_jupyter.cluster._last_verify import remember
from mgenv_jupyter.cluster._verify import AFTER_START, AT_START, MISSING, ClusterReport, Seen

DTR, FLAG, KEY = "MEGENGINE_DTR_EVICTION_THRESHOLD", "FLAGS_fraction_of_gpu_memory_to_use", "WANDB_API_KEY"
remember(ClusterReport([], [
    Seen("node_a", DTR, "5368709120", "5368709120", True, AT_START), Seen("node_a", FLAG, "0.5", "0.5", True, AT_START),
    Seen("node_a", KEY, MASK, MASK, True, AT_START),
    Seen("node_b", DTR, "5368709120", "5", False, AFTER_START, ("megengine",)),
    Seen("node_b", FLAG, "0.5", None, False, MISSING), Seen("node_b", KEY, MASK, MASK, False, AT_START),
    Seen("node_b", "MGENV_NOTE", "{TOKEN}", "{TOKEN}", True, AT_START),
    Seen("node_b", "MGENV_LONG_PATH", "/opt/" + "x" * 150, "/opt/" + "x" * 150, True, AT_START)],
    {{"node_c": "ActorDiedError: The actor died unexpectedly before finishing this task."}}))
print("recorded")
"""
AGAIN = """\
remember(ClusterReport([], [Seen(node, DTR, "5368709120", "5368709120", True, AT_START)
                            for node in ("node_a", "node_b")]))
print("recorded again")
"""
BLOCK = ".mgenv-sb-verify"
NODE = BLOCK + " .mgenv-sb-verify-node[data-node='{}']"


def lines(page, node: str, name: str) -> list[str]:
    return page.locator(f"{NODE.format(node)} [data-name='{name}'] .mgenv-sb-verify-line").all_inner_texts()


def layout_problems(page) -> list[str]:
    page.locator(BLOCK).scroll_into_view_if_needed()
    return (unusable_inputs(page, BLOCK) + clipped_text(page, BLOCK) + sticking_out(page, f"{BLOCK} *", BLOCK)
            + sticking_out(page, BLOCK, ".mgenv-sb-config"))


def test_the_panel_shows_the_last_verify_result_per_node(shared_lab):
    with shared_lab() as lab:
        name = write_notebook(lab, "verify.ipynb", [
            "%load_ext mgenv_jupyter\n%envset MEGENGINE_DTR_EVICTION_THRESHOLD=5GB", RECORD, AGAIN])
        problems: dict[str, list[str]] = {}
        # Tall enough for the whole block in the variables section at 280 px, so its screenshot shows all of it.
        with chromium_page(width=1400, height=3000) as page:
            open_notebook(page, lab, name)
            run_cell(page, 0)
            run_cell(page, 1)
            page.wait_for_selector(".jp-Cell:nth-child(2) .jp-OutputArea-output:has-text('recorded')",
                                   timeout=60_000)
            open_sidebar(page)  # opened after verify() ran: the result comes with its first sync
            page.wait_for_selector(f"{BLOCK}:not([hidden]) .mgenv-sb-verify-node", timeout=30_000)
            summary = page.inner_text(f"{BLOCK} .mgenv-sb-verify-summary")
            note = page.inner_text(f"{BLOCK} .mgenv-sb-verify-note")
            heads = {node: page.inner_text(f"{NODE.format(node)} .mgenv-sb-verify-node-head")
                     for node in ("node_a", "node_b", "node_c")}
            lost = page.inner_text(f"{NODE.format('node_c')} .mgenv-sb-verify-reason")
            a_dtr, b_dtr = lines(page, "node_a", "MEGENGINE_DTR_EVICTION_THRESHOLD"), lines(
                page, "node_b", "MEGENGINE_DTR_EVICTION_THRESHOLD")
            b_flag = lines(page, "node_b", "FLAGS_fraction_of_gpu_memory_to_use")
            a_key, b_key = lines(page, "node_a", "WANDB_API_KEY"), lines(page, "node_b", "WANDB_API_KEY")
            b_note = lines(page, "node_b", "MGENV_NOTE")
            long_title = page.get_attribute(f"{NODE.format('node_b')} [data-name='MGENV_LONG_PATH'] "
                                            ".mgenv-sb-verify-value >> nth=0", "title")
            panel_text = page.inner_text(".mgenv-sb")

            for width in (280, 480):
                set_left_area_width(page, width)
                for theme in ("light", "dark"):
                    set_theme(page, dark=theme == "dark")
                    problems[f"{width}-{theme}"] = layout_problems(page)
                    page.locator(BLOCK).screenshot(
                        path=str(screenshot(page, f"sidebar-verify-{width}-{theme}.png")))
            set_theme(page, dark=False)

            # "Verify nodes" in this Ray-less kernel: a JSON request the kernel refuses, saying why.
            page.locator(f"{BLOCK} .mgenv-sb-verify-run").click()
            page.wait_for_selector(f"{BLOCK} .mgenv-sb-verify-outcome[data-state='error']", timeout=60_000)
            refusal = page.inner_text(f"{BLOCK} .mgenv-sb-verify-outcome")
            problems["refusal-480-light"] = layout_problems(page)
            page.locator(BLOCK).screenshot(path=str(screenshot(page, "sidebar-verify-refused-480-light.png")))

            run_cell(page, 2)  # a new result while the panel is open: it replaces the old one at once
            page.wait_for_function(
                "sel => document.querySelectorAll(sel).length === 2", arg=f"{BLOCK} .mgenv-sb-verify-node",
                timeout=60_000)
            summary_again = page.inner_text(f"{BLOCK} .mgenv-sb-verify-summary")

    assert summary == "3 nodes: 1 ok, 1 mismatch, 1 lost", summary
    assert note.startswith("Ray workers are new processes") and "import-time variables" in note
    assert heads["node_a"].split() == ["node_a", "ok", "3", "ok", "·", "0", "mismatch", "·", "0", "missing"], heads
    assert heads["node_b"].split()[:2] == ["node_b", "mismatch"] and "2 ok · 2 mismatch · 1 missing" in heads["node_b"]
    assert heads["node_c"].split() == ["node_c", "lost"] and lost.startswith("no answer: ActorDiedError"), lost
    assert a_dtr == ["session: 5368709120", "workers: 5368709120", "there at worker start: imports there read it"]
    assert b_dtr == ["session: 5368709120", "workers: 5",
                     "arrived after worker start: a framework imported before did not read it",
                     "already imported there: megengine"], b_dtr
    assert b_flag == ["session: 0.5", "workers: (unset)", "missing in this node’s workers"], b_flag
    assert a_key[0] == "secret: the workers hold the session’s value" and \
        b_key[0] == "secret: the workers hold another value", (a_key, b_key)
    assert b_note[0] == "secret: the workers hold the session’s value", b_note  # judged a secret by its value
    assert TOKEN not in panel_text and "********" not in panel_text
    assert long_title == "/opt/" + "x" * 150  # shown cut, whole in its tooltip
    assert refusal.startswith("Error: Ray is not initialised in this kernel"), refusal
    assert summary_again == "2 nodes: 2 ok, 0 mismatch, 0 lost", summary_again
    assert problems == {key: [] for key in problems}, problems
