"""Hostile text against the patterns that meet it (issue 19): the last landing's patterns and the package's, side by
side in one run, on the crafted inputs of the issue's finding 3.

    .venv/bin/python bench/untrusted_text_bench.py

Before: `RESOURCE_EXHAUSTED:.*(?:out of memory|GPU_(\\d+)_bfc)` searched over the whole message, and the JWT pattern
`\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*`, as the last landing had them (copied here).
After: the package's `recognise` (which searches the first 64 Ki characters, the cause from past the marker) and
`redact`.
"""

from __future__ import annotations

import re
import time

from mgenv_jupyter.catalog._secrets import is_secret_value, redact
from mgenv_jupyter.oom._recognise import recognise

OLD_JAX = re.compile(r"RESOURCE_EXHAUSTED:.*(?:out of memory|GPU_(?P<gpu>\d+)_bfc)", re.I | re.S)
OLD_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")
# Named as JAX's, so that recognise takes it for one.
JaxRuntimeError = type("JaxRuntimeError", (RuntimeError,), {"__module__": "jax.errors"})


def seconds(run, text: str) -> float:
    start = time.perf_counter()
    run(text)
    return time.perf_counter() - start


def main() -> None:
    print("| input | characters | before (s) | after (s) | before / after |")
    print("|---|---|---|---|---|")
    for size in (14_000, 28_000, 57_000):
        text = "RESOURCE_EXHAUSTED: " * (size // 20)
        before = seconds(OLD_JAX.search, text)
        after = seconds(lambda t: recognise(JaxRuntimeError(t)), text)
        print(f"| crafted JAX message | {len(text):,} | {before:.3f} | {after:.4f} | {before / after:,.0f}× |")
    for size in (12_500, 25_000, 50_000):
        text = "eyJ-" * (size // 4)
        before = seconds(OLD_JWT.search, text)
        after = seconds(lambda t: (is_secret_value(t), redact(t)), text)
        print(f"| `eyJ-` runs (a value) | {len(text):,} | {before:.3f} | {after:.4f} | {before / after:,.0f}× |")


if __name__ == "__main__":
    main()
