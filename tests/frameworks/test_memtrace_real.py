"""Allocation sites with real JAX and PyTorch (CPU wheels), each in its own venv (tests/framework_checks/
memtrace_real.py): `%%memtrace` names the three lines that allocated, two of them inside a function defined in an
earlier cell, with their sizes, a trailing comment kept apart from them, and nothing written to standard error; a JAX
out-of-memory error (JAX's own RESOURCE_EXHAUSTED on the CPU) names the line that allocated what was live; PyTorch on
the CPU says how to turn recording on."""

from __future__ import annotations

import pytest

from framework_venvs import run

# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [("jax", "memtrace_real.py", "jax"), ("torch", "memtrace_real.py", "torch"),
             ("jax", "memtrace_real.py", "jax", "oom"), ("torch", "memtrace_real.py", "torch", "oom")]

MiB = 1 << 20


def _site(rows: list[dict], cell: int, line: int) -> dict:
    found = [row for row in rows if row["cell"] == cell and row["line"] == line]
    assert len(found) == 1, (cell, line, rows)
    return found[0]


@pytest.mark.parametrize("framework", ["jax", "torch"])
def test_memtrace_names_the_lines_and_their_sizes(framework: str) -> None:
    result = run(framework, "memtrace_real.py", framework)
    defined, traced = result["cells"]
    rows = result["rows"]
    assert result["columns"][:5] == ["cell", "line", "code", "bytes", "blocks"]
    expected = {(traced, 2): (8 * MiB, "a = "), (defined, 3): (4 * MiB, "x = "), (defined, 4): (12 * MiB, "y = ")}
    for (cell, line), (size, code) in expected.items():
        row = _site(rows, cell, line)
        assert abs(row["bytes"] - size) <= 0.05 * size, row
        assert row["code"].startswith(code), row
    if framework == "torch":  # a temporary freed before the end: the sites are the peak's, with it
        assert _site(rows, traced, 4)["bytes"] == 32 * MiB
    # The size before the code, which runs to the end of the line: a trailing comment no longer runs into the size
    # ("a = torch.zeros(2 << 20)  # 8 MiB (float32)  8 MiB in 1 block", issue 38).
    shown = result["shown"].splitlines()
    (line,) = [line for line in shown if line.startswith(f"  [{traced}] line 2")]
    assert line.startswith(f"  [{traced}] line 2, 8 MiB in 1 block") and line.endswith("  # 8 MiB (float32)")
    assert "): a = " in line or "block: a = " in line, line  # after the library frames folded, if any
    assert any(line.startswith(f"  [{defined}] line 4, 12 MiB in 1 block") for line in shown), shown
    # Nothing written to standard error, which a notebook shows as a red block under the cell: PyTorch's profiler
    # wrote "USDT: … profiler_start" and "… profiler_stop" there at every recorded cell (issue 38).
    assert result["stderr"] == ""
    if framework == "torch":  # its profiler recorded the NumPy cell, and none of it: NumPy is named, and why
        assert "so .frame() has no rows" in result["numpy_shown"], result["numpy_shown"]
        assert "NumPy keeps no record of where its arrays were allocated" in result["numpy_shown"]


def test_jax_out_of_memory_report_names_the_line() -> None:
    result = run("jax", "memtrace_real.py", "jax", "oom")
    assert result["error"] == "JaxRuntimeError" and result["report"]
    sites = result["sites"]
    assert sites is not None and sites["moment"] == "failure"
    largest = sites["sites"][0]
    assert (largest["line"], largest["bytes"]) == (4, 12 * MiB) and largest["code"].startswith("y = jnp.full")
    assert result["lines"][0] == "Where the memory was allocated:"
    assert any(" line 3, 4 MiB in 1 block" in line and line.endswith(": x = jnp.ones((n,), dtype='float32')")
               for line in result["lines"]), result["lines"]
    assert result["record_offer"] == []  # JAX records always: nothing to turn on


def test_torch_cpu_out_of_memory_report_says_how_to_record() -> None:
    result = run("torch", "memtrace_real.py", "torch", "oom")
    assert result["error"] == "RuntimeError" and result["report"]
    assert result["record_offer"] == ["torch"]
    hint = result["lines"][-1]
    assert "%memtrace on" in hint and "PyTorch" in hint
    again = result["again"]  # the advice followed: %memtrace on, the cell run again
    assert again["error"] == "RuntimeError" and again["record_offer"] == []
    lines = {(site["cell"], site["line"]): site["bytes"] for site in again["sites"]["sites"]}
    assert lines[(result["defined"], 4)] == 12 * MiB and lines[(result["defined"], 3)] == 4 * MiB
