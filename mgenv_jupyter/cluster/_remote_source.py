"""A node's memory, streamed from elsewhere, as a memory source of the kernel's sampler.

The transport is not this module's business: anything that yields a node's batches (`NodeBatch`: samples and the
node's source states) can feed a `RemoteSource` through `consume()`. Ray's streaming generators do it in
`node_memory`; a Dask queue could do the same. The kernel's sampler reads a `RemoteSource` like any other source, so
the node's series land in the kernel's history, labelled with the node: "node_b gpu0 process".

A stream that fails marks its node lost (its series stop, the others go on); a stream that goes quiet is said to be
so after `stale_seconds`.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import TypedDict

from ..base._source_state import LOST, OK, STATE_OK, State, problems
from ..memory._sample import Sample

LATENCIES_KEPT = 4096
ENDED = State("ended")  # the state of a source whose consumer closed it: an orderly end, never "lost"


class NodeState(TypedDict):
    name: str
    state: State
    idle: bool  # nothing to read there (a framework not imported, the host fallback while GPUs answer)
    simulated: bool
    simulation: str | None


class NodeBatch(TypedDict):
    """What a node sends per tick: its samples, its sources' states, and what sampling has cost it so far (the
    sampling thread's CPU seconds over `sampled` samples)."""

    samples: list[Sample]
    states: list[NodeState]
    cpu_seconds: float
    sampled: int


def _parts(name: str, state: State) -> list[State]:
    """A node's source's problem as parts of the node's state, the first after the source's name ("nvml: ...")."""
    parts = list(state.parts) or [state]
    first = parts[0]
    where = first.arg("where")
    return [first.at(f"{name}: {where}" if where else name), *parts[1:]]


class RemoteSource:
    """The memory of one remote node, relabelled with the node's label, for the kernel's sampler.

    `feed()` is called by the thread that reads the node's stream; `sample()` by the sampler, which gets the latest
    sample of each of the node's devices since its last call (memory is a level: the newest reading is the one that
    counts). `latencies()` holds, per sample the sampler took, the seconds from the node's reading to the sampler's
    (what the history waits); `transport_latencies()`, per sample that arrived, the seconds from the node's reading to
    its arrival here. Both compare the node's clock with the kernel's, which only agree on one machine or under NTP.
    """

    idle = False

    def __init__(self, label: str, stale_seconds: float = 5.0, *,
                 on_close: Callable[[], None] | None = None) -> None:
        self.label = label
        # Called once by close(): the sampler closes its sources when it closes, and what streams into this source
        # (a node's actor) must end with it.
        self._on_close = on_close
        self._ended = False
        self.name = f"{label} (remote)"
        self.stale_seconds = stale_seconds
        self._lock = threading.Lock()
        self._latest: dict[str, Sample] = {}
        self._states: list[NodeState] = []
        self._lost: str | None = None
        self._stopped = False
        self._last_batch: float | None = None
        self._latencies: deque[float] = deque(maxlen=LATENCIES_KEPT)
        self._transport: deque[float] = deque(maxlen=LATENCIES_KEPT)
        self.batches = 0
        self.cpu_seconds = 0.0
        self.sampled = 0

    # ---- fed by the stream's reader --------------------------------------------------------------------------

    def feed(self, batch: NodeBatch) -> None:
        arrived = time.time()
        with self._lock:
            if self._lost is not None or self._stopped:
                return
            for sample in batch["samples"]:
                self._latest[sample.label] = sample
                self._transport.append(arrived - sample.time)
            self._states = list(batch["states"])
            self.cpu_seconds, self.sampled = batch["cpu_seconds"], batch["sampled"]
            self._last_batch = time.monotonic()
            self.batches += 1

    def lose(self, reason: str) -> None:
        """The node is gone: its series stop here and its state says why."""
        with self._lock:
            if not self._stopped:
                self._lost = reason
                self._latest.clear()

    # ---- read by the sampler ---------------------------------------------------------------------------------

    @property
    def node(self) -> str:
        """The node's label: its series and its state are shown under it (the wire's `node`)."""
        return self.label

    @property
    def lost(self) -> str | None:
        return self._lost

    @property
    def simulated(self) -> bool:
        return any(state["simulated"] for state in self._states)

    @property
    def simulation(self) -> str | None:
        return next((state["simulation"] for state in self._states if state["simulation"]), None)

    @property
    def state(self) -> State:
        with self._lock:
            if self._lost is not None:
                return State(LOST, reason=self._lost)
            if self._ended:
                return ENDED
            if self._stopped:
                return State("stopped")
            if self._last_batch is None:
                return State("starting")
            quiet = time.monotonic() - self._last_batch
            if quiet > self.stale_seconds:
                return State("quiet", seconds=f"{quiet:.0f}")
            return problems(part for s in self._states if s["state"].code != OK and not s["idle"]
                            for part in _parts(s["name"], s["state"])) if self._states else STATE_OK

    def sample(self) -> list[Sample]:
        now = time.time()
        with self._lock:
            taken, self._latest = list(self._latest.values()), {}
            self._latencies.extend(now - sample.time for sample in taken)
        return [_relabelled(sample, self.label) for sample in taken]

    def latencies(self) -> list[float]:
        with self._lock:
            return list(self._latencies)

    def transport_latencies(self) -> list[float]:
        with self._lock:
            return list(self._transport)

    def finish(self) -> None:
        """The stream ended in order (the node was stopped): what arrived is still taken, nothing more comes."""
        with self._lock:
            self._stopped = True

    def close(self) -> None:
        """Its consumer is done with it: it takes nothing more, says "ended" (a node that was lost stays lost) and
        calls its `on_close` once."""
        with self._lock:
            self._stopped = self._ended = True
            self._latest.clear()
            on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()


def _relabelled(sample: Sample, label: str) -> Sample:
    return Sample(sample.time, f"{label} {sample.source}", sample.device, sample.used, sample.total, sample.process,
                  sample.allocated, sample.reserved, sample.peak, sample.simulated, node=label,
                  framework=sample.framework)


def consume(source: RemoteSource, stream: Iterable[NodeBatch],
            lost_reason: Callable[[BaseException], str | None] | None = None) -> None:
    """Feed `source` from `stream` until it ends (the node was stopped) or fails (the node is lost; `lost_reason`
    turns the error into words, or None when the failure is an orderly stop)."""
    try:
        for batch in stream:
            source.feed(batch)
    except BaseException as exc:  # noqa: B036 - whatever ended the stream, the node's state must say it
        reason = lost_reason(exc) if lost_reason is not None else f"{type(exc).__name__}: {exc}"
        if reason is not None:
            source.lose(reason)
        return
    source.finish()


def start_reader(source: RemoteSource, stream: Iterable[NodeBatch],
                 lost_reason: Callable[[BaseException], str | None] | None = None) -> threading.Thread:
    """`consume()` on a daemon thread of its own."""
    thread = threading.Thread(target=consume, args=(source, stream, lost_reason), daemon=True,
                              name=f"mgenv-remote-{source.label}")
    thread.start()
    return thread


def first_line(exc: BaseException, limit: int = 160) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:limit]


__all__ = ["ENDED", "NodeBatch", "NodeState", "RemoteSource", "consume", "first_line", "start_reader"]
