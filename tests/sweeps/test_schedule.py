"""Points on slots: each slot measures one point at a time while its next point starts, every point runs once,
results come back in order, and a point whose harness fails is a crashed point while the others complete."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from mgenv_jupyter.sweeps._point import Outcome, PointResult
from mgenv_jupyter.sweeps._schedule import run_on_slots


def placeholder(index: int, gpu: int | None) -> PointResult:
    return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.NOT_RUN)


class Ready:
    """A started point whose measure is `run`."""

    def __init__(self, run: Callable[[], PointResult]) -> None:
        self.run = run
        self.discarded = False

    def measure(self) -> PointResult:
        return self.run()

    def discard(self) -> None:
        self.discarded = True


def test_one_point_measured_per_slot_at_a_time_every_point_once_in_order():
    measuring: dict[int | None, int] = {}
    most: dict[int | None, int] = {}
    lock = threading.Lock()
    heard: list[int] = []

    def start_point(index: int, gpu: int | None, cancelled: threading.Event) -> Ready:
        def run() -> PointResult:
            with lock:
                measuring[gpu] = measuring.get(gpu, 0) + 1
                most[gpu] = max(most.get(gpu, 0), measuring[gpu])
            time.sleep(0.05)
            with lock:
                measuring[gpu] -= 1
            return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.OK, runs=(0.05,), gpu=gpu)

        return Ready(run)

    points, interrupted = run_on_slots(7, [0, 1, 2], start_point, placeholder, lambda p: heard.append(p.index))
    assert not interrupted and [p.index for p in points] == list(range(7)) and sorted(heard) == list(range(7))
    assert set(most) == {0, 1, 2} and max(most.values()) == 1
    assert {p.gpu for p in points} == {0, 1, 2}


def test_each_slot_starts_its_next_point_while_the_current_one_measures():
    started: dict[int, float] = {}
    measured: dict[int, tuple[float, float]] = {}

    def start_point(index: int, gpu: int | None, cancelled: threading.Event) -> Ready:
        started[index] = time.monotonic()

        def run() -> PointResult:
            begun = time.monotonic()
            time.sleep(0.1)
            measured[index] = (begun, time.monotonic())
            return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.OK, runs=(0.1,))

        return Ready(run)

    run_on_slots(3, [None], start_point, placeholder)
    assert started[1] < measured[0][1] and started[2] < measured[1][1]
    assert measured[0][1] <= measured[1][0] and measured[1][1] <= measured[2][0]  # never two measures at once


def test_a_harness_failure_is_that_points_crash():
    def start_point(index: int, gpu: int | None, cancelled: threading.Event) -> Ready:
        if index == 2:
            raise RuntimeError("the harness broke while starting")

        def run() -> PointResult:
            if index == 1:
                raise RuntimeError("the harness broke")
            return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.OK, runs=(0.01,))

        return Ready(run)

    points, _ = run_on_slots(4, [None], start_point, placeholder)
    assert [p.outcome for p in points] == [Outcome.OK, Outcome.CRASHED, Outcome.CRASHED, Outcome.OK]


def test_starting_ahead_never_takes_another_slots_points():
    """4 points on 4 GPUs are one round: a slot starting its next points ahead must not leave another slot idle."""
    for count, slots in ((4, [0, 1, 2, 3]), (2, [0, 1])):
        every_slot_started = threading.Event()
        started_on: set[int | None] = set()

        def start_point(index: int, gpu: int | None, cancelled: threading.Event, slots=slots,
                        started_on=started_on, every_slot_started=every_slot_started) -> Ready:
            started_on.add(gpu)
            if len(started_on) == len(slots):
                every_slot_started.set()

            def run() -> PointResult:
                every_slot_started.wait(5)  # each point measures once every slot has one (or could have had)
                return PointResult(index, {"X": str(index)}, {"X": str(index)}, Outcome.OK, runs=(0.0,), gpu=gpu)

            return Ready(run)

        points, _ = run_on_slots(count, slots, start_point, placeholder)
        per_slot = [sum(p.gpu == gpu for p in points) for gpu in slots]
        assert max(per_slot) == -(-count // len(slots)) and sum(per_slot) == count, (count, per_slot)
