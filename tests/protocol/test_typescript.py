"""The wire is one schema (mgenv_jupyter/protocol): the TypeScript the front end compiles against is generated from it
(protocol/typescript.py). That every message the kernel builds has exactly the schema's shape is checked in
test_sidebar.py and test_memory.py beside this file."""

from __future__ import annotations

from pathlib import Path

from mgenv_jupyter.protocol.typescript import typescript

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_TS = ROOT / "labextension" / "src" / "schema.ts"


def test_the_typescript_is_generated_from_the_python_schema():
    """Fails when either side changes alone: regenerate with `python -m mgenv_jupyter.protocol > ...schema.ts`."""
    assert SCHEMA_TS.read_text(encoding="utf-8") == typescript()
