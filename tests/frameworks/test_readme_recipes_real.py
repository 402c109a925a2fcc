"""README.md's recipes, run as a reader pastes them: each ```python block between `<!-- recipe: NAME -->` and
`<!-- /recipe -->` is a cell, run in order in a real IPython shell of the framework's venv
(tests/framework_checks/cells_in_a_shell.py), and each ```text block after a cell is what the README says it shows:
every line of it (but a "…" line, which says more follows) is a line of what the cell showed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from framework_venvs import run

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```(python|text)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def recipe(name: str) -> list[tuple[str, list[str]]]:
    """The recipe's cells, each with the lines the README says it shows."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"<!-- recipe: {name} -->")
    part = text[start:text.index("<!-- /recipe -->", start)]
    cells: list[tuple[str, list[str]]] = []
    for kind, body in _BLOCK.findall(part):
        if kind == "python":
            cells.append((body, []))
        else:
            assert cells, "a text block before any cell"
            cells[-1][1].extend(line.strip() for line in body.splitlines() if line.strip() and line.strip() != "…")
    return cells


def test_the_out_of_memory_recipe_shows_what_the_readme_says(tmp_path: Path) -> None:
    cells = recipe("out-of-memory")
    assert len(cells) == 3 and all(expected for _, expected in cells[1:])
    sources = tmp_path / "cells.json"
    sources.write_text(json.dumps([source for source, _ in cells]))
    shown = run("torch", "cells_in_a_shell.py", str(sources))["cells"]
    assert [cell["error"] for cell in shown] == [None, "OutOfMemoryError", None]
    for (source, expected), cell in zip(cells, shown, strict=True):
        lines = {line.strip() for line in cell["text"].splitlines()}
        missing = [line for line in expected if line not in lines]
        assert not missing, (source, missing, cell["text"])
