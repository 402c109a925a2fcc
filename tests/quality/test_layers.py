"""No import cycles between the package's modules (issue 15): what a module imports when it is itself imported (its
top-level imports, not those under `if TYPE_CHECKING:` or inside a function) never leads back to it. A module's import
of its own parent package does not count: Python has started that package before the module runs."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "mgenv_jupyter"


def module_files() -> dict[str, tuple[Path, bool]]:
    """{dotted name: (path, is a package's __init__)} for every module of the package."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def top_level_imports(name: str, path: Path, is_package: bool, known: set[str]) -> set[str]:
    """The package's modules `name` imports while it is being imported."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    targets: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue  # runs later, when called
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # never runs
            if isinstance(child, ast.Import):
                targets.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = here[:len(here) - child.level + 1] if child.level else []
                module = ".".join([*base, *(child.module.split(".") if child.module else [])])
                targets.add(module)
                targets.update(f"{module}.{alias.name}" for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    resolved = set()
    for target in targets:
        while target and target not in known:  # `from .x import Name`: the module is x
            target = target.rpartition(".")[0]
        if target and target != name and not name.startswith(target + "."):
            resolved.add(target)
    return resolved


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {name: top_level_imports(name, path, is_package, set(files)) for name, (path, is_package) in files.items()}


def test_no_module_imports_itself_back_through_others():
    assert cycles(import_graph()) == []


def test_the_checker_finds_a_cycle_and_reads_the_real_imports():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = import_graph()
    # history.py only stores samples; the per-cell analysis that made cells <-> history a cycle lives in cells.py
    assert f"{PACKAGE}.memory.cells" not in graph[f"{PACKAGE}.memory.history"]
    assert f"{PACKAGE}.errors" in graph[f"{PACKAGE}.runtime.environ_limits"]
