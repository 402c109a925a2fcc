"""AllocatorWidget with real Paddle. argv[1]: before_import | after_import.

Values are read back with paddle.get_flags.
"""

import sys

from mgenv_jupyter import AllocatorWidget

from _shell import emit, shell

FLAGS = ["FLAGS_allocator_strategy", "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb",
         "FLAGS_reallocate_gpu_memory_in_mb"]


def edit(widget: AllocatorWidget, strategy: str, fraction: float, initial_mb: int, reallocate_gb: int) -> None:
    """What a user does: pick the strategy, move the slider, type the sizes and pick their units."""
    rows = widget.rows
    rows["FLAGS_allocator_strategy"].editor.dropdown.value = strategy
    rows["FLAGS_fraction_of_gpu_memory_to_use"].editor.slider.value = fraction
    rows["FLAGS_initial_gpu_memory_in_mb"].editor.number.value = initial_mb
    rows["FLAGS_initial_gpu_memory_in_mb"].editor.unit.value = "MiB"
    rows["FLAGS_reallocate_gpu_memory_in_mb"].editor.number.value = reallocate_gb
    rows["FLAGS_reallocate_gpu_memory_in_mb"].editor.unit.value = "GiB"


scenario = sys.argv[1]
ip = shell()
result: dict = {"scenario": scenario}
if scenario == "before_import":
    widget = AllocatorWidget(framework="paddle")
    edit(widget, "naive_best_fit", 0.4, 512, 1)
    report = widget.apply()
    result["outcomes"] = {c.name: c.outcome.value for c in report}
    import paddle  # noqa: E402

    ip.run_cell("pass")  # a later cell: the widget refreshes its statuses
    result["flags"] = paddle.get_flags(FLAGS)
    result["statuses"] = {name: widget.session.state(name).status.value for name in FLAGS}
elif scenario == "after_import":
    import paddle  # noqa: E402

    widget = AllocatorWidget(framework="paddle")
    result["flags_before"] = paddle.get_flags(FLAGS)
    edit(widget, "naive_best_fit", 0.3, 256, 2)
    result["naive_marked_before_apply"] = "mgenv-inactive" in widget.rows[FLAGS[1]].widget._dom_classes
    report = widget.apply()
    result["outcomes"] = {c.name: c.outcome.value for c in report}
    result["effective"] = {c.name: c.effective for c in report}
    result["flags"] = paddle.get_flags(FLAGS)
    row = widget.rows["FLAGS_allocator_strategy"]
    result["row_status"] = row.badge.value + " " + row.details.value
    ip.run_line_magic("envset", "FLAGS_fraction_of_gpu_memory_to_use=0.6")  # a later cell
    result["slider_after_envset"] = widget.rows[FLAGS[1]].editor.slider.value
    result["flags_after_envset"] = paddle.get_flags(FLAGS[1:2])
    widget.close()
emit(result)
