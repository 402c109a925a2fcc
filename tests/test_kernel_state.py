"""The kernel's one state (mgenv_jupyter/_kernel_state.py): what `%load_ext` starts lives there and nowhere on the
shell, unloading empties it, and no other module keeps a result or a shell attribute of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import mgenv_jupyter
from mgenv_jupyter._kernel_state import kernel_state
from mgenv_jupyter.memory._shared import kernel_sampler

PACKAGE = Path(mgenv_jupyter.__file__).parent


def test_what_loading_starts_is_in_the_kernels_state_and_nothing_is_on_the_shell(ip):
    state = kernel_state()
    assert state.loaded and state.oom_hook is not None and state.cell_records is not None
    assert state.oom_hook.recorder.sampler is state.sampler is kernel_sampler()
    ip.run_line_magic("memtrace", "on")
    assert state.tracer is not None and state.tracer.on
    ip.run_line_magic("memtrace", "off")
    assert not [name for name in vars(ip) if name.startswith("_mgenv")]
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    assert not state.loaded and state.oom_hook is None and state.cell_records is None


def test_the_session_and_the_last_results_are_the_states(fresh_session):
    from mgenv_jupyter.oom._report import last_report
    from mgenv_jupyter.tuner._result import last_sweep

    assert mgenv_jupyter.session() is kernel_state().session is fresh_session
    assert last_report() is kernel_state().oom_reports.get()
    assert last_sweep() is kernel_state().sweeps.get()


def test_no_other_module_makes_a_last_result_or_names_an_attribute_of_the_shell():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_kernel_state.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "LastResult"
                    or isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and node.value.startswith("_mgenv_jupyter_")
                    or isinstance(node, ast.Attribute) and node.attr.startswith("_mgenv_jupyter_")):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []
