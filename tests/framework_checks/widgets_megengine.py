"""DTRWidget with real MegEngine. argv[1]: before_import | after_import.

Values are read back from MegEngine's interpreter options (core2.get_option), never from mgenv_jupyter or from
megengine.dtr's Python-side cache.
"""

import sys

from mgenv_jupyter import DTRWidget

from _shell import emit, shell

OPTIONS = ("dtr_eviction_threshold", "dtr_evictee_minimum_size", "enable_dtr_sqrt_sampling", "enable_drop",
           "enable_dtr_auto_drop", "record_computing_path")
GiB, MiB = 1024**3, 1024**2


def options() -> dict:
    from megengine.core._imperative_rt.core2 import get_option

    return {name: get_option(name) for name in OPTIONS}


def edit(widget: DTRWidget, threshold_gb: int, minimum_mb: int, enabled: bool) -> None:
    """What a user does: type the sizes, pick the units, tick the boxes."""
    widget.threshold_row.editor.number.value = threshold_gb
    widget.threshold_row.editor.unit.value = "GiB"
    widget.minimum_row.editor.number.value = minimum_mb
    widget.minimum_row.editor.unit.value = "MiB"
    widget.sqrt_row.editor.checkbox.value = enabled
    widget.switch_row.checkbox.value = enabled


def statuses(widget: DTRWidget) -> dict:
    return {name: widget.session.state(name).status.value for name in widget.rows}


scenario = sys.argv[1]
ip = shell()
result: dict = {"scenario": scenario}
if scenario == "before_import":
    widget = DTRWidget(gpu_total_bytes=16 * GiB)
    edit(widget, 5, 2, True)
    report = widget.apply()
    result["outcomes"] = {c.name: c.outcome.value for c in report}
    result["share"] = widget.share.value
    import megengine  # noqa: E402, F401

    ip.run_cell("pass")  # a later cell: the widget refreshes its statuses
    result["options"] = options()
    result["statuses"] = statuses(widget)
    result["effect"] = widget.effect.value
elif scenario == "after_import":
    import megengine  # noqa: E402, F401

    widget = DTRWidget()
    result["options_before"] = options()
    edit(widget, 3, 4, True)
    report = widget.apply()
    result["outcomes"] = {c.name: c.outcome.value for c in report}
    result["effective"] = {c.name: c.effective for c in report}
    result["options"] = options()
    result["effect"] = widget.effect.value
    result["message"] = widget.message.value
    # Unticking must do what megengine.dtr.disable() does, clearing the eviction candidates too: count the calls of
    # MegEngine's own clear_candidates (the function stays MegEngine's; the wrapper only counts).
    import megengine.dtr.dtr as dtr_module

    cleared = []
    real_clear = dtr_module._clear_candidates

    def counting_clear() -> None:
        cleared.append(True)
        real_clear()

    dtr_module._clear_candidates = counting_clear
    widget.switch_row.checkbox.value = False
    report = widget.apply()
    dtr_module._clear_candidates = real_clear
    result["options_disabled"] = options()
    result["candidates_cleared"] = len(cleared)
    result["disable_effective"] = {c.name: c.effective for c in report}
    result["disable_message"] = str(report["MEGENGINE_ENABLE_DROP"].message)
    ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=1GB")  # a later cell
    editor = widget.threshold_row.editor
    result["widget_after_envset"] = [editor.number.value, editor.unit.value]
    result["options_after_envset"] = options()
    widget.close()
emit(result)
