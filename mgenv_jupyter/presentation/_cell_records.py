"""A cell's memory for the front end and the note under a leaking cell, in English or Chinese: the record as the
cells' comm carries it (protocol/_cells.py; the badge's words are the front end's), and `LeakNote`, shown once under
a cell whose re-runs keep more memory each time, naming the variables that grew."""

from __future__ import annotations

from dataclasses import dataclass

from ..base._text import Text, current_language
from ..memory._cell_records import CellRecord
from ..protocol._cells import CELL_MEMORY_VERSION, CellMemoryNotice, CellMemoryRecord
from ._lines import TitledLines

LEAK = Text("This cell keeps more memory each time it runs: {kept} kept on {device} by its last {runs} runs",
            "此单元每次运行都保留更多内存:最近 {runs} 次运行在 {device} 上分别保留 {kept}")
GREW = Text("grew since the first of them: {grew}", "自其中第一次运行以来增长:{grew}")
NO_NAMES = Text("no variable of the notebook grew: what holds it is not a variable (a framework's cache, a module's "
                "state, a closure)", "笔记本中没有变量增长:占用内存的不是变量(框架缓存、模块状态或闭包)")
HOST = Text("host", "主机")
WAY_OUT = Text("del the variable (or clear the list) before running the cell again; %memholders lists what holds "
               "memory now", "再次运行前删除该变量(或清空列表);%memholders 列出当前占用内存的变量")


def notice(record: CellRecord) -> CellMemoryNotice:
    data: CellMemoryRecord = {
        "v": CELL_MEMORY_VERSION, "execution_count": record.execution_count, "time": round(record.time, 3),
        "duration": record.duration, "ok": record.ok, "simulated": record.simulated,
        "devices": [{"device": d.device, "peak": d.peak, "kept": d.kept, "before": d.before, "after": d.after}
                    for d in record.devices],
        "leak": None if record.leak is None else {
            "device": record.leak.device, "runs": record.leak.runs, "kept": list(record.leak.kept),
            "grew": [{"name": name, "bytes": size} for name, size in record.leak.grew]},
        "previous": None}
    return {"v": CELL_MEMORY_VERSION, "type": "cell_memory", "cell_id": record.cell_id, "record": data}


@dataclass(frozen=True, repr=False)
class LeakNote(TitledLines):
    HTML_CLASS = "mgenv-leak"

    record: CellRecord
    language: str | None = None

    def lines(self) -> list[str]:
        from ..catalog._values import format_size  # on a leak only: a record is sent without it

        lang = self.language or current_language()
        leak = self.record.leak
        if leak is None:
            return []
        device = HOST.get(lang) if leak.device == "host" else leak.device
        lines = [LEAK.get(lang).format(kept=", ".join(format_size(k) for k in leak.kept), device=device,
                                       runs=leak.runs)]
        if leak.grew:
            lines.append("  " + GREW.get(lang).format(
                grew=", ".join(f"{name} +{format_size(size)}" for name, size in leak.grew)))
        else:
            lines.append("  " + NO_NAMES.get(lang))
        lines.append("  " + WAY_OUT.get(lang))
        return lines
