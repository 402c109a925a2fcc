"""A docstring or comment that names one of our files is a link (CONVENTIONS.md, habit 18): every such path must exist.

What counts as naming one of our files, in the package (mgenv_jupyter/), the front end's sources (labextension/src/),
the tests, bench/ and docs/:
- a path whose first folder is one of ours (`memory/_sampler.py`, `tests/oom/test_hook.py`, `sidebar/model.ts`),
  resolved from the repository, the package, the naming file's folder or any folder above it, or the front end's
  sources; a framework's source cited by its own path (`torch/cuda/memory.py`) is not ours and is left alone;
- a private module's bare name (`magics/_sweep.py`): one of that name must exist somewhere in the package;
- a module of ours named without its leading underscore (`gpu_view.py` where `server/_gpu_view.py` is the module).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mgenv_jupyter"
FRONT_END = ROOT / "labextension" / "src"
NAMING = ["mgenv_jupyter", "labextension/src", "tests", "bench", "docs"]
SUFFIXES = {".py", ".ts", ".md", ".css"}
# A path-like word: folders and a file name with one of our files' extensions; not part of a longer path or a URL.
PATH_WORD = re.compile(r"(?<![\w./:-])((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.(?:py|ts|md|css|json|ipynb))\b")


def tracked(*where: str) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", *where], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / line for line in listed.stdout.splitlines()]


def our_folders() -> set[str]:
    """The names of the folders our files live in (the first folder of a path that names one of ours)."""
    folders = {"mgenv_jupyter", "labextension", "tests", "bench", "docs", "jupyter-config"}
    for path in tracked("mgenv_jupyter", "labextension/src", "tests"):
        folders.update(part for part in path.relative_to(ROOT).parts[:-1])
    return folders


def resolves(reference: str, naming_file: Path) -> bool:
    bases = [ROOT, PACKAGE, FRONT_END, FRONT_END / "sidebar", *naming_file.parents]
    return any((base / reference).exists() for base in bases)


def broken_references() -> list[str]:
    folders = our_folders()
    package_modules = {path.name for path in PACKAGE.rglob("*.py")}
    broken = []
    for path in tracked(*NAMING):
        if path.suffix not in SUFFIXES or not path.exists():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in PATH_WORD.finditer(line):
                reference = match.group(1)
                where = f"{path.relative_to(ROOT)}:{number}: {reference}"
                if "/" in reference:
                    if reference.split("/", 1)[0] in folders and not resolves(reference, path):
                        broken.append(where)
                elif reference.startswith("_") and reference.endswith(".py"):
                    if reference not in package_modules and path.is_relative_to(PACKAGE):
                        broken.append(where)
                elif reference.endswith(".py") and f"_{reference}" in package_modules and path.is_relative_to(PACKAGE):
                    broken.append(where)
    return broken


def test_every_file_a_docstring_or_comment_names_exists() -> None:
    assert broken_references() == []


def test_the_check_finds_a_renamed_module(tmp_path: Path) -> None:
    """The check itself: a path of ours that does not exist, a private module's bare name that does not, and a module
    named without its underscore are each found; a framework's own path and an existing file of ours are not."""
    folders = our_folders()
    assert {"memory", "oom", "sidebar", "tests"} <= folders
    naming = PACKAGE / "oom" / "_report.py"
    assert resolves("memory/_sampler.py", naming) and resolves("_free.py", naming)
    assert not resolves("presentation/" + "_sweep_view.py", naming)  # split: this file names no missing path itself
    assert "torch" not in folders  # torch/cuda/memory.py is PyTorch's, cited, never ours
    words = [m.group(1) for m in PATH_WORD.finditer("see server/_gpu_view.py, gpu_view.py and https://x.org/a.py")]
    assert words == ["server/_gpu_view.py", "gpu_view.py"]
