"""demo.ipynb executed top to bottom in a real Jupyter kernel (nbclient), as a user would run it."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


def cell_html(cell) -> str:
    return "\n".join(output.data.get("text/html", "") for output in cell.get("outputs", [])
                     if output.output_type in ("execute_result", "display_data"))


def cell_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
        elif output.output_type == "error":
            parts.append(f"Traceback {output.ename}: {output.evalue}")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict[str, str]:
    nb = nbformat.read(ROOT / "demo.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(FACTS_CELL))
    workdir = tmp_path_factory.mktemp("demo")
    NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}).execute()
    texts = {cell.source: cell_text(cell) for cell in nb.cells if cell.cell_type == "code"}
    texts.update({f"html:{cell.source}": cell_html(cell) for cell in nb.cells if cell.cell_type == "code"})
    return texts


# Appended after the demo's last cell: what the tests check about tables, as JSON. pandas lays a table's text out by
# what it takes the terminal to be, which differs between environments (columns cut to "...", rows elided).
FACTS_CELL = """import json as _json
_cells = chart.per_cell()
_diff = get_ipython().run_line_magic("envdiff", "--all")
_diff_html = get_ipython().run_line_magic("envdiff", "")._repr_html_()
print("FACTS", _json.dumps({
    "simulated_deltas": [float(d) for d in _cells.loc[_cells["device"].str.contains("simulated"), "delta"].dropna()],
    "threshold_by_widget": "MEGENGINE_DTR_EVICTION_THRESHOLD" in _diff_html.replace("<wbr>", "")
                           and "widget" in _diff_html,
    "exported": _diff["exported"].to_dict(),
    "diff_default": list(get_ipython().run_line_magic("envdiff", "").index),
    "export": get_ipython().run_line_magic("envexport", ""),
    "export_all": get_ipython().run_line_magic("envexport", "--all"),
}))"""


def facts(executed: dict[str, str]) -> dict:
    text = output_of(executed, "import json as _json")
    return json.loads(text.split("FACTS", 1)[1])


def output_of(executed: dict[str, str], start: str) -> str:
    matches = [text for source, text in executed.items() if source.startswith(start)]
    assert matches, f"no cell starts with {start!r}"
    return matches[0]


def test_no_unexpected_errors(executed):
    nb = nbformat.read(ROOT / "demo.ipynb", as_version=4)
    allowed = {c.source for c in nb.cells if "raises-exception" in c.metadata.get("tags", [])}
    for source, text in executed.items():
        if source not in allowed and not source.startswith("html:"):
            assert "UsageError" not in text and "Traceback" not in text, f"{source!r} failed:\n{text}"


def test_sizes_are_normalised_and_pending_import(executed):
    text = output_of(executed, "%envset MEGENGINE_DTR_EVICTION_THRESHOLD=5GB")
    assert "5368709120" in text and "takes effect at import" in text and "'gpu0'" in text


def test_bad_input_is_explained(executed):
    text = output_of(executed, "%envset FLAGS_allocator_strategy=fastest")
    assert "UsageError" in text and "fastest" in text and "naive_best_fit" in text
    assert "did you mean MGE_DEFAULT_DEVICE" in output_of(executed, "%envset MGE_DEFALT_DEVICE")


def test_traps_are_told(executed):
    assert "does NOT turn this off" in output_of(executed, "%envset MGB_CUDA_RESERVE_MEMORY=0")
    assert "no longer read" in output_of(executed, "%envset MEGENGINE_ENABLE_SWAP")


def test_the_demo_shows_the_already_read_warning_as_the_users_own_with_its_way_out(executed):
    """Issue 29: the demo described the warning but never showed it. A framework (a labelled stand-in where the kernel
    has none) reads TF_CPP_MIN_LOG_LEVEL at import; the %envset after it warns, at the user's line."""
    text = output_of(executed, "%envset TF_CPP_MIN_LOG_LEVEL=2")
    assert "AlreadyReadWarning — cell [" in text and "], line 1: %envset TF_CPP_MIN_LOG_LEVEL=2\n" in text
    assert "tensorflow already read TF_CPP_MIN_LOG_LEVEL" in text
    assert "mgenv_jupyter/" not in text and "_session.py" not in text
    assert "'Restart and apply'" in text and "`%envset TF_CPP_MIN_LOG_LEVEL=2` before tensorflow is imported" in text
    assert "already read, restart needed" in text


