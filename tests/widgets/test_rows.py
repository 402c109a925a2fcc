"""One variable's row (widgets/_rows.py): its name, status, default and description in the chosen language, the
button that unsets it, and its `value`/`status`/`applies` traits."""

from __future__ import annotations

import os

import ipywidgets

from mgenv_jupyter import AllocatorWidget, ConfigWidget, DTRWidget
from mgenv_jupyter.base._text import set_language

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def test_rows_show_status_default_and_description_in_the_chosen_language(ip, closing):
    widget = ConfigWidget(names=["FLAGS_allocator_strategy"])
    closing(widget)
    row = widget.rows["FLAGS_allocator_strategy"]
    assert "not set" in row.badge.value
    assert "<code>auto_growth</code>" in row.details.value and "Which memory allocator" in row.details.value
    set_language("zh")
    try:
        chinese = ConfigWidget(names=["FLAGS_allocator_strategy"])
        closing(chinese)
        assert "选择 Paddle 的内存分配器" in chinese.rows["FLAGS_allocator_strategy"].details.value
    finally:
        set_language(None)


def test_default_button_unsets_a_variable(ip, closing):
    ip.run_line_magic("envset", "MGE_DEFAULT_DEVICE=cpu0")
    widget = ConfigWidget(names=["MGE_DEFAULT_DEVICE"])
    closing(widget)
    row = widget.rows["MGE_DEFAULT_DEVICE"]
    assert not row.unset_button.disabled
    row.unset_button.click()
    assert row.editor.raw() == "xpux" and "will be unset" in row.edit_mark.value
    widget.apply_button.click()
    assert "MGE_DEFAULT_DEVICE" not in os.environ and row.unset_button.disabled


def test_rows_are_traits_that_observe_and_link(ip, closing):
    """`value`, `status` and `applies` are traits: Python code can observe a row and link it to other widgets."""
    widget = AllocatorWidget(framework="paddle")
    closing(widget)
    strategy, pool = widget.rows["FLAGS_allocator_strategy"], widget.rows["FLAGS_initial_gpu_memory_in_mb"]
    seen = []
    strategy.observe(lambda change: seen.append(change["new"]), names="value")
    strategy.editor.dropdown.value = "naive_best_fit"
    assert seen == ["naive_best_fit"] and pool.applies
    mirror = ipywidgets.Text()
    ipywidgets.link((pool, "value"), (mirror, "value"))
    mirror.value = "2GB"  # typed elsewhere: the row's editor follows, normalised to what Paddle reads (MB)
    assert (pool.editor.number.value, pool.editor.unit.value) == (2.0, "GiB") and pool.value == "2048"
    strategy.value = "auto_growth"  # set from code: the editor follows, and the rules are evaluated again
    assert strategy.editor.dropdown.value == "auto_growth" and not pool.applies
    assert strategy.status == "unset"  # edited, not applied: the kernel's variable is still not set


def test_every_row_names_its_variable_on_its_own_line_with_the_full_name_as_tooltip(ip, closing):
    widget = ConfigWidget(framework="paddle")
    closing(widget)
    row = widget.rows["FLAGS_fraction_of_cuda_pinned_memory_to_use"]
    assert row.name_label.tooltip == row.entry.name and "mgenv-name" in row.name_label._dom_classes
    assert row.editor.widget not in row.children[0].children  # the input is below the name, not squeezed beside it


def test_a_note_about_the_value_is_shown_right_under_its_input(ip, closing):
    """The DTR threshold's share of the GPU sits between the threshold's input and its description, not after the
    whole row, where it read as a line of its own."""
    widget = DTRWidget(gpu_total_bytes=16 * 1024**3)
    closing(widget)
    row = widget.rows[THRESHOLD]
    head, edit, share, *rest = row.children
    assert share is widget.share and edit.children[0] is row.editor.widget
    assert widget.share not in widget.children


def test_a_default_shown_in_an_unset_row_is_greyed_never_read_as_a_value_set(ip, closing):
    """A row not set shows the framework's default in its editor (1 MiB, MEGENGINE_INTERP_ASYNC_LEVEL's 2) beside
    its "not set" badge: the row is marked so that the default is greyed, until the user edits it or it is set."""
    widget = DTRWidget()
    closing(widget)
    row = widget.rows["MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"]
    assert "not set" in row.badge.value and row.editor.raw() == "1MiB"  # the default, in the box (one notation)
    assert "mgenv-at-default" in row._dom_classes
    row.editor.number.value = 2.0  # the user types: it is theirs now
    assert "mgenv-at-default" not in row._dom_classes and "mgenv-edited" in row._dom_classes
    row.sync()
    assert "mgenv-at-default" in row._dom_classes
    ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE=4MB")
    assert "mgenv-at-default" not in row._dom_classes  # a value set shows as set
