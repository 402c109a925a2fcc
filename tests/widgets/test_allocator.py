"""`AllocatorWidget` (widgets/allocator.py): each framework's allocator settings, Paddle's pool sizes greyed (not
hidden) outside naive_best_fit, MegEngine's reserve given as a size."""

from __future__ import annotations

import os

import pytest

from mgenv_jupyter import AllocatorWidget, InvalidValueError
from mgenv_jupyter.catalog.values import GiB


def test_paddle_pool_rows_are_marked_not_hidden_outside_naive_best_fit(ip, closing, set_size):
    widget = AllocatorWidget(framework="paddle")
    closing(widget)
    fraction = widget.rows["FLAGS_fraction_of_gpu_memory_to_use"]
    assert widget.strategy() == "auto_growth"
    assert "only matters under naive_best_fit" in fraction.note.value and "auto_growth" in fraction.note.value
    assert "mgenv-inactive" in fraction.widget._dom_classes and fraction.widget in widget.children
    widget.rows["FLAGS_allocator_strategy"].editor.dropdown.value = "naive_best_fit"  # not applied yet
    assert "mgenv-inactive" not in fraction.widget._dom_classes
    fraction.editor.slider.value = 0.5
    set_size(widget, "FLAGS_initial_gpu_memory_in_mb", 1, "GB")
    widget.apply_button.click()
    assert os.environ["FLAGS_allocator_strategy"] == "naive_best_fit"
    assert os.environ["FLAGS_fraction_of_gpu_memory_to_use"] == "0.5"
    assert os.environ["FLAGS_initial_gpu_memory_in_mb"] == "1024"


@pytest.mark.parametrize("framework, names", [
    ("megengine", {"MGB_CUDA_RESERVE_MEMORY", "MEGENGINE_INPLACE_UPDATE"}),
    ("mxnet", {"MXNET_GPU_MEM_POOL_RESERVE", "MXNET_GPU_MEM_POOL_TYPE"}),
])
def test_allocator_rows_per_framework(ip, closing, framework, names):
    widget = AllocatorWidget(framework=framework)
    closing(widget)
    assert set(widget.rows) == names


def test_megengine_reserve_takes_sizes_and_explains_latching(ip, closing):
    widget = AllocatorWidget(framework="megengine")
    closing(widget)
    assert "first use of each GPU" in widget.rows["MGB_CUDA_RESERVE_MEMORY"].details.value
    widget.rows["MGB_CUDA_RESERVE_MEMORY"].editor.text.value = "2GB"
    widget.rows["MEGENGINE_INPLACE_UPDATE"].editor.checkbox.value = True
    widget.apply_button.click()
    assert os.environ["MGB_CUDA_RESERVE_MEMORY"] == f"b:{2 * GiB}" and os.environ["MEGENGINE_INPLACE_UPDATE"] == "1"


def test_unknown_framework_is_refused(ip):
    with pytest.raises(InvalidValueError, match="unknown framework"):
        AllocatorWidget(framework="tensorflow")
