"""How soon a cell's badge appears after the cell ends (issue 32), in real JupyterLab and Chromium: a notebook's
kernel with mgenv_jupyter loaded runs a small cell 15 times; for each run the page notes when the kernel's
execute_reply arrived (the moment the front end learns the cell ended and shows its number) and when the badge was
drawn (the cell's metadata written from the kernel's record), and, on the kernel's clock, when the kernel made the
record (the same machine: one clock).

    python -m bench.cell_badge_bench
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 15

SETUP_JS = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const kernel = panel.sessionContext.session.kernel;
    kernel.anyMessage.connect((_, args) => {
        if (args.direction === 'recv' && args.msg.header.msg_type === 'execute_reply') {
            window.__replyAt = performance.now();
        }
    });
    const cell = panel.content.widgets[1];
    cell.model.metadataChanged.connect(() => {
        requestAnimationFrame(() => { window.__badgeAt = performance.now(); window.__badgeEpoch = Date.now(); });
    });
}"""


def report() -> str:
    sys.path.insert(0, str(ROOT / "tests"))
    from lab_server import chromium_page, open_notebook, run_cell, running_lab, write_notebook

    after_reply, after_record = [], []
    with tempfile.TemporaryDirectory() as tmp, running_lab(Path(tmp)) as lab:
        name = write_notebook(lab, "bench.ipynb", ["%load_ext mgenv_jupyter", "x = sum(range(100000))"])
        with chromium_page() as page:
            open_notebook(page, lab, name)
            run_cell(page, 0)
            page.wait_for_function("() => !!window.jupyterapp.shell.currentWidget.content.widgets[0]"
                                   ".model.getMetadata('mgenv_jupyter')", timeout=60_000)
            page.evaluate(SETUP_JS)
            for _ in range(RUNS):
                page.evaluate("() => { window.__replyAt = null; window.__badgeAt = null; }")
                run_cell(page, 1)
                page.wait_for_function("() => window.__replyAt !== null && window.__badgeAt !== null",
                                       timeout=60_000)
                got = page.evaluate("""() => ({reply: window.__replyAt, badge: window.__badgeAt,
                    epoch: window.__badgeEpoch,
                    made: window.jupyterapp.shell.currentWidget.content.widgets[1].model
                        .getMetadata('mgenv_jupyter').memory.time})""")
                after_reply.append(got["badge"] - got["reply"])
                after_record.append(got["epoch"] - got["made"] * 1000)
                time.sleep(0.3)
    return "\n".join([
        f"| a cell's badge drawn, after the cell's execute_reply reached the page (median of {RUNS}; range) | "
        f"{statistics.median(after_reply):+.0f} ms ({min(after_reply):+.0f} to {max(after_reply):+.0f}) | "
        f"after the kernel made its record: {statistics.median(after_record):.0f} ms "
        f"({min(after_record):.0f} to {max(after_record):.0f}) | ≤ 100 ms |",
    ])


if __name__ == "__main__":
    print(report())
