"""One home per framework (issue 30): everything the product knows about a framework lives in its catalog module (data)
and its runtime adapter (code); every other module asks them. Counted here, for each of the seven frameworks: the
modules of mgenv_jupyter that name it in code outside its homes and the registries, held at MOST or fewer.

What names a framework, in a module's code (its syntax tree, so comments never count):
- an import of it, or any identifier, attribute, argument, keyword or imported name with one of its words;
- a string constant with one of its words, or that holds a variable or option name its catalog entries declare
  (`"FLAGS_allocator_strategy"` is Paddle's, `"precision_mode"` Ascend's), whatever else the string says; a name of
  one plain word (Ascend's `distribute`) is no naming, nor one of a library every framework links (OMP_NUM_THREADS).
A string that is a statement of its own (a docstring, or the note under a constant) is documentation, never counted.

Words are found by splitting a name at underscores, dots, other punctuation and case changes (`NPURunConfig` is NPU,
Run, Config; `_tf_device` is tf, device), case-insensitively; a word keeps its digits, so "tf32" (a number format) and
"utf8" are no TensorFlow and "mx" is MXNet's usual alias wherever it stands alone.

A framework's homes are `catalog/_<key>.py` and `runtime/frameworks/_<key>.py`, each with the parts named after it
(`catalog/_<key>_<part>.py`: MegEngine's DTR is `catalog/_megengine_dtr.py`); `<key>` is the catalog's key ("torch"
for PyTorch). A registry lists the frameworks and nothing more: REGISTRIES, in which a framework may be named only at
module level, in an import of its home or a constant table (a function or class there names none).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mgenv_jupyter"
MOST = 2

WORDS: dict[str, frozenset[str]] = {
    "megengine": frozenset({"megengine", "mge", "mgb", "megbrain"}),
    "paddle": frozenset({"paddle", "paddlepaddle"}),
    "mxnet": frozenset({"mxnet", "mx", "gluon"}),
    # torchrun is a launcher beside mpirun and Slurm (runtime/_launchers.py), not a name of the framework
    "torch": frozenset({"torch", "pytorch", "torchinductor", "torchdynamo", "torchvision", "torchaudio", "c10"}),
    "jax": frozenset({"jax", "jaxlib", "jnp"}),
    "tensorflow": frozenset({"tensorflow", "tf", "keras"}),
    "ascend": frozenset({"ascend", "npu", "cann", "hccl"}),
}
# Libraries every framework links, whose variables a framework's catalog may describe too (PyTorch's declares
# OMP_NUM_THREADS): a catalog name that starts with one of these words names no framework.
SHARED_LIBRARIES = frozenset({"OMP", "MKL", "CUDA", "CUDNN", "NCCL"})
# The registries: the catalog's table of frameworks and of their facts, the adapters' package and its table.
REGISTRIES = ("catalog/_frameworks.py", "catalog/_homes.py", "runtime/frameworks/__init__.py",
              "runtime/frameworks/_adapters.py")

_CHUNK = re.compile(r"[^A-Za-z0-9]+")
_WORD = re.compile(r"[A-Z]+[0-9]*(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def words(text: str) -> set[str]:
    """The words of a name or a text, lower-cased: "NPURunConfig" → npu, run, config; "_tf_device" → tf, device."""
    return {word.lower() for chunk in _CHUNK.split(text) for word in _WORD.findall(chunk)}


def entry_names() -> dict[str, str]:
    """Every catalog variable or option name of the seven frameworks → its framework, but for the names of the
    libraries they all link (SHARED_LIBRARIES) and names of one plain word (Ascend's options `distribute` and
    `deterministic` are words of any path or sentence too)."""
    from mgenv_jupyter.catalog import catalog

    return {entry.name: entry.framework for entry in catalog() if entry.framework in WORDS and "_" in entry.name
            and entry.name.split("_")[0] not in SHARED_LIBRARIES}


def _documentation(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are statements of their own (docstrings and notes)."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def named_in(tree: ast.AST, names: dict[str, str]) -> Iterator[tuple[str, ast.AST, str]]:
    """(framework, the node, the text that names it) for every naming of a framework in a module's code."""
    documentation = _documentation(tree)
    for node in ast.walk(tree):
        texts: list[str] = []
        strings: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation:
            strings.append(node.value)
        elif isinstance(node, ast.Name):
            texts.append(node.id)
        elif isinstance(node, ast.Attribute):
            texts.append(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts.append(node.name)
        elif isinstance(node, ast.arg):
            texts.append(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            texts.append(node.arg)
        elif isinstance(node, ast.alias):
            texts.extend(name for name in (node.name, node.asname) if name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            texts.append(node.module)
        for text in (*texts, *strings):
            found = words(text)
            for framework, own in WORDS.items():
                if found & own:
                    yield framework, node, text
        for text in strings:
            for framework in {names[name] for name in _NAME.findall(text) if name in names}:
                yield framework, node, text


def _home(relative: str, framework: str) -> bool:
    return re.fullmatch(rf"(?:catalog|runtime/frameworks)/_{framework}(?:_\w+)?\.py", relative) is not None


def _module_level(tree: ast.Module) -> set[int]:
    """The ids of the nodes a registry may name frameworks in: its top-level imports and assignments."""
    allowed = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)):
            allowed.update(id(node) for node in ast.walk(statement))
    return allowed


def modules() -> dict[str, str]:
    """{path relative to the package: source} for every module of mgenv_jupyter."""
    return {path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in path.parts}


def census(sources: dict[str, str], names: dict[str, str]) -> tuple[dict[str, dict[str, set[str]]], list[str]]:
    """({framework: {module outside its homes and the registries: the texts that name it}}, what a registry names
    outside its module-level tables and imports)."""
    counted: dict[str, dict[str, set[str]]] = {framework: {} for framework in WORDS}
    misplaced = []
    for relative, source in sources.items():
        tree = ast.parse(source)
        allowed = _module_level(tree) if relative in REGISTRIES else set()
        for framework, node, text in named_in(tree, names):
            if _home(relative, framework):
                continue
            if relative in REGISTRIES:
                if id(node) not in allowed:
                    misplaced.append(f"{relative}:{getattr(node, 'lineno', '?')} names {framework} ({text[:60]!r}) "
                                     "in a function or class")
                continue
            counted[framework].setdefault(relative, set()).add(text[:60])
    return counted, misplaced


def report(counted: dict[str, dict[str, set[str]]]) -> str:
    return "\n".join(f"{framework}: {len(found)} modules" + "".join(
        f"\n    {module}: {', '.join(sorted(map(repr, texts))[:4])}" for module, texts in sorted(found.items()))
        for framework, found in counted.items())


def test_each_framework_is_named_in_at_most_two_modules_outside_its_homes_and_the_registries():
    counted, misplaced = census(modules(), entry_names())
    over = {framework: found for framework, found in counted.items() if len(found) > MOST}
    assert not over, "modules that name a framework outside its homes:\n" + report(counted)
    assert not misplaced, "\n".join(misplaced)


def test_the_registries_name_every_framework_and_each_framework_has_its_catalog_home():
    sources = modules()
    for framework in WORDS:
        assert (PACKAGE / "catalog" / f"_{framework}.py").exists(), framework
    found = {framework for framework, _, _ in named_in(ast.parse(sources["catalog/_frameworks.py"]), {})}
    assert found == set(WORDS)
    adapters = {framework for framework, _, _ in named_in(ast.parse(sources["runtime/frameworks/_adapters.py"]), {})}
    assert adapters == set(WORDS) - {"ascend"}  # Ascend's options are recorded for the user's code: no live API


@pytest.mark.parametrize(("source", "named"), [
    ("import torch\n", {"torch"}),
    ("from ..runtime.frameworks import _paddle as adapter\n", {"paddle"}),
    ("x = mx.nd.zeros(3)\n", {"mxnet"}),
    ("def _tf_device(): pass\n", {"tensorflow"}),
    ("KEYWORDS = 'NPURunConfig(**kwargs)'\n", {"ascend"}),
    ("NAME = 'XLA_PYTHON_CLIENT_PREALLOCATE'\n", {"jax"}),  # a catalog name, though "xla" is no word of JAX's
    ("LABEL = f'{value} under FLAGS_allocator_strategy'\n", {"paddle"}),
    ("'''Docstrings name torch, megengine and paddle freely.'''\nLIMIT = 3\n'''So does the note under LIMIT: jax'''\n",
     set()),
    ("x = 1  # a comment names tensorflow freely\n", set()),
    ("FORMATS = ('tf32', 'utf8', 'max', 'matrix')\n", set()),
    ("FLAG = 'TORCHINDUCTOR_FREEZING'\n", {"torch"}),
])
def test_what_names_a_framework(source: str, named: set[str]) -> None:
    names = {"XLA_PYTHON_CLIENT_PREALLOCATE": "jax", "FLAGS_allocator_strategy": "paddle"}
    assert {framework for framework, _, _ in named_in(ast.parse(source), names)} == named


def test_a_module_outside_the_homes_counts_and_a_registry_names_frameworks_only_in_its_tables():
    sources = {
        "catalog/_torch.py": "import torch\n",  # its home
        "catalog/_megengine_dtr.py": "NAME = 'megengine'\n",  # a part of its home
        "oom/_remedies.py": "if framework == 'torch': pass\n",
        "catalog/_frameworks.py": ("KEYS = ('torch', 'jax')\n"
                                   "def label(key):\n    return 'JAX' if key == 'jax' else key\n"),
    }
    counted, misplaced = census(sources, {})
    assert counted["torch"] == {"oom/_remedies.py": {"torch"}} and counted["megengine"] == {}
    assert counted["jax"] == {}  # the registry's table
    assert sorted(misplaced) == ["catalog/_frameworks.py:3 names jax ('JAX') in a function or class",
                                 "catalog/_frameworks.py:3 names jax ('jax') in a function or class"]
