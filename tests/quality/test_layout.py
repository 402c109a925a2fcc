"""The package's layout: its root holds its face only, every module of mgenv_jupyter has its test module at the
mirrored path, and every test module outside a tier directory tests a module that exists.

    mgenv_jupyter/<package>/<module>.py   →  tests/<package>/test_<module>.py
    mgenv_jupyter/<package>/__init__.py   →  tests/<package>/test_<package>.py   (when it defines functions or classes)
    mgenv_jupyter/__init__.py             →  tests/test_mgenv_jupyter.py
    a private module _<name>.py           →  test_<name>.py                      (widgets/_link.py → test_link.py)

`__main__.py` and `_version.py` need none, nor does an `__init__.py` that only re-exports. Tests that are not about one
module live in a tier directory (TIERS).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mgenv_jupyter"
TESTS = ROOT / "tests"
TIERS = {"browser", "kernel", "frameworks", "frontend", "quality", "packaging", "framework_checks", "gpu",
         "ray_cluster"}
EXEMPT = {"__main__.py", "_version.py"}
# The root's modules: the public API of the README (`__init__.py`) and the version it reads from the installed metadata.
# Every other module lives in the folder of its layer (docs/architecture.md: base/, magics/, comms/, ...).
FACE = {"__init__.py", "_version.py"}


def defines_code(init: Path) -> bool:
    """Whether a package's __init__.py holds code of its own (a function or class), not only re-exports."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


def mirrored(module: Path) -> Path | None:
    """The test module `module` must have (None: it needs none)."""
    relative = module.relative_to(PACKAGE)
    if relative.name in EXEMPT:
        return None
    if relative.name == "__init__.py":
        if not defines_code(module):
            return None
        package = relative.parent.name or PACKAGE.name
        return TESTS / relative.parent / f"test_{package}.py"
    return TESTS / relative.parent / f"test_{relative.stem.lstrip('_')}.py"


def modules() -> list[Path]:
    """Every Python module of the package (built front-end files hold none)."""
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def test_every_module_has_its_test_module_at_the_mirrored_path():
    missing = [f"{module.relative_to(ROOT)} has no {expected.relative_to(ROOT)}"
               for module in modules() if (expected := mirrored(module)) is not None and not expected.exists()]
    assert missing == [], "\n".join(missing)


def test_every_test_module_outside_the_tiers_tests_a_module_that_exists():
    wanted = {expected for module in modules() if (expected := mirrored(module)) is not None}
    stray = [str(test.relative_to(ROOT)) for test in sorted(TESTS.rglob("test_*.py"))
             if test.relative_to(TESTS).parts[0] not in TIERS and test not in wanted]
    assert stray == [], ("test modules that mirror no module of mgenv_jupyter (move them beside the module they test, "
                         "or into a tier directory):\n" + "\n".join(stray))


def test_the_package_root_holds_only_its_face():
    """Issue 36: the root had grown 28 modules of four layers; a module added there since belongs in its layer's
    folder."""
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert set(root) == FACE, f"modules at the package's root beyond its face: {sorted(set(root) - FACE)}"
    assert not [path.name for path in TESTS.glob("test_*.py") if path.name != "test_mgenv_jupyter.py"], (
        "tests/ mirrors the package: only the face's test module lives at its root")


def test_the_rule_maps_modules_as_documented():
    assert mirrored(PACKAGE / "comms" / "_requests.py") == TESTS / "comms" / "test_requests.py"
    assert mirrored(PACKAGE / "catalog" / "values.py") == TESTS / "catalog" / "test_values.py"
    assert mirrored(PACKAGE / "runtime" / "frameworks" / "megengine.py") == (
        TESTS / "runtime" / "frameworks" / "test_megengine.py")
    assert mirrored(PACKAGE / "catalog" / "__init__.py") == TESTS / "catalog" / "test_catalog.py"
    assert mirrored(PACKAGE / "__init__.py") == TESTS / "test_mgenv_jupyter.py"
    assert mirrored(PACKAGE / "widgets" / "_link.py") == TESTS / "widgets" / "test_link.py"
    assert mirrored(PACKAGE / "protocol" / "__init__.py") is None  # re-exports only
    assert mirrored(PACKAGE / "protocol" / "__main__.py") is None and mirrored(PACKAGE / "_version.py") is None
