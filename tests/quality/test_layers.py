"""The layers of docs/architecture.md hold (issue 18): every import of the package, those inside functions included,
points down or stays in its layer, and no module leads back to itself through others.

Imports under `if TYPE_CHECKING:` count too: they never run, but a module that names another's types knows it, and a
cycle through them is a cycle of the design (issue 36: oom/_free named oom/_report's report there while the report
called the free inside functions). A module's import of its own parent package does not count: Python has started
that package before the module runs. The layer list is parsed from the picture in
docs/architecture.md, so the picture is checked against the imports.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "mgenv_jupyter"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

# (importing module, imported module) -> why this upward import or cycle edge is allowed. Keep it empty: a lower
# layer that seems to need a higher one should have the decision moved down or be passed it by its caller.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def module_files(root: Path = ROOT) -> dict[str, tuple[Path, bool]]:
    """{dotted name: (path, is a package's __init__)} for every module of the package."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(root).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def imports_of(name: str, source: str, is_package: bool, known: set[str]) -> set[str]:
    """The package's modules that `name` imports, at its top level, in any function or under TYPE_CHECKING, with
    the packages each import starts on the way (`from ..oom.causes import x` runs oom/__init__.py first)."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    targets: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            visit_statement(child)

    def visit_statement(child: ast.AST) -> None:
        if isinstance(child, ast.Import):
            targets.update(alias.name for alias in child.names)
        elif isinstance(child, ast.ImportFrom):
            base = here[:len(here) - child.level + 1] if child.level else []
            module = ".".join([*base, *(child.module.split(".") if child.module else [])])
            targets.add(module)
            # `from . import oom` imports the submodule; `from .x import Name` imports x (resolved below)
            targets.update(f"{module}.{alias.name}" for alias in child.names if f"{module}.{alias.name}" in known)
        visit(child)

    visit(ast.parse(source))
    resolved = set()
    for target in targets:
        while target and target not in known:  # `import mgenv_jupyter.x.Name`-like spellings: the module is x
            target = target.rpartition(".")[0]
        while target:  # importing a.b.c runs a/__init__ and a/b/__init__ first
            if target != name and not name.startswith(target + "."):
                resolved.add(target)
            target = target.rpartition(".")[0]
    return resolved


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = module_files(root)
    return {name: imports_of(name, path.read_text(encoding="utf-8"), is_package, set(files))
            for name, (path, is_package) in files.items()}


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
                    work.append((child, iter(sorted(graph.get(child, ())))))
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


_LAYER_LINE = re.compile(r"^(?P<layer>[^│`]*?)\s*│\s*(?P<names>.+)$")


def layers(text: str) -> list[tuple[str, list[str]]]:
    """The picture's layers, lowest first: [(layer, [module names relative to the package])]."""
    picture = text.split("```text", 1)[1].split("```", 1)[0]
    found = []
    for line in picture.splitlines():
        match = _LAYER_LINE.match(line.strip())
        if match:
            names = [n.strip() for n in match["names"].split(",") if n.strip()]
            if match["layer"].strip():
                found.append((match["layer"].strip(), names))
            else:  # a line with nothing before its │ goes on with the layer above it
                found[-1][1].extend(names)
    return found[::-1]


def layer_of(module: str, order: list[tuple[str, list[str]]]) -> tuple[int, str] | None:
    """(layer index, the name that placed it) by the longest matching name; `__init__` is the package itself."""
    relative = "__init__" if module == PACKAGE else module.removeprefix(PACKAGE + ".")
    best: tuple[int, str] | None = None
    for number, (_, names) in enumerate(order):
        for pattern in names:
            if pattern.endswith("/"):
                continue  # a directory outside the Python package (labextension/)
            matches = (fnmatch.fnmatchcase(relative, pattern) if "*" in pattern
                       else relative == pattern or relative.startswith(pattern + "."))
            if matches and (best is None or len(pattern) > len(best[1])):
                best = (number, pattern)
    return best


def violations(graph: dict[str, set[str]], order: list[tuple[str, list[str]]]) -> list[str]:
    """Every upward import and every module the picture does not place, in words."""
    found = []
    for module in sorted(graph):
        if layer_of(module, order) is None:
            found.append(f"{module} is in no layer of docs/architecture.md")
    for module, targets in sorted(graph.items()):
        mine = layer_of(module, order)
        for target in sorted(targets):
            theirs = layer_of(target, order)
            if mine is None or theirs is None or (module, target) in EXCEPTIONS:
                continue
            if theirs[0] > mine[0]:
                found.append(f"{module} ({order[mine[0]][0]}) imports {target} ({order[theirs[0]][0]})")
    return found


def test_every_import_points_down_the_layers_of_the_architecture_document():
    order = layers(ARCHITECTURE.read_text(encoding="utf-8"))
    found = violations(import_graph(), order)
    assert not found, "upward imports:\n" + "\n".join(found)


def test_no_module_imports_itself_back_through_others():
    graph = {module: {t for t in targets if (module, t) not in EXCEPTIONS}
             for module, targets in import_graph().items()}
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(cycle) for cycle in found)


def test_the_picture_lists_the_layers_in_order_and_every_name_it_gives_exists():
    order = layers(ARCHITECTURE.read_text(encoding="utf-8"))
    assert [layer for layer, _ in order] == ["base", "catalog", "runtime", "memory / oom / cluster", "presentation",
                                             "front ends", "labextension"]
    modules = set(import_graph())
    for _, names in order:
        for name in names:
            if name.endswith("/"):
                assert (ROOT / name).is_dir(), name
            elif not name.endswith("*"):  # `server*`: a place kept for a module that may not be there yet
                full = PACKAGE if name == "__init__" else f"{PACKAGE}.{name}"
                assert full in modules, f"docs/architecture.md names {name}, which is no module of the package"
    # at most two screens
    assert len(ARCHITECTURE.read_text(encoding="utf-8").splitlines()) <= 100


def test_every_exception_is_a_real_import_and_says_why():
    graph = import_graph()
    for (module, target), reason in EXCEPTIONS.items():
        assert target in graph.get(module, set()), f"{module} no longer imports {target}: remove the exception"
        assert len(reason) > 20, (module, target)


def test_the_checker_reads_imports_in_functions_and_finds_upward_ones_and_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    known = {f"{PACKAGE}.low", f"{PACKAGE}.high", f"{PACKAGE}.low.part"}
    source = ("from typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from ..high import View\n"
              "def later():\n    from ..high import show\n    return show\n")
    assert imports_of(f"{PACKAGE}.low.part", source, False, known) == {f"{PACKAGE}.high"}
    type_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..high import View\n"
    assert imports_of(f"{PACKAGE}.low.part", type_only, False, known) == {f"{PACKAGE}.high"}
    # a cycle within one layer, one side only named for its types (issue 36's oom/_free <-> oom/_report)
    one_layer = {f"{PACKAGE}.low.a": imports_of(f"{PACKAGE}.low.a", type_only.replace("..high", ".b"), False,
                                                {f"{PACKAGE}.low.a", f"{PACKAGE}.low.b"}),
                 f"{PACKAGE}.low.b": {f"{PACKAGE}.low.a"}}
    assert cycles(one_layer) == [[f"{PACKAGE}.low.a", f"{PACKAGE}.low.b"]]
    order = [("base", ["low"]), ("top", ["high", "low.part"])]
    assert layer_of(f"{PACKAGE}.low.part", order) == (1, "low.part")  # the longest name wins
    graph = {f"{PACKAGE}.low": {f"{PACKAGE}.high"}, f"{PACKAGE}.high": set(), f"{PACKAGE}.low.part": set()}
    assert violations(graph, order) == [f"{PACKAGE}.low (base) imports {PACKAGE}.high (top)"]
    real = import_graph()
    # _history.py only stores samples; the per-cell analysis that made cells <-> history a cycle lives in _cells.py
    assert f"{PACKAGE}.memory._cells" not in real[f"{PACKAGE}.memory._history"]
    assert f"{PACKAGE}.base._errors" in real[f"{PACKAGE}.runtime._environ_limits"]
    assert f"{PACKAGE}.base._errors" in real[f"{PACKAGE}.base._text"]  # imported inside set_language()
