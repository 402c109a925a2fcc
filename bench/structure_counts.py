"""Counts of issue 36's structure, before and after a change: `python -m bench.structure_counts [-v] [ROOT]` (`-v`
lists each place; ROOT, a checkout to count, by default this one: `git worktree add /tmp/base main` counts main).
Static, from the package's source:

- kernel state: names a module rebinds with `global`, module-level `LastResult(...)` singletons and module-level
  mutable containers (`set()`, `{}`, `[]`, `dict()`, `list()`, `WeakKeyDictionary()`) of private names, and private
  attributes named `_mgenv_jupyter_*` that the package sets or reads on the shell;
- the one kernel state's typed slots: module-level `Slot(...)` / `LastResultSlot(...)` declarations
  (base/_kernel_state.py), each a key into the one `KernelState`, not a place of its own; and reaches into the state
  not through a slot: an attribute of `kernel_state()` or of a name bound to it, other than its lock (before the
  slots, every part was one);
- look-ups by string of the frameworks' extension points and facts: calls `declared("...")` and `fact(key, "...")`;
- followers of IPython's cell events: modules that hear them themselves (register with `events`, name an event, or
  define a handler of one for a base class elsewhere to register), not those that subscribe to the one follower;
- import arrows between the package's modules (imports inside functions included, as tests/quality/test_layers.py
  reads them) and the cycles among them.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.quality.test_layers import cycles, import_graph, module_files  # noqa: E402

_MUTABLE_CALLS = {"set", "dict", "list", "WeakKeyDictionary", "WeakValueDictionary", "WeakSet"}


def _called(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return None


def kernel_state(tree: ast.Module, module: str) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.extend(f"{module}: global {name}" for name in node.names)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("_mgenv_jupyter_"):
            found.append(f"{module}: shell attribute {node.value}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_mgenv_jupyter_"):
            found.append(f"{module}: shell attribute {node.attr}")
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            called = _called(node.value)
            if called == "LastResult":
                found.extend(f"{module}: LastResult {name}" for name in names)
            elif (called in _MUTABLE_CALLS and not node.value.args) or (
                    isinstance(node.value, (ast.Dict, ast.List, ast.Set)) and not getattr(node.value, "elts", None)
                    and not getattr(node.value, "keys", None)):
                found.extend(f"{module}: mutable {name}" for name in names if name.startswith("_"))
    return sorted(set(found))


_STATE_OWN = {"lock", "describe", "declared"}


def state_slots(tree: ast.Module, module: str) -> list[str]:
    found = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            func = node.value.func if isinstance(node.value, ast.Call) else None
            base = func.value if isinstance(func, ast.Subscript) else func  # `Slot[T]("...")` too
            if isinstance(base, ast.Name) and base.id in ("Slot", "LastResultSlot"):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.extend(f"{module}: slot {t.id}" for t in targets if isinstance(t, ast.Name))
    return found


def untyped_reaches(tree: ast.Module, module: str) -> list[str]:
    """`kernel_state().part` or `state.part` after `state = kernel_state()`: a part reached by attribute name."""
    bound = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and _called(node.value) == "kernel_state"
             for t in node.targets if isinstance(t, ast.Name)}
    return [f"{module}:{node.lineno} kernel state .{node.attr}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr not in _STATE_OWN
            and (_called(node.value) == "kernel_state" or isinstance(node.value, ast.Name) and node.value.id in bound)]


def string_lookups(tree: ast.Module, module: str) -> list[str]:
    return [f"{module}:{node.lineno} {_called(node)}({node.args[-1].value!r})" for node in ast.walk(tree)
            if _called(node) in ("declared", "fact") and node.args and isinstance(node.args[-1], ast.Constant)
            and isinstance(node.args[-1].value, str)]


_CELL_EVENTS = ("pre_run_cell", "post_run_cell", "pre_execute", "post_execute")


def cell_event_followers(tree: ast.Module, module: str) -> list[str]:
    """The module hears IPython's cell events itself: it registers with `events` (`shell.events.register(...)`), names
    an event to IPython (the name as a string, however the call is spelt), or defines a handler of one (a
    `_post_run_cell` of a subclass, whose base registers it from another module)."""
    for node in ast.walk(tree):
        if (_called(node) in ("register", "unregister") and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "events"):
            return [module]
        if isinstance(node, ast.Constant) and node.value in _CELL_EVENTS:
            return [module]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(e in node.name for e in _CELL_EVENTS):
            return [module]
    return []


def main(verbose: bool, root: Path) -> None:
    places: list[str] = []
    lookups: list[str] = []
    followers: list[str] = []
    slots: list[str] = []
    reaches: list[str] = []
    for name, (path, _) in module_files(root).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        places += kernel_state(tree, name)
        slots += state_slots(tree, name)
        reaches += untyped_reaches(tree, name)
        lookups += string_lookups(tree, name)
        followers += cell_event_followers(tree, name)
    graph = import_graph(root)
    found_cycles = cycles(graph)
    print(f"kernel state places: {len(places)}")
    print(f"typed slots of the one kernel state: {len(slots)}; parts reached by attribute name: {len(reaches)}")
    print(f"look-ups by string (declared): {len(lookups)}")
    print(f"followers of cell events: {len(followers)}")
    print(f"import arrows: {sum(len(t) for t in graph.values())}; cycles: {len(found_cycles)}")
    if verbose:
        for line in [*places, *slots, *reaches, *lookups, *followers, *(" <-> ".join(c) for c in found_cycles)]:
            print("  " + line)


if __name__ == "__main__":
    paths = [arg for arg in sys.argv[1:] if arg != "-v"]
    main("-v" in sys.argv, Path(paths[0]).resolve() if paths else ROOT)
