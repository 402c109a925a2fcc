"""Points on slots: each slot runs one point at a time, every point runs once, results come back in order, and a
point whose harness fails is a crashed point while the others complete."""

from __future__ import annotations

import threading
import time

from mgenv_jupyter.tuner._point import Outcome, PointResult
from mgenv_jupyter.tuner._schedule import run_on_slots


def placeholder(index: int, gpu: int | None) -> PointResult:
    return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.NOT_RUN)


def test_one_point_per_slot_at_a_time_every_point_once_in_order():
    running: dict[int | None, int] = {}
    most: dict[int | None, int] = {}
    lock = threading.Lock()
    heard: list[int] = []

    def run_point(index: int, gpu: int | None, cancelled: threading.Event) -> PointResult:
        with lock:
            running[gpu] = running.get(gpu, 0) + 1
            most[gpu] = max(most.get(gpu, 0), running[gpu])
        time.sleep(0.05)
        with lock:
            running[gpu] -= 1
        return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.OK, runs=(0.05,), gpu=gpu)

    points, interrupted = run_on_slots(7, [0, 1, 2], run_point, placeholder, lambda p: heard.append(p.index))
    assert not interrupted and [p.index for p in points] == list(range(7)) and sorted(heard) == list(range(7))
    assert set(most) == {0, 1, 2} and max(most.values()) == 1
    assert {p.gpu for p in points} == {0, 1, 2}


def test_a_harness_failure_is_that_points_crash():
    def run_point(index: int, gpu: int | None, cancelled: threading.Event) -> PointResult:
        if index == 1:
            raise RuntimeError("the harness broke")
        return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.OK, runs=(0.01,))

    points, _ = run_on_slots(3, [None], run_point, placeholder)
    assert [p.outcome for p in points] == [Outcome.OK, Outcome.CRASHED, Outcome.OK]
