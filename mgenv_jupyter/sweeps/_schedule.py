"""Running a sweep's points on the slots the machine has: one point per GPU at a time, each pinned to its GPU, or
one point at a time where there is no GPU. N points on K GPUs finish in ⌈N/K⌉ rounds of the slowest point.

A point has two stages: its start (a fresh kernel, the probe attached, the setup's first imports done) and its
measure (the setup, the measured cell, the kernel's end). Each slot starts its next points (AHEAD of them) while the
current one measures, so kernel starts hide behind the work; a slot measures one point at a time, so two points'
measured cells never overlap on one device.

Points run on worker threads (one per slot, and one per point starting); the sweeping cell's thread waits.
Interrupting the cell ends every running and starting point (their guards kill their process trees), keeps the
finished ones and marks the rest "not run"; interrupting again while they end changes nothing of that.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol

from ._point import Outcome, PointResult, failed_point

log = logging.getLogger(__name__)


class ReadyPoint(Protocol):
    """A point whose kernel is started: `measure()` runs it to its result and ends it; `discard()` ends it unused."""

    def measure(self) -> PointResult: ...

    def discard(self) -> None: ...


# How many points a slot keeps starting (or started, waiting) behind the one it measures: two, so that a kernel
# start longer than a cell (a loaded machine, a heavy import) is still hidden; each costs an idle kernel's memory.
# 0 starts each point only when the one before it has ended.
AHEAD = 2

StartPoint = Callable[[int, "int | None", threading.Event], ReadyPoint]  # (job index, gpu, cancelled) → started
OnPoint = Callable[[PointResult], None]


class _Starting:
    """One point starting on a thread of its own, while the slot's current point measures."""

    def __init__(self, start_point: StartPoint, index: int, gpu: int | None, cancelled: threading.Event) -> None:
        self.index = index
        self.ready: ReadyPoint | None = None
        self._thread = threading.Thread(target=self._start, args=(start_point, gpu, cancelled),
                                        name=f"mgenv-sweep-start-{index}", daemon=True)
        self._thread.start()

    def _start(self, start_point: StartPoint, gpu: int | None, cancelled: threading.Event) -> None:
        try:
            self.ready = start_point(self.index, gpu, cancelled)
        except Exception:  # a harness failure is one point's, never the sweep's
            log.exception("sweep point %d failed to start in the harness", self.index)

    def wait(self) -> ReadyPoint | None:
        self._thread.join()
        return self.ready


def run_on_slots(count: int, slots: Sequence[int | None], start_point: StartPoint,
                 placeholder: Callable[[int, int | None], PointResult], on_point: OnPoint | None = None
                 ) -> tuple[list[PointResult], bool]:
    """Run points 0 … count-1, each on the first free slot (a GPU index, or None for no pinning), the next one's
    start overlapping the current one's measure; `on_point` hears of each as it ends. Returns the points in order,
    and whether the sweep was interrupted (then the points that never ran come from `placeholder`)."""
    results: dict[int, PointResult] = {}
    lock = threading.Lock()
    next_job = iter(range(count))
    cancelled = threading.Event()
    done = threading.Event()
    running = [len(slots)]

    def take(gpu: int | None) -> _Starting | None:
        if cancelled.is_set():
            return None
        with lock:
            index = next(next_job, None)
        return None if index is None else _Starting(start_point, index, gpu, cancelled)

    def crashed(index: int, gpu: int | None) -> PointResult:
        result = placeholder(index, gpu)
        return failed_point(result.index, result.values, result.environment, Outcome.CRASHED, None, gpu=gpu)

    share = -(-count // max(len(slots), 1))  # ⌈N/K⌉: starting ahead never takes another slot's points

    def worker(gpu: int | None) -> None:
        behind: deque[_Starting] = deque()  # the slot's next points, starting or started, in order
        taken = [0]

        def start_next(ahead: bool) -> bool:
            if ahead and taken[0] >= share:
                return False
            starting = take(gpu)
            if starting is None:
                return False
            behind.append(starting)
            taken[0] += 1
            return True

        try:
            while True:
                if not behind and start_next(ahead=False) and AHEAD:  # idle: any point left is this slot's
                    start_next(ahead=True)  # and the slot's first two start together
                if not behind:
                    return
                current = behind.popleft()
                ready = current.wait()
                if cancelled.is_set():
                    if ready is not None:
                        ready.discard()
                    return
                while len(behind) < AHEAD and start_next(ahead=True):
                    pass  # the next points start while this one measures
                try:
                    result = ready.measure() if ready is not None else crashed(current.index, gpu)
                except Exception:  # a harness failure is one point's, never the sweep's
                    log.exception("sweep point %d failed in the harness", current.index)
                    result = crashed(current.index, gpu)
                with lock:
                    results[current.index] = result
                if on_point is not None:
                    try:
                        on_point(result)
                    except Exception:  # a figure that cannot update must not stop the sweep
                        log.exception("a sweep observer failed")
        finally:
            for starting in behind:  # interrupted, or a failure above: the points started ahead end unused
                ready = starting.wait()
                if ready is not None:
                    ready.discard()
            with lock:
                running[0] -= 1
                if running[0] == 0:
                    done.set()

    threads = [threading.Thread(target=worker, args=(gpu,), name=f"mgenv-sweep-slot-{slot}", daemon=True)
               for slot, gpu in enumerate(slots)]
    for thread in threads:
        thread.start()
    interrupted = False
    try:
        while not done.wait(0.1):
            pass
    except KeyboardInterrupt:
        interrupted = True
        cancelled.set()
        _join(threads)
    points = [results[index] if index in results else placeholder(index, None) for index in range(count)]
    return points, interrupted


def _join(threads: Sequence[threading.Thread]) -> None:
    """Wait for each slot to end its points (a few seconds at most), whatever further interrupts arrive: the sweep
    already stops, and leaving now would lose its result and leave its points to the guards."""
    for thread in threads:
        while thread.is_alive():
            try:
                thread.join()
            except KeyboardInterrupt:
                continue
