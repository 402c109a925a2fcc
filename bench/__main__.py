"""Run every benchmark side by side and rewrite bench/RESULTS.md."""

from __future__ import annotations

import platform
import time
from pathlib import Path

from . import (
    chart_bench,
    cluster_bench,
    env_bench,
    footprint_bench,
    gil_bench,
    holders_bench,
    hub_bench,
    memory_bench,
    memtrace_bench,
    oom_bench,
    sampler_bench,
    server_gpus_bench,
    sidebar_bench,
)


def main() -> None:
    sections = [env_bench.report(), memory_bench.report(), chart_bench.report(), sidebar_bench.report(),
                sampler_bench.report(), oom_bench.report(), cluster_bench.report(), footprint_bench.report(),
                gil_bench.report(), holders_bench.report(), server_gpus_bench.report(), hub_bench.report(),
                memtrace_bench.report()]
    header = (f"# Benchmark results\n\nRecorded {time.strftime('%Y-%m-%d')} by `./dev bench` on {platform.machine()}, "
              f"{platform.python_implementation()} {platform.python_version()}, "
              f"{len(__import__('os').sched_getaffinity(0))} cores. Ratios are measured side by side in one run.\n")
    text = header + "\n" + "\n\n".join(sections) + "\n"
    Path(__file__).with_name("RESULTS.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
