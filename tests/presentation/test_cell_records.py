"""A cell's memory for the front end and the note under a leaking cell: the notice has exactly the schema's shape
(protocol/_cells.py), and the note names what grew, or says that no variable did, in English and Chinese."""

from __future__ import annotations

from mgenv_jupyter.memory._cell_records import CellRecord, DeviceRecord, Leak
from mgenv_jupyter.presentation._cell_records import LeakNote, notice
from mgenv_jupyter.protocol._cells import CellMemoryNotice

from wire_check import check

MiB = 1 << 20


def _record(leak: Leak | None = None) -> CellRecord:
    return CellRecord("cell-1", 4, 1795760000.0, 1.25,
                      (DeviceRecord("gpu0 (simulated)", 3 * 1024 * MiB, MiB, 2 * MiB), DeviceRecord("host", 900 * MiB,
                                                                                                    None, 800 * MiB)),
                      simulated=True, leak=leak)


def test_the_notice_has_the_schemas_shape():
    leak = Leak("host", 3, (256 * MiB,) * 3, (("cache", 512 * MiB),))
    data = notice(_record(leak))
    check(data, CellMemoryNotice)
    record = data["record"]
    assert record["devices"][0] == {"device": "gpu0 (simulated)", "peak": 3 * 1024 * MiB, "kept": MiB,
                                    "before": MiB, "after": 2 * MiB}
    assert record["devices"][1]["kept"] is None and record["simulated"] is True
    assert record["leak"]["grew"] == [{"name": "cache", "bytes": 512 * MiB}] and record["previous"] is None


def test_the_leak_note_names_what_grew_or_says_nothing_did():
    named = LeakNote(_record(Leak("host", 3, (256 * MiB,) * 3, (("cache", 512 * MiB),))), "en").lines()
    assert named[0] == ("This cell keeps more memory each time it runs: 256 MiB, 256 MiB, 256 MiB kept on host by "
                        "its last 3 runs")
    assert named[1] == "  grew since the first of them: cache +512 MiB"
    unnamed = LeakNote(_record(Leak("gpu0", 3, (64 * MiB,) * 3, ())), "zh").lines()
    assert "在 gpu0 上" in unnamed[0] and "没有变量增长" in unnamed[1]
    assert LeakNote(_record(), "en").lines() == []
