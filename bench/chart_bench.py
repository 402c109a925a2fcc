"""Chart redraw in headless Chromium: the built memory_chart.js module with 100,000 points per series (target:
≤ 16 ms a redraw, one frame at 60 Hz), next to 10,000 points in the same run.

Run: `python -m bench.chart_bench` (needs Debian's Chromium and Playwright, as the browser tests).
"""

from __future__ import annotations

import functools
import http.server
import shutil
import statistics
import tempfile
import threading
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "mgenv_jupyter" / "static"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SERIES = 3
REDRAWS = 40

HARNESS = """<!doctype html><html><head><link rel="stylesheet" href="memory_chart.css"></head>
<body><div id="root" style="width: 1000px"></div><script type="module">
import chart from './memory_chart.js';
const model = {get: k => ({title: 'bench', height: 300})[k], on() {}, off() {}, send() {}};
const el = document.getElementById('root');
chart.render({model, el});
window.measure = (points, redraws) => {
  const t = [], columns = {}, series = [];
  for (let s = 0; s < %(series)d; s++) {
    const key = 'gpu' + s + ' used';
    series.push({key, device: 'gpu' + s, quantity: 'used', source: 'bench', simulated: true});
    columns[key] = [];
  }
  const start = 1.7e9;
  for (let i = 0; i < points; i++) {
    t.push(start + i * 0.1);
    for (let s = 0; s < %(series)d; s++) {
      columns['gpu' + s + ' used'].push(1e9 * (s + 1) + 5e8 * Math.sin(i / 500 + s) + (i %% 97) * 1e6);
    }
  }
  el.mgenvChart.receive({type: 'memory.snapshot', seq: 0, interval: 0.1, t, columns, cells: [], series,
                         sources: [], overlays: [{key: 'total', kind: 'total', device: 'gpu0', bytes: 4e9,
                         label: 'total', short: 'total', note: ''}]});
  el.mgenvChart.redrawNow();
  const times = [];
  for (let i = 0; i < redraws; i++) times.push(el.mgenvChart.redrawNow());
  return times;
};
window.ready = true;
</script></body></html>
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def measure() -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        for name in ("memory_chart.js", "memory_chart.css"):
            shutil.copy(STATIC / name, folder)
        Path(folder, "index.html").write_text(HARNESS % {"series": SERIES})
        handler = functools.partial(_QuietHandler, directory=folder)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
                page = browser.new_page(viewport={"width": 1200, "height": 800})
                page.goto(f"http://127.0.0.1:{server.server_port}/index.html")
                page.wait_for_function("() => window.ready === true")
                small = page.evaluate(f"() => window.measure(10000, {REDRAWS})")
                large = page.evaluate(f"() => window.measure(100000, {REDRAWS})")
                browser.close()
        finally:
            server.shutdown()
    s, lg = statistics.median(small), statistics.median(large)
    return {"small_ms": s, "large_ms": lg, "large_p90_ms": sorted(large)[int(0.9 * len(large))], "ratio": lg / s}


def report() -> str:
    r = measure()
    return "\n".join([
        "## Chart redraw (issue 4)",
        "",
        "| what | measured | side by side | target |",
        "|---|---|---|---|",
        f"| one redraw, {SERIES} series × 100,000 points, headless Chromium | {r['large_ms']:.1f} ms median "
        f"(p90 {r['large_p90_ms']:.1f} ms) | 10,000 points: {r['small_ms']:.1f} ms (×{r['ratio']:.1f}) | ≤ 16 ms |",
        "",
        f"Median of {REDRAWS} redraws of the built `memory_chart.js` (uPlot), data already in the chart; "
        "redraws are coalesced to one per animation frame however many batches arrive.",
    ])


if __name__ == "__main__":
    print(report())
