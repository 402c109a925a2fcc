"""Out-of-memory forensics in a real Jupyter kernel (nbclient, ipykernel): the error output stays the cell's normal
traceback, the report is a display under it in the same cell with text and HTML, and %oom shows it again. The
simulated GPU climbs to its limit (tests/data/oom/fragmentation.json); the error is a stand-in named as PyTorch's
class, in PyTorch's wording (tests/data/cuda_facts_h100.json)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
MESSAGE = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 1.10 GiB "
           "is free. Including non-PyTorch memory, this process has 38.00 GiB memory in use. Of the allocated memory "
           "21.00 GiB is allocated by PyTorch, and 16.30 GiB is reserved by PyTorch but unallocated.")


def test_a_failing_cell_shows_its_traceback_then_the_report(tmp_path, monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", str(ROOT / "tests" / "data" / "oom" / "fragmentation.json"))
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext mgenv_jupyter"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell(
            # The failing cell runs for a while, as a training step does: the recorder samples the scenario's climb.
            "import time\ntime.sleep(1.5)\n"
            "OutOfMemoryError = type('OutOfMemoryError', (RuntimeError,), {'__module__': 'torch'})\n"
            f"raise OutOfMemoryError({MESSAGE!r})"),
        nbformat.v4.new_code_cell("%oom"),
        nbformat.v4.new_code_cell("import mgenv_jupyter\nr = mgenv_jupyter.last_oom()\n"
                                  "print(r.verdict.cause.value, r.remedies[0].envset, r.timeline.series)"),
    ])
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    failing = nb.cells[2].outputs
    kinds = [output.output_type for output in failing]
    assert kinds == ["error", "display_data"], kinds
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "".join(failing[0].traceback))
    assert failing[0].ename == "OutOfMemoryError" and "Traceback (most recent call last)" in traceback
    report = failing[1].data
    assert report["text/plain"].startswith("Out of memory on gpu0 (torch.OutOfMemoryError): 2 GiB asked for")
    assert "Verdict: fragmentation" in report["text/plain"] and "mgenv-oom" in report["text/html"]
    assert nb.cells[3].outputs[0].data["text/plain"].splitlines()[0] == report["text/plain"].splitlines()[0]
    assert nb.cells[4].outputs[0].text.strip() == (
        "fragmentation %envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True gpu0 (simulated) process")
