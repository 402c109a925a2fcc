"""The pprof format read with protobuf's runtime: a real device memory profile of JAX 0.10.2 on the CPU
(tests/data/jax_memory_profile.pb.gz, written by tests/data/jax_memory_profile.py, which it names line by line)."""

from __future__ import annotations

from pathlib import Path

from mgenv_jupyter.runtime.frameworks._pprof import samples

DATA = Path(__file__).resolve().parents[2] / "data"
PROFILE = (DATA / "jax_memory_profile.pb.gz").read_bytes()


def _buffers() -> list:
    return [s for s in samples(PROFILE) if s.labels.get("kind") == "buffer"]


def test_each_buffer_sample_has_its_values_labels_and_stack():
    by_line: dict[int, list] = {}
    for sample in _buffers():
        script = [frame for frame in sample.stack if frame[0].endswith("jax_memory_profile.py")]
        assert script, sample.stack
        by_line.setdefault(script[0][1], []).append((sample.values, sample.labels, script[0][2]))
    ((values, labels, function),) = by_line[8]  # inside make(), called from line 11
    assert values == {"allocations": 1, "space": 4 << 20} and labels["device"] == "cpu:0" and function == "make"
    # Three buffers from line 12: the first call's stack differs (it compiled), the other two share one sample.
    assert sorted(v["allocations"] for v, _, _ in by_line[12]) == [1, 2]
    assert sum(v["space"] for v, _, _ in by_line[12]) == 3 * 1024


def test_stacks_are_innermost_first():
    sample = next(s for s in _buffers() if s.values["space"] == 4 << 20)
    files = [frame[0].rsplit("/", 1)[-1] for frame in sample.stack]
    assert files.index("jax_memory_profile.py") > 0  # JAX's own frames come first
    assert [frame[1] for frame in sample.stack if frame[0].endswith("jax_memory_profile.py")] == [8, 11]


def test_the_plain_protobuf_reads_the_same():
    import gzip

    assert [s.values for s in samples(gzip.decompress(PROFILE))] == [s.values for s in samples(PROFILE)]


def test_garbage_is_refused_by_the_parser():
    import pytest
    from google.protobuf.message import DecodeError

    with pytest.raises(DecodeError):
        list(samples(b"\x0a\xff\xff\xff\xff\x0f"))
