"""PyTorch's CUDA memory snapshot read into live blocks. No GPU here, so the snapshot is written by hand in the shape
`torch.cuda.memory._snapshot()` returns and torch/cuda/_memory_viz.py reads (segments with their blocks' state,
size, address and frames innermost first; device_traces with alloc / free_requested / free_completed events): what
this tests is our reading of that documented shape, not PyTorch's output (tests/gpu does that on a lent GPU)."""

from __future__ import annotations

from mgenv_jupyter.runtime.frameworks._torch import snapshot_record

MiB = 1 << 20


def _frames(line: int) -> list[dict]:
    return [{"filename": "/site-packages/torch/nn/modules/linear.py", "line": 125, "name": "forward"},
            {"filename": "/tmp/ipykernel_1/123.py", "line": line, "name": "<module>"}]


SNAPSHOT = {
    "segments": [
        {"device": 0, "address": 0, "total_size": 64 * MiB, "blocks": [
            {"address": 0, "size": 2 * MiB, "requested_size": 2 * MiB, "state": "active_allocated",
             "frames": _frames(1)},  # alive before the history began: never in the trace
            {"address": 2 * MiB, "size": 4 * MiB, "state": "active_allocated", "frames": _frames(2)},
            {"address": 6 * MiB, "size": 16 * MiB, "state": "inactive", "frames": []},
        ]},
        {"device": 1, "address": 0, "total_size": 8 * MiB, "blocks": [
            {"address": 0, "size": 8 * MiB, "state": "active_pending_free", "frames": _frames(9)},
        ]},
    ],
    "device_traces": [
        [
            {"action": "segment_alloc", "addr": 0, "size": 64 * MiB, "frames": []},
            {"action": "alloc", "addr": 2 * MiB, "size": 4 * MiB, "frames": _frames(2)},
            {"action": "alloc", "addr": 6 * MiB, "size": 16 * MiB, "frames": _frames(3)},  # the temporary
            {"action": "free_requested", "addr": 6 * MiB, "size": 16 * MiB, "frames": _frames(3)},
            {"action": "free_completed", "addr": 6 * MiB, "size": 16 * MiB, "frames": _frames(3)},
        ],
        [],
    ],
}


def _lines(record) -> dict[int, int]:
    return {block.frames[-1].line: block.bytes for block in record.blocks}


def test_now_is_the_active_blocks():
    record = snapshot_record(SNAPSHOT, at_peak=False)
    assert record.framework == "torch" and record.total == 6 * MiB
    assert _lines(record) == {1: 2 * MiB, 2: 4 * MiB}
    assert {block.device for block in record.blocks} == {"gpu0"}
    assert record.blocks[0].frames[0].function == "forward"  # innermost first, as PyTorch gives them


def test_the_peak_replays_the_trace_with_what_was_alive_before_it():
    record = snapshot_record(SNAPSHOT, at_peak=True)
    assert _lines(record) == {1: 2 * MiB, 2: 4 * MiB, 3: 16 * MiB}
    assert record.total == 22 * MiB


def test_an_empty_or_partial_snapshot_is_nothing():
    assert snapshot_record({}, at_peak=True).blocks == ()
    assert snapshot_record({"segments": [{"blocks": [{"state": "active_allocated"}]}]}, at_peak=False).total == 0
