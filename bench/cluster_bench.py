"""Every node's memory through Ray (issue 13): per-node sampling cost, and the latency from a node's reading to the
kernel's history, at 1 Hz and 10 Hz, side by side on one local cluster (a head and two nodes started with `ray start`
from .venvs/ray, tests/local_ray.py), each node on a simulated GPU.

- per-node cost: the NodeMemory actor's sampling thread (its CPU time per sample: the kernel's own memory sources run
  there), and the actor process's whole CPU share (Ray's streaming generator included);
- latency: from the node's reading (the sample's time) to its arrival in the kernel (transport), and to the kernel's
  sampler taking it into the history (what a chart waits). One machine, so one clock;
- the kernel process's CPU while three nodes stream into it.

`python -m bench.cluster_bench` prints the section; `./dev bench` puts it in bench/RESULTS.md. The driver half runs
with .venvs/ray's Python (`python bench/cluster_bench.py --driver`).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PRESETS = {"node_a": "a100-40gb", "node_b": "2xv100", "node_c": "no-process-memory"}
WINDOWS = {1.0: 20.0, 0.1: 10.0}  # interval → seconds measured


def driver() -> dict[str, Any]:
    """Run in .venvs/ray against RAY_ADDRESS: stream every node at each rate in turn and measure."""
    import os

    import psutil
    import ray

    from mgenv_jupyter import cluster
    from mgenv_jupyter.memory._sampler import Sampler

    ray.init(address=os.environ["RAY_ADDRESS"], log_to_driver=False)
    me = psutil.Process()
    results: dict[str, Any] = {}
    for interval, seconds in WINDOWS.items():
        sampler = Sampler([], interval=interval).start()  # the kernel's sampler, with only the nodes as sources
        watch = cluster.watch(interval, sampler=sampler, node_env={n: {"MGENV_SIMULATE_GPU": p}
                                                                   for n, p in PRESETS.items()})
        deadline = time.monotonic() + 60
        while not all(source.batches >= 3 for source in watch.sources.values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        actors = {label: psutil.Process(ray.get(watch.actor(label).pid.remote())) for label in PRESETS}
        start = {label: (source.cpu_seconds, source.sampled, len(source.latencies()),
                         len(source.transport_latencies()), actors[label].cpu_times())
                 for label, source in watch.sources.items()}
        kernel_cpu, began = me.cpu_times(), time.monotonic()
        time.sleep(seconds)
        elapsed = time.monotonic() - began
        kernel = me.cpu_times()
        nodes = {}
        for label, source in watch.sources.items():
            cpu0, sampled0, lat0, transport0, process0 = start[label]
            process1 = actors[label].cpu_times()
            nodes[label] = {
                "per_sample_us": (source.cpu_seconds - cpu0) / max(1, source.sampled - sampled0) * 1e6,
                "samples": source.sampled - sampled0,
                "actor_share": ((process1.user + process1.system) - (process0.user + process0.system)) / elapsed,
                "to_history": source.latencies()[lat0:],
                "transport": source.transport_latencies()[transport0:],
            }
        results[f"{interval:g}"] = {"nodes": nodes, "seconds": elapsed,
                                    "kernel_share": ((kernel.user + kernel.system)
                                                     - (kernel_cpu.user + kernel_cpu.system)) / elapsed}
        watch.close()
        sampler.close()
    ray.shutdown()
    return results


def measure() -> dict[str, Any] | None:
    sys.path.insert(0, str(ROOT / "tests"))
    import local_ray

    if not local_ray.available():
        return None
    with local_ray.LocalCluster(list(PRESETS)) as local:
        return local.run(Path(__file__).resolve(), "--driver", timeout=300)


def report() -> str:
    results = measure()
    title = "## Every node's memory through Ray (issue 13)"
    if results is None:
        return f"{title}\n\nNot measured: .venvs/ray is missing (./dev setup makes it)."

    def ms(values: list[float], q: int) -> str:
        return f"{statistics.quantiles(values, n=100)[q - 1] * 1000:.1f}" if len(values) > 1 else "—"

    rows = [title, "",
            "Three nodes started with `ray start` on this machine (one CPU each), each streaming its simulated GPU "
            f"({', '.join(f'{n}: {p}' for n, p in PRESETS.items())}) from a NodeMemory actor through a Ray streaming "
            "generator into the kernel's sampler; both rates measured in the same run, one after the other.", "",
            "| rate | node | sampling per sample (actor thread) | actor process CPU | node → kernel p50 / p95 | "
            "node → history p50 / p95 | kernel process CPU |",
            "|---|---|---|---|---|---|---|"]
    for rate, label in (("1", "1 Hz"), ("0.1", "10 Hz")):
        run = results[rate]
        for i, (node, figures) in enumerate(run["nodes"].items()):
            rows.append(
                f"| {label if i == 0 else ''} | {node} | {figures['per_sample_us']:.0f} µs ({figures['samples']} "
                f"samples) | {figures['actor_share'] * 100:.2f}% of a core | {ms(figures['transport'], 50)} / "
                f"{ms(figures['transport'], 95)} ms | {ms(figures['to_history'], 50)} / "
                f"{ms(figures['to_history'], 95)} ms | {run['kernel_share'] * 100:.2f}% (3 nodes) |"
                if i == 0 else
                f"| | {node} | {figures['per_sample_us']:.0f} µs ({figures['samples']} samples) | "
                f"{figures['actor_share'] * 100:.2f}% of a core | {ms(figures['transport'], 50)} / "
                f"{ms(figures['transport'], 95)} ms | {ms(figures['to_history'], 50)} / "
                f"{ms(figures['to_history'], 95)} ms | |")
    ten, one = results["0.1"], results["1"]
    per_sample = {rate: statistics.median(f["per_sample_us"] for f in run["nodes"].values())
                  for rate, run in (("10", ten), ("1", one))}
    rows += ["", f"Side by side: the median node spends {per_sample['10']:.0f} µs per sample at 10 Hz and "
             f"{per_sample['1']:.0f} µs at 1 Hz, where every tick is also the once-a-second pass over the idle sources "
             "(framework allocators not imported), as in the kernel's sampler. Node → history includes the wait for "
             "the kernel sampler's next tick (up to one interval, fixed by the two clocks' phase); node → kernel is "
             "Ray's transport alone."]
    return "\n".join(rows)


if __name__ == "__main__":
    if "--driver" in sys.argv:
        print("RESULT " + json.dumps(driver()))
    else:
        print(report())
