"""The wire is one schema (mgenv_jupyter/protocol): the TypeScript the front end compiles against is generated from it
(comms/_typescript_schema.py). That every message the kernel builds has exactly the schema's shape is checked in
tests/protocol/test_sidebar.py and test_memory.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import is_typeddict

from mgenv_jupyter.comms._typescript_schema import typescript
from mgenv_jupyter.protocol import _memory as memory
from mgenv_jupyter.protocol import _sidebar as sidebar

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_TS = ROOT / "labextension" / "src" / "schema.ts"


def test_the_typescript_is_generated_from_the_python_schema():
    """Fails when either side changes alone: regenerate with
    `python -m mgenv_jupyter.comms._typescript_schema > labextension/src/schema.ts`."""
    assert SCHEMA_TS.read_text(encoding="utf-8") == typescript()


def test_every_message_type_is_an_object_type_with_its_optional_keys_marked():
    # Type aliases, not interfaces: an object type has an implicit index signature, so a request is a JSON value to
    # comm.send without a cast.
    written = typescript()
    for module in (sidebar, memory):
        for name, value in vars(module).items():
            if is_typeddict(value) and value.__module__ == module.__name__:
                assert f"export type {name} = {{" in written, name
    assert "export type BatchMeta = {\n  series?: SeriesInfo[];\n  sources?: SourceState[];" in written
    assert "  before: number | null;\n" in written  # HistoryRequest.before: int | None
    assert "  columns: Record<string, (number | null)[]>;\n" in written  # int | float | None, once as number


def test_literals_become_unions_and_the_constants_come_along():
    written = typescript()
    assert "export type ProfileAction = 'set' | 'unchanged' | 'refused';" in written
    assert "export type Request = HelloRequest | SetRequest | UnsetRequest" in written
    assert f"export const PROTOCOL_VERSION = {sidebar.PROTOCOL_VERSION};" in written
    assert "export const MIN_INTERVAL = 0.01;\nexport const MAX_INTERVAL = 60;" in written
    assert '"already_read": {\n    "en": "already read, restart needed",\n    "zh": "已被读取,需重启"' in written


def test_the_module_writes_what_the_front_end_build_reads():
    done = subprocess.run([sys.executable, "-m", "mgenv_jupyter.comms._typescript_schema"], capture_output=True,
                          text=True, check=True, timeout=60)
    assert done.stdout == typescript()
