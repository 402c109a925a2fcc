"""AllocatorWidget(framework="torch") with real PyTorch (CPU build). argv[1]: before_import | after_import.

What a user does in the widget — tick expandable_segments, type 128 into max_split_size_mb, Apply — and what torch's
allocator then holds, read back with torch._C._accelerator_getAllocatorSettings() (the accelerator-generic keys, which
a CPU build parses too). A later %envset of the config updates the key controls.
"""

import sys

from mgenv_jupyter import AllocatorWidget

from _shell import emit, shell


def edit(widget: AllocatorWidget) -> dict:
    editor = widget.config_editor()
    editor.controls["expandable_segments"].value = True
    editor.controls["max_split_size_mb"].value = 128
    report = widget.apply()
    assert report is not None, widget.message.value
    return {"outcomes": {c.name: c.outcome.value for c in report}, "joined": editor.joined.value}


scenario = sys.argv[1]
ip = shell()
result: dict = {"scenario": scenario}
if scenario == "before_import":
    widget = AllocatorWidget(framework="torch")
    result["set"] = edit(widget)
    import torch  # noqa: E402

    result["settings"] = torch._C._accelerator_getAllocatorSettings()
elif scenario == "after_import":
    import torch  # noqa: E402

    widget = AllocatorWidget(framework="torch")
    result["set"] = edit(widget)
    result["settings"] = torch._C._accelerator_getAllocatorSettings()
    ip.run_line_magic("envset", "PYTORCH_ALLOC_CONF=garbage_collection_threshold:0.5")  # a later cell
    editor = widget.config_editor()
    result["after_envset"] = {"gc": editor.controls["garbage_collection_threshold"].value,
                              "set": [name for name, given in editor.is_set.items() if given]}
    result["settings_after_envset"] = torch._C._accelerator_getAllocatorSettings()
    widget.close()
emit(result)
