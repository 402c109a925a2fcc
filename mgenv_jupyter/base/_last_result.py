"""`LastResult`: the latest result of something the kernel does now and then (an out-of-memory report, a
`cluster.verify()` run), kept for whoever asks later, and handed at once to every observer (each open Framework Env
sidebar). Process-wide, like the kernel it belongs to; thread-safe, since results arrive from the sampler's and
IPython's threads."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class LastResult(Generic[T]):
    """The last value `remember`ed (None before the first), and the callbacks told of each new one. `what` names the
    result in the log when an observer fails."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._lock = threading.Lock()
        self._value: T | None = None
        self._observers: list[Callable[[T], None]] = []

    def remember(self, value: T) -> None:
        """Keep `value` as the last one and hand it to every observer; a failing observer is logged and skipped (a
        broken sidebar must not cost the user the result, nor the other sidebars theirs)."""
        with self._lock:
            self._value = value
            observers = list(self._observers)
        for callback in observers:
            try:
                callback(value)
            except Exception:
                log.exception("an observer of the last %s failed", self.what)

    def get(self) -> T | None:
        with self._lock:
            return self._value

    def forget(self) -> None:
        with self._lock:
            self._value = None

    def observe(self, callback: Callable[[T], None]) -> None:
        with self._lock:
            self._observers.append(callback)

    def observers(self) -> int:
        """How many callbacks are told of a new value now (each open sidebar is one)."""
        with self._lock:
            return len(self._observers)

    def unobserve(self, callback: Callable[[T], None]) -> None:
        """Stop telling `callback`; one never observed (or already removed) is ignored."""
        with self._lock:
            if callback in self._observers:
                self._observers.remove(callback)
