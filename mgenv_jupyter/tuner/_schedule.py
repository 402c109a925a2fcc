"""Running a sweep's points on the slots the machine has: one point per GPU at a time, each pinned to its GPU, or
one point at a time where there is no GPU. N points on K GPUs finish in ⌈N/K⌉ rounds of the slowest point.

Points run on worker threads (one per slot); the sweeping cell's thread waits. Interrupting the cell ends every
running point (their guards kill their process trees), keeps the finished ones and marks the rest "not run".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from ._point import Outcome, PointResult, failed_point

log = logging.getLogger(__name__)

RunPoint = Callable[[int, "int | None", threading.Event], PointResult]  # (job index, gpu, cancelled) → result
OnPoint = Callable[[PointResult], None]


def run_on_slots(count: int, slots: Sequence[int | None], run_point: RunPoint,
                 placeholder: Callable[[int, int | None], PointResult], on_point: OnPoint | None = None
                 ) -> tuple[list[PointResult], bool]:
    """Run points 0 … count-1, each on the first free slot (a GPU index, or None for no pinning); `on_point` hears
    of each as it ends. Returns the points in order, and whether the sweep was interrupted (then the points that
    never ran come from `placeholder`)."""
    results: dict[int, PointResult] = {}
    lock = threading.Lock()
    next_job = iter(range(count))
    cancelled = threading.Event()
    done = threading.Event()
    running = [len(slots)]

    def worker(gpu: int | None) -> None:
        try:
            while not cancelled.is_set():
                with lock:
                    index = next(next_job, None)
                if index is None:
                    return
                try:
                    result = run_point(index, gpu, cancelled)
                except Exception:  # a harness failure is one point's, never the sweep's
                    log.exception("sweep point %d failed in the harness", index)
                    result = placeholder(index, gpu)
                    result = failed_point(result.index, result.values, result.environment, Outcome.CRASHED, None,
                                          gpu=gpu)
                with lock:
                    results[index] = result
                if on_point is not None:
                    try:
                        on_point(result)
                    except Exception:  # a figure that cannot update must not stop the sweep
                        log.exception("a sweep observer failed")
        finally:
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
        for thread in threads:  # each ends its own point's kernel (a few seconds at most)
            thread.join()
    points = [results[index] if index in results else placeholder(index, None) for index in range(count)]
    return points, interrupted