def test_the_chinese_listing_is_chinese_throughout(executed):
    """Issue 29, point 10: shown while the session speaks Chinese, headers, "not set" and the row count included."""
    shown = output_of(executed, "html:%envlang zh\nthreads")
    assert ">取值</th>" in shown and ">说明</th>" in shown and "行" in shown
    assert ">value</th>" not in shown and ">description</th>" not in shown


def test_listing_diff_export_load_and_npu(executed):
    assert "FLAGS_allocator_strategy" in output_of(executed, "%envlist paddle")
    assert "MEGENGINE_DTR_EVICTION_THRESHOLD" in output_of(executed, "%envdiff")
    assert "export MGE_DEFAULT_DEVICE=gpu0" in output_of(executed, "%envexport --format shell")
    assert "MXNET_ENGINE_TYPE" in output_of(executed, "import pathlib")
    assert "'precision_mode': 'allow_mix_precision'" in output_of(executed, "%envset precision_mode")


def test_export_carries_the_session_changes_not_the_kernels_own_start_up_variables(executed):
    """ipykernel sets MPLBACKEND (and more) in the kernel after it starts: sent to a batch job, it breaks matplotlib
    there. The default export carries what the notebook changed; --all the wider view; %envdiff tells them apart."""
    found = facts(executed)
    assert "MPLBACKEND" in found["exported"] and found["exported"]["MPLBACKEND"] == "only with --all"
    assert found["exported"]["MEGENGINE_DTR_EVICTION_THRESHOLD"] == "yes"
    assert any(line.startswith("MEGENGINE_DTR_EVICTION_THRESHOLD=") for line in found["export"].splitlines())
    assert "MPLBACKEND" not in found["export"]
    assert "MPLBACKEND=" in found["export_all"] and "MEGENGINE_DTR_EVICTION_THRESHOLD=" in found["export_all"]
    assert set(found["export"].splitlines()) <= set(found["export_all"].splitlines())
    # %envdiff lists the same: the demo's own changes by default, ipykernel's CLICOLOR, MPLBACKEND... only with --all.
    assert "MEGENGINE_DTR_EVICTION_THRESHOLD" in found["diff_default"]
    assert not {"MPLBACKEND", "CLICOLOR", "GIT_PAGER"} & set(found["diff_default"]), found["diff_default"]
    assert set(found["diff_default"]) == {name for name, how in found["exported"].items() if how == "yes"}


def test_widget_section_applies_through_the_session(executed):
    assert facts(executed)["threshold_by_widget"]  # %envdiff lists the threshold, set by the widget


def test_memory_chart_section_shows_memory_moving_on_a_simulated_gpu(executed):
    # The chart's output: the live widget, and as its text the static view a saved notebook shows.
    chart_cell = output_of(executed, "import os\n\nfrom mgenv_jupyter.memory import gpu_total_bytes")
    assert "Memory of this kernel" in chart_cell
    assert "gpu0 (simulated) process" in output_of(executed, "chart.history.tail()")  # no GPU here: simulated
    # The training steps' cell: the simulated GPU's memory grew while it ran.
    assert max(facts(executed)["simulated_deltas"]) > 0, facts(executed)


def test_after_an_out_of_memory_error_the_memory_comes_back_and_the_holders_are_named(executed):
    assert "Traceback MemoryError: stand-in" in output_of(executed, "import weakref\n\nimport numpy as np")
    freed = output_of(executed, "print('the failed call still holds its array:'")
    assert "the failed call still holds its array: True" in freed and "gave back" in freed, freed
    assert "Your variables were not touched" in freed
    holders = output_of(executed, "print('after %memfree it is gone:'")
    assert "after %memfree it is gone: True" in holders, holders
    assert "weights  64 MiB  numpy.ndarray  [host 64 MiB]" in holders, holders


def test_the_largest_fit_example_finds_the_largest_allocation_under_the_simulated_card(executed):
    """Issue 37: the demo's largest-fit cell on the simulated 1 GiB card (mirror-1gb) answers with a value, in at
    most ⌈log2(1001 + 1)⌉ = 10 probes, whose peak is within the card's total less 10%."""
    text = output_of(executed, "fit = mgenv_jupyter.last_sweep()")
    assert "largest that fits: {'FIT_MB': '" in text and "probes" in text
    probes = int(text.rsplit("in", 1)[1].split()[0])
    value = int(text.split("{'FIT_MB': '")[1].split("'")[0])
    assert 1 <= probes <= 10 and 100 <= value < 0.9 * 1024
