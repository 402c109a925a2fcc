"""Every front end shows the same presentation: one kernel state, rendered by the magics (`%envget`), the ipywidgets
and the sidebar's real model and view (run by jest on the kernel's own messages), gives the same status code, the
same editor kind and bounds, and the same greyed-out Paddle pool rows with the same reason."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mgenv_jupyter import ConfigWidget
from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.widgets._editors import EDITORS

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
PADDLE_POOL = ("FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb",
               "FLAGS_reallocate_gpu_memory_in_mb", "FLAGS_fraction_of_cpu_memory_to_use",
               "FLAGS_initial_cpu_memory_in_mb")
KIND_OF_EDITOR = {editor: kind for kind, editor in EDITORS.items()}


def from_the_magics(ip, names):
    shown = {}
    for name in names:
        view = ip.run_line_magic("envget", name)
        spec = view.editor
        shown[name] = {"status": view.status.value, "kind": spec.kind, "choices": list(spec.choices),
                       "units": [unit for unit, _ in spec.units],
                       "fraction": (spec.minimum, spec.maximum) if spec.kind == "fraction" else (None, None),
                       "greyed": not view.applicability.applies, "reason": view.applicability.reason}
    return shown


def option_values(dropdown) -> list:
    """What a dropdown's options stand for: ipywidgets takes plain values or (label, value) pairs (a unit shown as
    "GiB" that means "GB"), and the kernel and the sidebar compare values, never labels."""
    if dropdown is None:
        return []
    return [option[1] if isinstance(option, tuple) else option for option in dropdown.options]


def from_the_widgets(names):
    widget = ConfigWidget(names=names)
    try:
        shown = {}
        for name in names:
            row = widget.rows[name]
            editor = row.editor
            kind = next(kind for cls, kind in KIND_OF_EDITOR.items() if type(editor) is cls)
            choices = option_values(getattr(editor, "dropdown", None))
            units = option_values(getattr(editor, "unit", None))
            slider = getattr(editor, "slider", None)
            shown[name] = {"status": row.status, "kind": kind, "choices": choices, "units": units,
                           "fraction": (slider.min, slider.max) if slider is not None else (None, None),
                           "greyed": "mgenv-inactive" in row._dom_classes,
                           "reason": row.note.value or None}
        return shown
    finally:
        widget.close()


def from_the_sidebar(fresh_session, names, tmp_path):
    fixture, out = tmp_path / "messages.json", tmp_path / "shown.json"
    handler = RequestHandler(fresh_session)
    fixture.write_text(json.dumps(handler.handle({"v": 1, "id": "hello", "type": "hello", "language": "en"})))
    done = subprocess.run(["npx", "jest", "--silent", "tests/agreement.test.ts"], cwd=LABEXTENSION,
                          env={**os.environ, "MGENV_AGREEMENT_FIXTURE": str(fixture), "MGENV_AGREEMENT_OUT": str(out)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    panel = json.loads(out.read_text())
    shown = {}
    for name in names:
        row = panel[name]
        editor = row["editor"]
        shown[name] = {"status": row["status"], "kind": editor["kind"], "choices": editor["choices"],
                       "units": editor["units"],
                       "fraction": (editor["min"], editor["max"]) if editor["kind"] == "fraction" else (None, None),
                       "greyed": row["greyed"], "reason": row["reason"]}
    return shown


@pytest.mark.slow
def test_magics_widgets_and_sidebar_show_the_same_statuses_editors_and_rules(ip, fresh_session, tmp_path):
    ip.run_line_magic("envset", "FLAGS_allocator_strategy=auto_growth MEGENGINE_DTR_EVICTION_THRESHOLD=5GB")
    names = ["FLAGS_allocator_strategy", *PADDLE_POOL, "MEGENGINE_DTR_EVICTION_THRESHOLD", "MGE_DEFAULT_DEVICE",
             "MEGENGINE_HOST_COMPUTE", "MGB_CUDA_RESERVE_MEMORY", "MXNET_ENGINE_TYPE", "precision_mode",
             "MEGENGINE_ENABLE_SWAP", "MGE_DATALOADER_PLASMA_DEBUG"]
    magics = from_the_magics(ip, names)
    widgets = from_the_widgets(names)
    sidebar = from_the_sidebar(fresh_session, names, tmp_path)
    for name in names:
        assert magics[name] == widgets[name] == sidebar[name], name
    # and the rules did what the catalog says: every pool size greyed, for the same reason, in all three
    for name in PADDLE_POOL:
        assert magics[name]["greyed"] and "auto_growth" in magics[name]["reason"]
    assert {magics[n]["kind"] for n in names} == {"choice", "fraction", "size", "text", "switch", "presence"}
