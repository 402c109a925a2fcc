"""The server's GPU view on the wire (protocol/_gpus.py): its path sits under the server's base URL, and the generated
schema carries every type and constant the front end reads (test_typescript.py checks schema.ts is that schema)."""

from __future__ import annotations

from mgenv_jupyter.comms._typescript_schema import typescript
from mgenv_jupyter.protocol import _gpus as gpus


def test_the_path_is_relative_to_the_base_url():
    assert not gpus.GPUS_PATH.startswith("/") and gpus.GPUS_PATH.startswith("mgenv-jupyter/")


def test_schema_ts_has_the_view_its_parts_and_constants():
    generated = typescript()
    for name in ("GpuServerView", "GpuDeviceView", "GpuKernelShare", "GpuOtherProcess", "GpuKernelInfo"):
        assert f"export interface {name} {{" in generated or f"export type {name} = {{" in generated
    assert "export type PidNamespace = 'same' | 'foreign' | 'unknown';" in generated
    assert f"export const GPUS_PATH = '{gpus.GPUS_PATH}';" in generated
    assert "  others: GpuOtherProcess[];" in generated
