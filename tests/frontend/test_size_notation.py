"""One notation of sizes (issue 29, point 8): the DTR widget's unit list, the text under it, the sidebar's units, the
error a bad size gets, the chart's and the kernel's formatting all write binary units (KiB, MiB, GiB, TiB), from one
table (catalog/_values.py SIZE_UNITS, generated into schema.ts); and a size typed as the messages suggest ("512 MiB",
the frameworks' own "5GB") is accepted, 1024-based. It used to be "GB" in the dropdown, "2 GiB" under it, and "units
B, KB, MB, GB, TB; 1024-based" in the error."""

from __future__ import annotations

import re

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._values import SIZE_UNITS, GiB, MiB, Size, format_size
from mgenv_jupyter.comms._typescript_schema import typescript
from mgenv_jupyter.presentation._editor import editor_spec

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"
BINARY = [name for name, _ in SIZE_UNITS]
# A unit written after a number in a message ("512 MiB", "5GB", "1.5 gb").
UNIT_IN_TEXT = re.compile(r"\d\s?([KMGT]i?B)\b")


def test_the_widget_the_text_under_it_and_the_sidebar_write_units_alike(ip, closing):
    from mgenv_jupyter import DTRWidget

    widget = DTRWidget(gpu_total_bytes=16 * GiB)
    closing(widget)
    editor = widget.threshold_row.editor
    editor.number.value, editor.unit.value = 2, "GiB"
    assert list(editor.unit.options) == BINARY  # "GB" before
    assert "2 GiB" in widget.share.value and "16 GiB" in widget.share.value
    sidebar_units = [name for name, _ in editor_spec(catalog().get(THRESHOLD)).units]
    assert sidebar_units == BINARY
    assert "export const SIZE_UNITS" in typescript() and "['GiB', 1073741824]" in typescript()


def test_a_refused_size_says_what_is_allowed_in_the_same_notation_and_means_it(ip):
    with pytest.raises(UsageError) as refused:
        ip.run_line_magic("envset", f"{THRESHOLD}=lots")
    message = str(refused.value)
    assert "512 MiB" in message and "5 GiB" in message and "1024-based" in message
    # Every size it offers as an example is one a user can type.
    for example in re.findall(r"\d+(?:\.\d+)? ?[KMGT]i?B", message):
        assert Size().parse(example).value > 0, example


@pytest.mark.parametrize(("typed", "nbytes"), [
    ("512 MiB", 512 * MiB), ("512MiB", 512 * MiB), ("512MB", 512 * MiB), ("5GB", 5 * GiB), ("5 GiB", 5 * GiB),
    ("5G", 5 * GiB), ("1.5 gb", 3 * GiB // 2), ("1048576", 1048576),
])
def test_sizes_typed_as_the_tooltip_suggests_are_read_1024_based(ip, typed, nbytes):
    report = ip.run_line_magic("envset", f"{THRESHOLD}='{typed}'")
    assert report[THRESHOLD].new == str(nbytes)
    note = " ".join(map(str, report[THRESHOLD].notes))
    assert set(UNIT_IN_TEXT.findall(note.replace(typed, ""))) <= set(BINARY)  # the note answers in binary units


def test_the_kernels_labels_and_the_charts_come_from_one_table():
    assert [format_size(n) for n in (1536, 3 * MiB, 5 * GiB, 3361447936)] == ["1.5 KiB", "3 MiB", "5 GiB", "3.13 GiB"]
    from pathlib import Path

    chart = (Path(__file__).resolve().parents[2] / "labextension" / "src" / "chart" / "format.ts").read_text()
    assert "SIZE_UNITS" in chart and "SIZE_DECIMALS" in chart and "'GiB'" not in chart  # no second table


# ---- a size setting's value and default, wherever one is shown (issue 29, point 8, what the first pass left) --------

MINIMUM = "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"  # MegEngine's default: 1048576 bytes
POOL = "FLAGS_initial_gpu_memory_in_mb"  # a count of MiB


def test_envset_and_envget_say_a_size_as_5_gib_with_the_plain_number_beside_it(ip):
    """%envset's line said MEGENGINE_DTR_EVICTION_THRESHOLD='5368709120' (with '(5 GiB)' only in its note), %envget's
    'default: 1048576' and the status 'uses its default, 1048576'."""
    report = ip.run_line_magic("envset", f"{THRESHOLD}=5368709120 {POOL}=2048")
    assert report.lines()[0].startswith(f"{THRESHOLD}=5 GiB (5368709120): ")
    assert report.lines()[1].startswith(f"{POOL}=2 GiB (2048): ")  # 2048 MiB, the count Paddle reads
    shown = report._repr_html_()
    assert "<code title='5368709120'>5 GiB</code>" in shown and "<code title='2048'>2 GiB</code>" in shown
    unset = ip.run_line_magic("envget", MINIMUM)
    first, _, default, *_ = unset.lines()
    assert first.endswith("megengine uses its default, 1 MiB") and default.startswith("  default: 1 MiB; ")
    assert "1 MiB" in unset._repr_html_() and "1048576" not in first + default
    held = ip.run_line_magic("envget", THRESHOLD)
    assert held.lines()[0].startswith(f"{THRESHOLD}=5 GiB (5368709120): ")
    assert "<span title='5368709120'>5 GiB</span>" in held._repr_html_()


def test_a_value_set_outside_in_the_frameworks_own_spelling_is_shown_as_it_is(ip, monkeypatch):
    """MegEngine reads "5GB" in its environment as 5 bytes: it is never shown as 5 GiB."""
    monkeypatch.setenv(THRESHOLD, "5GB")
    view = ip.run_line_magic("envget", THRESHOLD)
    assert view.lines()[0].startswith(f"{THRESHOLD}='5GB': ") and view.shown_value is None


def test_the_widgets_default_line_status_and_editor_say_sizes_alike(ip, closing):
    from mgenv_jupyter import DTRWidget

    widget = DTRWidget(gpu_total_bytes=16 * GiB)
    closing(widget)
    row = widget.rows[MINIMUM]
    assert "default: <code title='1048576'>1 MiB</code>" in row.details.value
    assert row.badge.tooltip.endswith("uses its default, 1 MiB")
    assert (row.editor.number.value, row.editor.unit.value) == (1.0, "MiB")  # the default, as the sidebar shows it
    ip.run_cell(f"%envset {THRESHOLD}=1536MB")
    threshold = widget.rows[THRESHOLD]
    assert (threshold.editor.number.value, threshold.editor.unit.value) == (1536.0, "MiB")
    assert "now: <code title='1610612736'>1536 MiB</code>" in threshold.details.value


def test_the_sidebar_gets_each_size_split_by_the_kernel(fresh_session):
    """The sidebar shows what the kernel sent: the value's number and unit (VariableInfo.size), the default's
    (EntryInfo.default_size), a reviewed profile's (ProfileItemInfo.size); it no longer splits a size itself."""
    from mgenv_jupyter.comms._requests import RequestHandler

    fresh_session.set({THRESHOLD: "5GB", POOL: "1536"})
    handler = RequestHandler(fresh_session)
    catalog_reply, state = handler.handle({"v": 1, "id": "h", "type": "hello", "language": "en"})
    entries = {entry["name"]: entry for entry in catalog_reply["entries"]}
    assert entries[MINIMUM]["default"] == "1048576" and entries[MINIMUM]["default_size"] == {"number": "1",
                                                                                              "unit": "MiB"}
    assert entries["MGE_DEFAULT_DEVICE"]["default_size"] is None
    variables = state["variables"]
    assert variables[THRESHOLD]["value"] == "5368709120"  # what the environment holds, as before
    assert variables[THRESHOLD]["size"] == {"number": "5", "unit": "GiB"}
    assert variables[POOL]["size"] == {"number": "1536", "unit": "MiB"}  # 1.5 GiB: the largest unit dividing it
    assert variables[MINIMUM]["size"] is None and variables[MINIMUM]["message"].endswith("its default, 1 MiB")
    result, *_ = handler.handle({"v": 1, "id": "s", "type": "set", "assignments": {THRESHOLD: "3GB"},
                                 "source": "sidebar"})
    [change] = result["changes"]  # the history's words: the values as a user reads them, beside what is stored
    assert (change["old"], change["new"], change["shown_old"], change["shown_new"]) == (
        "5368709120", "3221225472", "5 GiB", "3 GiB")
    fresh_session.set({THRESHOLD: "5GB"})
    [review] = handler.handle({"v": 1, "id": "p", "type": "profile", "profile": {THRESHOLD: "3221225472"},
                               "approve": False, "apply": False})
    [item] = review["items"]
    assert (item["value"], item["size"], item["current_size"]) == (
        "3221225472", {"number": "3", "unit": "GiB"}, {"number": "5", "unit": "GiB"})


def test_tables_show_sizes_in_the_notation_and_the_frame_keeps_what_the_framework_reads(ip):
    ip.run_line_magic("envset", f"{THRESHOLD}=5GB {POOL}=2048")
    listing = ip.run_line_magic("envlist", "--set")
    assert listing.loc[THRESHOLD, "value"] == "5368709120" and listing.loc[POOL, "value"] == "2048"
    shown = listing._repr_html_()
    assert "<span title='5368709120'>5 GiB</span>" in shown and "<span title='2048'>2 GiB</span>" in shown
    assert "<span title='0'>0 B</span>" in shown  # the threshold's default
    diff = ip.run_line_magic("envdiff", "")
    assert diff.loc[THRESHOLD, "now"] == "5368709120"
    assert "<span title='5368709120'>5 GiB</span>" in diff._repr_html_()
    diff.loc[THRESHOLD, "now"] = "7"  # a cell the user changed in the frame is shown as it is
    assert "<span title='5368709120'>" not in diff._repr_html_()


def test_exports_write_what_the_framework_reads_and_read_back_unchanged(ip, tmp_path):
    """Shown: 5 GiB. Stored (the environment, %envexport's files, the notebook profile): the plain number the
    framework reads, which reads back as exactly that value."""
    ip.run_line_magic("envset", f"{THRESHOLD}=5GB {POOL}=2048")
    dotenv = ip.run_line_magic("envexport", "")
    assert f"{THRESHOLD}=5368709120" in dotenv and f"{POOL}=2048" in dotenv and "GiB" not in dotenv
    path = tmp_path / "sizes.env"
    path.write_text(dotenv)
    ip.run_line_magic("envunset", f"{THRESHOLD} {POOL}")
    report = ip.run_line_magic("envload", str(path))
    assert (report[THRESHOLD].new, report[POOL].new) == ("5368709120", "2048") and not report[THRESHOLD].notes


@pytest.mark.parametrize(("size", "text", "parts"), [
    (Size(), "5368709120", ("5", "GiB")),
    (Size(unit=MiB), "1536", ("1536", "MiB")),  # 1.5 GiB: no unit larger than MiB divides it
    (Size(unit=MiB), "2048", ("2", "GiB")),
    (Size(), "0", ("0", "B")),
    (Size(), str(2**60), (str(2**20), "TiB")),  # past 2**53, exactly
    (Size(), "5GB", None),  # not a whole count: never guessed
    (Size(), "9" * 31, None),  # longer than any size: not read at all
])
def test_one_rule_splits_a_size_for_every_front_end(size, text, parts):
    """The rule the sidebar (TypeScript) and the widgets (Python) each wrote, now the kernel's alone: the largest unit
    that divides the value exactly (the sidebar's sizeParts cases, moved here with it)."""
    assert size.split(text) == parts
    assert size.shown(text) == (text if parts is None else f"{parts[0]} {parts[1]}")


def test_the_sidebar_has_no_rule_of_its_own_for_splitting_a_size():
    from pathlib import Path

    source = Path(__file__).resolve().parents[2] / "labextension" / "src"
    written = "\n".join(path.read_text() for path in source.rglob("*.ts") if path.name != "schema.ts")
    # No arithmetic on a size's bytes in the sidebar: the split travels as SizeInfo (the box's bounds aside).
    assert "sizeParts" not in written and "BigInt" not in written and ".unit_bytes" not in written
