"""Each cell's memory on the wire: the constants the front end reads are the schema's (generated into schema.ts), the
record the metadata keeps is the notice's record, and the one message a front end sends on the cells' comm (its
hello) is the schema's. And the out-of-memory report's "Record allocation sites" request ("memtrace") turns the
recording on in the kernel, a malformed one changing nothing."""

from __future__ import annotations

from pathlib import Path

from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.memory._memtrace import kernel_memtrace
from mgenv_jupyter.protocol import _cells as cells

ROOT = Path(__file__).resolve().parents[2]


def test_the_front_end_reads_the_schemas_constants():
    schema = (ROOT / "labextension" / "src" / "schema.ts").read_text()
    assert f"export const CELLS_TARGET = '{cells.CELLS_TARGET}';" in schema
    assert f"export const CELL_METADATA_KEY = '{cells.CELL_METADATA_KEY}';" in schema
    assert f"export const CELL_MEMORY_VERSION = {cells.CELL_MEMORY_VERSION};" in schema
    for name in ("CellMemoryNotice", "CellMemoryRecord", "CellsHello", "DeviceMemoryInfo", "LeakInfo"):
        assert f"export type {name} = {{" in schema


def test_the_notice_carries_the_record_the_metadata_keeps():
    from typing import get_type_hints

    assert get_type_hints(cells.CellMemoryNotice)["record"] is cells.CellMemoryRecord
    assert set(cells.CellMemoryRecord.__required_keys__) >= {"v", "devices", "leak", "previous", "time"}


def test_a_memtrace_request_turns_recording_on_and_off(ip, fresh_session):
    handler = RequestHandler(fresh_session)
    memtrace = kernel_memtrace(ip)
    (reply,) = handler.handle({"v": 1, "id": "m1", "type": "memtrace", "on": True})
    assert reply["type"] == "result" and memtrace.on
    (reply,) = handler.handle({"v": 1, "id": "m2", "type": "memtrace", "on": "yes"})
    assert reply["type"] == "error" and "'on' must be bool" in reply["message"] and memtrace.on
    (reply,) = handler.handle({"v": 1, "id": "m3", "type": "memtrace"})
    assert reply["type"] == "error" and "missing field 'on'" in reply["message"]
    (reply,) = handler.handle({"v": 1, "id": "m4", "type": "memtrace", "on": False})
    assert reply["type"] == "result" and not memtrace.on
