"""Benchmarks. `python -m bench` runs them all and rewrites bench/RESULTS.md; each module runs alone too."""
