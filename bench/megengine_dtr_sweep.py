"""MegEngine's DTR on this machine's CPU, found by measuring it (issue 31): one `%%envsweep` of a real training step
(12 Linear layers of 512, a batch of 512, four steps) in a MegEngine kernel, DTR on or off (a variable the setup reads,
`MGENV_BENCH_DTR`), each on at two eviction thresholds. Every point is a fresh kernel; the frame is printed as
Markdown for bench/RESULTS.md.

    python bench/megengine_dtr_sweep.py      # needs .venvs/megengine (./dev setup) with ipykernel
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import megengine_step  # noqa: E402

# The test's training step (tests/megengine_step.py), DTR on where the bench's own variable says.
SETUP = "import os\n" + megengine_step.setup('if os.environ.get("MGENV_BENCH_DTR") == "on":\n    mge.dtr.enable()')
SWEEP = ("%%envsweep MGENV_BENCH_DTR=off,on MEGENGINE_DTR_EVICTION_THRESHOLD=16MB,1GB --repeat 3 --timeout 300 "
         "--setup-timeout 300\nfor _ in range(4):\n    loss = step()\n")
FACTS = """import json as _json
_frame = mgenv_jupyter.last_sweep().frame()
print("FRAME", _json.dumps(_frame.astype(object).where(_frame.notna(), None).to_dict("records")))"""


def main() -> None:
    python = ROOT / ".venvs" / "megengine" / "bin" / "python"
    with tempfile.TemporaryDirectory() as data:
        spec = Path(data) / "kernels" / "megengine-bench"
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "MegEngine (bench)", "language": "python"}))
        import os
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [data, os.environ.get("JUPYTER_PATH")]))
        cells = ["%load_ext mgenv_jupyter\nimport mgenv_jupyter", SETUP, SWEEP, FACTS]
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
        NotebookClient(nb, timeout=1200, kernel_name="megengine-bench", allow_errors=True).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    if "FRAME" not in text:
        sys.exit(f"no frame: {[o for c in nb.cells for o in c.outputs if o.output_type == 'error']}")
    rows = json.loads(text.split("FRAME", 1)[1].strip().splitlines()[0])
    print("| DTR | eviction threshold | outcome | seconds (median of 3) | peak host memory |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['MGENV_BENCH_DTR']} | {row['MEGENGINE_DTR_EVICTION_THRESHOLD']} | {row['outcome']} "
              f"| {row['seconds']:.2f} | {row['peak_host_bytes'] / 2**20:.0f} MiB |")


if __name__ == "__main__":
    main()
