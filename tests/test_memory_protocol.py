"""The batch payload the chart consumes matches the TypedDicts in protocol.py, and importing the package stays cheap."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import typing

from mgenv_jupyter.memory import protocol
from mgenv_jupyter.memory.fake_nvml import FakeDevice, FakeNvml
from mgenv_jupyter.memory.nvml_source import NvmlSource
from mgenv_jupyter.memory.sampler import Sampler

GiB = 1024**3



def keys_of(typed_dict: type) -> tuple[set[str], set[str]]:
    hints = typing.get_type_hints(typed_dict)
    return set(typed_dict.__required_keys__) & set(hints), set(typed_dict.__optional_keys__) & set(hints)


def conforms(value: dict, typed_dict: type) -> None:
    required, optional = keys_of(typed_dict)
    assert required <= set(value) <= required | optional, (typed_dict.__name__, set(value) ^ required)


def test_batches_conform_to_the_protocol_types():
    with FakeNvml([FakeDevice(total=40 * GiB), FakeDevice(total=16 * GiB)]):
        sampler = Sampler([NvmlSource()])
        batches = []
        sampler.subscribe(batches.append)
        sampler.cells.start(1)
        sampler.sample_once()
        sampler.cells.finish()
        sampler.flush()
        sampler.sample_once()
        sampler.flush()
        snapshot = sampler.snapshot()
        sampler.close()
    for batch in [*batches, snapshot]:
        json.loads(json.dumps(batch, allow_nan=False))  # what Jupyter's comm layer will do
        conforms(batch, protocol.Batch if batch is not snapshot else protocol.Snapshot)
        assert batch["type"] == ("memory.batch" if batch is not snapshot else "memory.snapshot")
        assert all(len(column) == len(batch["t"]) for column in batch["columns"].values())
        for cell in batch["cells"]:
            conforms(cell, protocol.CellInfo)
        for series in batch.get("series", []):
            conforms(series, protocol.SeriesInfo)
            assert series["key"] == f"{series['device']} {series['quantity']}"
        for state in batch.get("sources", []):
            conforms(state, protocol.SourceState)
        for overlay in batch.get("overlays", []):
            conforms(overlay, protocol.OverlayInfo)
    first, second = batches
    assert {"series", "sources", "overlays"} <= set(first) and not {"series", "sources", "overlays"} & set(second)
    assert [c["end"] is None for c in first["cells"]] == [True, False]  # a cell appears when it starts and ends
    assert {s["key"] for s in first["series"]} == set(first["columns"])
    assert all(s["simulated"] for s in first["series"])


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, mgenv_jupyter, mgenv_jupyter.memory; "
            "print(sorted(m for m in ('numpy', 'pandas', 'pynvml', 'psutil') if m in sys.modules))")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stdout
    assert time.perf_counter() - started < 10
