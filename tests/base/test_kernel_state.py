"""The kernel's one state (mgenv_jupyter/base/_kernel_state.py): what `%load_ext` starts lives there and nowhere on the
shell, unloading empties it, and no other module keeps a result or a shell attribute of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import mgenv_jupyter
from mgenv_jupyter.base._kernel_state import Slot, kernel_state
from mgenv_jupyter.comms._cells import RECORDS
from mgenv_jupyter.magics import _env as magics
from mgenv_jupyter.memory._memtrace import existing_memtrace
from mgenv_jupyter.memory._shared import kernel_sampler, made_sampler
from mgenv_jupyter.oom._hook import installed_hook
from mgenv_jupyter.runtime import SESSION

PACKAGE = Path(mgenv_jupyter.__file__).parent


def test_what_loading_starts_is_in_the_kernels_state_and_nothing_is_on_the_shell(ip):
    hook = installed_hook()
    assert magics.loaded() and hook is not None and RECORDS.get() is not None
    assert hook.recorder.sampler is made_sampler() is kernel_sampler()
    ip.run_line_magic("memtrace", "on")
    memtrace = existing_memtrace(ip)
    assert memtrace is not None and memtrace.on
    ip.run_line_magic("memtrace", "off")
    assert not [name for name in vars(ip) if name.startswith("_mgenv")]
    held = "\n".join(kernel_state().describe())
    assert "the sampler and its history: Sampler" in held and "cell listeners: OomHook" in held
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    assert not magics.loaded() and installed_hook() is None and RECORDS.get() is None


def test_a_slot_is_keyed_by_itself_made_once_and_listed_for_people():
    first, second = Slot[list[int]]("a test's first list"), Slot[list[int]]("a test's first list")
    try:
        made = first.get_or_make(list)
        assert first.get_or_make(lambda: [1]) is made and second.get() is None  # same words, another slot
        assert "a test's first list: list" in kernel_state().describe()
        assert first.take() is made and first.get() is None
    finally:
        first.set(None)
        kernel_state().declared[:] = [s for s in kernel_state().declared if s not in (first, second)]


def test_the_session_and_the_last_results_are_the_states(fresh_session):
    from mgenv_jupyter.oom._report import last_report, reports
    from mgenv_jupyter.sweeps._result import last_sweep, last_sweeps

    assert mgenv_jupyter.session() is SESSION.get() is fresh_session
    assert last_report() is reports().get()
    assert last_sweep() is last_sweeps().get()


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
