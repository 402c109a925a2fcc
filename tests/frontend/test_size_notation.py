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
from mgenv_jupyter.presentation._editor import editor_spec
from mgenv_jupyter.protocol._typescript import typescript

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
    note = " ".join(report[THRESHOLD].notes)
    assert set(UNIT_IN_TEXT.findall(note.replace(typed, ""))) <= set(BINARY)  # the note answers in binary units


def test_the_kernels_labels_and_the_charts_come_from_one_table():
    assert [format_size(n) for n in (1536, 3 * MiB, 5 * GiB, 3361447936)] == ["1.5 KiB", "3 MiB", "5 GiB", "3.13 GiB"]
    from pathlib import Path

    chart = (Path(__file__).resolve().parents[2] / "labextension" / "src" / "chart" / "format.ts").read_text()
    assert "SIZE_UNITS" in chart and "SIZE_DECIMALS" in chart and "'GiB'" not in chart  # no second table
