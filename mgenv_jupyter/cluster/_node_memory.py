"""Every node's memory in the kernel's history, through Ray: one actor per node, pinned there, runs the same memory
sources as the kernel on that node's GPUs and streams its readings back (a Ray streaming generator).

    cluster = mgenv_jupyter.cluster.watch(interval=0.1)   # after ray.init(...)
    MemoryChart.for_cluster(cluster)                      # an inline chart; closing it ends the watch
    kernel_sampler().history.frame()                      # "node_b gpu0 process", ... beside the kernel's own series
    cluster.states()                                      # per node: "ok", "lost: ...", "no data for 7 s"
    cluster.close()                                       # the actors go; the history stays

When the actors end:
- `close()`, or the last consumer it was bound to closing (`MemoryChart.for_cluster`, `close_with(widget)`), or the
  kernel's sampler closing (the extension unloaded): the actors are killed and each node's state says "ended", not
  "lost".
- The kernel stops, even killed: the actors are not detached, so they belong to the kernel's Ray job and Ray ends
  them when their owner, the driver, is gone (tests/ray_cluster checks both a clean exit and SIGKILL).
Each actor is named `ACTOR_PREFIX` + node label + the watch's id, so `live_watch_actors()` finds any left running.

A node that dies is marked lost and the other nodes go on streaming; a node that joins later gets its actor within
`rescan_seconds` (5 s; one `ray.nodes()` call each time). Each node needs mgenv_jupyter installed (its memory sources
run there).
"""

from __future__ import annotations

import logging
import math
import re
import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

from ..base._source_state import State, from_wire
from ..base._text import current_language
from ..memory._sample import QUANTITIES, MemorySource, Sample
from ..memory._state_words import state_text
from ._nodes import Node, alive_nodes, pinned
from ._remote_source import NodeBatch, NodeState, RemoteSource, first_line, start_reader

if TYPE_CHECKING:
    from ..memory._sampler import Sampler, Subscription

log = logging.getLogger(__name__)

ACTOR_PREFIX = "mgenv_jupyter.memory/"  # the start of every watch actor's name: "<prefix><node label>/<watch id>"

_HOUSEKEEPING_SECONDS = 1.0  # idle sources (a framework not imported) are asked once a second, as in the kernel


class NodeMemory:
    """Runs on one node as a Ray actor: the kernel's default memory sources (NVML or the simulated GPU that
    `MGENV_SIMULATE_GPU` in the actor's runtime_env asks for, the framework allocators, host memory as the fallback)
    sampled at the rate the kernel asks for."""

    def __init__(self) -> None:
        from ..memory._sources import default_sources

        # The actor's own process tree is no user's: the node's host is charted only while it has no GPU.
        self.sources: list[MemorySource] = default_sources(host_fallback=True)
        self._stop = threading.Event()
        self.cpu_seconds = 0.0  # the sampling thread's CPU time spent reading sources
        self.sampled = 0

    def stream(self, interval: float) -> Iterator[dict[str, Any]]:
        """Yield a batch every `interval` seconds until `stop()`: a `NodeBatch` as sent (each state as `State.wire()`
        gives it), which the kernel takes through `checked_batch`."""
        next_tick = time.monotonic()
        last_housekeeping = -float("inf")
        active: list[MemorySource] = []
        states: list[dict[str, Any]] = []  # NodeState with its state as the wire has it (`State.wire()`)
        while not self._stop.is_set():
            began = time.thread_time()
            housekeeping = time.monotonic() - last_housekeeping >= _HOUSEKEEPING_SECONDS
            samples: list[Sample] = []
            for source in self.sources if housekeeping else active:
                try:
                    samples.extend(source.sample())
                except Exception:  # sources promise not to raise; one that does must not end the stream
                    log.exception("memory source %r failed", source)
            if housekeeping:
                last_housekeeping = time.monotonic()
                active = [source for source in self.sources if not getattr(source, "idle", False)]
                states = [{"name": s.name, "state": s.state.wire(), "idle": bool(getattr(s, "idle", False)),
                           "simulated": bool(getattr(s, "simulated", False)),
                           "simulation": getattr(s, "simulation", None)} for s in self.sources]
            self.cpu_seconds += time.thread_time() - began
            self.sampled += 1
            yield {"samples": samples, "states": states, "cpu_seconds": self.cpu_seconds, "sampled": self.sampled}
            next_tick += interval
            delay = next_tick - time.monotonic()
            if delay < 0:  # fell behind: carry on from now rather than bursting to catch up
                next_tick, delay = time.monotonic(), 0.0
            self._stop.wait(delay)

    def stop(self) -> None:
        self._stop.set()

    def pid(self) -> int:
        import os

        return os.getpid()


class ClusterMemory:
    """One `NodeMemory` actor per alive node, each node's readings fed into the kernel's sampler as a `RemoteSource`
    labelled with the node (see `nodes`).

    `node_env`: extra environment for a node's actor, by node label (the simulated GPU of each node in tests and
    demos: `{"node_b": {"MGENV_SIMULATE_GPU": "2xv100"}}`), passed through the actor's runtime_env. `stale_seconds`:
    how long a node may be silent before its state says so (default: 20 intervals, at least 3 s). `rescan_seconds`:
    how often the alive nodes are listed again, so a node that joins later gets its actor too (None: never).
    """

    def __init__(self, interval: float = 0.1, *, sampler: Sampler | None = None,
                 node_env: Mapping[str, Mapping[str, str]] | None = None, stale_seconds: float | None = None,
                 rescan_seconds: float | None = 5.0) -> None:
        from ..protocol import checked_interval

        self.interval = checked_interval(interval)
        self._sampler = sampler
        self.node_env = {label: dict(env) for label, env in (node_env or {}).items()}
        self.stale_seconds = stale_seconds if stale_seconds is not None else max(3.0, 20 * self.interval)
        if rescan_seconds is not None and not (isinstance(rescan_seconds, (int, float)) and rescan_seconds > 0):
            from ..base._errors import InvalidValueError

            raise InvalidValueError(f"rescan_seconds must be a positive number of seconds or None, not "
                                    f"{rescan_seconds!r}")
        self.rescan_seconds = rescan_seconds
        self.nodes: list[Node] = []
        # Replaced, never changed in place, when a node joins: a reader iterating the old dict is not disturbed.
        self.sources: dict[str, RemoteSource] = {}
        self._actors: dict[str, Any] = {}
        self._names: dict[str, str] = {}
        self._threads: list[threading.Thread] = []
        self._subscription: Subscription | None = None
        self._closing = False
        self._started = False
        self._bound = 0  # consumers that close_with() tied this watch to and that are still open
        self._lock = threading.Lock()
        self._stop_rescan = threading.Event()
        self._rescanner: threading.Thread | None = None
        self.id = secrets.token_hex(4)  # in the actors' names: this watch's actors, not another kernel's

    @property
    def sampler(self) -> Sampler:
        if self._sampler is None:
            from ..memory._shared import kernel_sampler

            self._sampler = kernel_sampler()
        return self._sampler

    def start(self) -> ClusterMemory:
        with self._lock:
            if self._started or self._closing:
                return self
            nodes = alive_nodes()
            unknown = set(self.node_env) - {node.label for node in nodes}
            if unknown:
                from ..base._errors import InvalidValueError

                raise InvalidValueError("node_env names nodes that are not in the cluster: "
                                        + ", ".join(sorted(unknown)))
            self._started = True
            for node in nodes:
                self._start_node(node)
            sampler = self.sampler
            sampler.sources.extend(self.sources.values())  # the sampler reads them from its next housekeeping on
            self._subscription = sampler.subscribe(None, interval=self.interval)
        if self.rescan_seconds is not None:
            self._rescanner = threading.Thread(target=self._rescan, daemon=True, name="mgenv-cluster-rescan")
            self._rescanner.start()
        return self

    def _start_node(self, node: Node) -> RemoteSource:
        """An actor pinned to `node` and the source it feeds (with the lock held)."""
        import ray

        label = node.label
        old = self.sources.get(label)
        if old is not None and old.lost is None:  # the label is taken by an alive node: tell the new one apart
            label = f"{label}/{node.id[:6]}"
        name = f"{ACTOR_PREFIX}{label}/{self.id}" + ("" if old is None else f"/{node.id[:6]}")
        # Not detached (Ray's default): the actor dies with this driver. Named only to be found.
        options: dict[str, Any] = {"scheduling_strategy": pinned(node), "num_cpus": 0, "max_concurrency": 2,
                                   "name": name}
        if node.label in self.node_env:
            options["runtime_env"] = {"env_vars": self.node_env[node.label]}
        actor = ray.remote(NodeMemory).options(**options).remote()
        # The sampler closes its sources when it closes: the actors end then too.
        source = RemoteSource(label, self.stale_seconds, on_close=self.close)
        stream = actor.stream.options(num_returns="streaming").remote(self.interval)
        self.nodes = [*self.nodes, node]
        self._actors = {**self._actors, label: actor}
        self._names = {**self._names, label: name}
        self.sources = {**self.sources, label: source}
        self._threads.append(start_reader(source, _batches(stream), self._lost_reason))
        return source

    def _rescan(self) -> None:
        """Every `rescan_seconds`: an actor for each node that joined since (a node that rejoins after it was lost
        takes its label back, its series going on under it)."""
        assert self.rescan_seconds is not None
        while not self._stop_rescan.wait(self.rescan_seconds):
            try:
                joined = [node for node in alive_nodes() if node.id not in {known.id for known in self.nodes}]
                if not joined:
                    continue
                with self._lock:
                    if self._closing:
                        return
                    added = [(self.sources.get(node.label), self._start_node(node)) for node in joined]
                sampler = self.sampler
                replaced = {id(old) for old, _ in added if old is not None and old.lost is not None}
                sampler.sources = [source for source in sampler.sources if id(source) not in replaced]
                sampler.sources.extend(new for _, new in added)
                log.info("cluster watch: %d node(s) joined: %s", len(added), ", ".join(n.label for n in joined))
            except Exception:  # Ray shut down or the cluster unreachable: try again later, never end the kernel
                log.debug("cluster watch: listing the nodes failed", exc_info=True)

    def _lost_reason(self, exc: BaseException) -> str | None:
        return None if self._closing else first_line(exc)

    def states(self) -> dict[str, str]:
        """Per node label, its state in words, in the session's language: "ok", "starting", "lost: ...", "no data for
        N s", or a source's problem."""
        language = current_language()
        return {label: state_text(source.state, language) for label, source in self.sources.items()}

    def actor(self, label: str) -> Any:
        """The Ray actor sampling node `label` (its `pid()` says which process it is)."""
        return self._actors[label]

    def actor_names(self) -> list[str]:
        """The Ray names of this watch's actors (see `live_watch_actors()`)."""
        return list(self._names.values())

    @property
    def closed(self) -> bool:
        return self._closing

    def close_with(self, consumer: Any) -> ClusterMemory:
        """End this watch when `consumer` closes: anything with `on_close(callback)`, such as a `MemoryChart`. Bound
        to several, it ends when the last of them closes."""
        with self._lock:
            if self._closing:
                raise RuntimeError("this watch is closed; start a new one with watch()")
            self._bound += 1
        consumer.on_close(self._consumer_closed)
        return self

    def _consumer_closed(self) -> None:
        with self._lock:
            self._bound -= 1
            last = self._bound <= 0
        if last:
            self.close()

    def close(self) -> None:
        """End the actors and take the nodes' sources out of the sampler; their series stay in the history and each
        node's state says "ended" (a node lost before stays lost). Idempotent."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            actors, self._actors = dict(self._actors), {}
        self._stop_rescan.set()
        if self._rescanner is not None and self._rescanner is not threading.current_thread():
            self._rescanner.join(10.0)
        if actors:
            import ray

            for actor in actors.values():
                try:
                    ray.kill(actor, no_restart=True)
                except Exception:  # already dead with its node, or Ray is shut down (and the actor with it)
                    pass
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(5.0)
        mine = set(map(id, self.sources.values()))
        if mine:  # started: the sampler is known
            sampler = self.sampler
            sampler.sources = [source for source in sampler.sources if id(source) not in mine]
        for source in self.sources.values():
            source.close()
        if self._subscription is not None:
            self._subscription.close()

    def __enter__(self) -> ClusterMemory:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _batches(stream: Any) -> Iterator[NodeBatch]:
    """The batches of a Ray streaming generator, as they come, each checked (`checked_batch`)."""
    import ray

    for ref in stream:
        yield checked_batch(ray.get(ref))


# What a node may send: its readings become series of the kernel's history and its states are shown, so a buggy node
# (or one running another version) must not fill the kernel's memory, break its sampler or write anything on its page.
MAX_DEVICES = 256  # readings per batch (a node's GPUs times its frameworks, and the host)
MAX_STATES = 64
MAX_BYTES = 1 << 62  # no device holds more; larger is nonsense (and beyond the history's float64 precision anyway)
_DEVICE = re.compile(r"[A-Za-z0-9_.:()/\[\] -]{1,80}")
_TEXT_CHARS = 300
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
REFUSED_STATE = "mgenv_jupyter (node's readings)"


def checked_batch(batch: Any) -> NodeBatch:
    """A node's batch as the kernel takes it: readings whose sizes are whole numbers of bytes (0 to 2**62), whose time
    is finite and whose device name is a short plain label, at most `MAX_DEVICES` of them; states as short single-line
    text. What is refused is said in one more state (a problem of the node's, shown by `ClusterMemory.states()`), never
    quoted."""
    if not isinstance(batch, dict):
        return {"samples": [], "states": [_refused(State("batch_refused", kind=type(batch).__name__))],
                "cpu_seconds": 0.0, "sampled": 0}
    raw_samples = batch.get("samples")
    raw_samples = raw_samples if isinstance(raw_samples, list) else []
    samples: list[Sample] = []
    refused = 0
    for raw in raw_samples:
        sample = _checked_sample(raw) if len(samples) < MAX_DEVICES else None
        if sample is None:
            refused += 1
        else:
            samples.append(sample)
    raw_states = batch.get("states")
    states = [state for raw in (raw_states if isinstance(raw_states, list) else [])[:MAX_STATES]
              if (state := _checked_state(raw)) is not None]
    if refused:
        states.append(_refused(State("readings_refused", refused=f"{refused:,}", total=f"{len(raw_samples):,}",
                                     most=MAX_DEVICES)))
    cpu_seconds: Any = batch.get("cpu_seconds")
    sampled: Any = batch.get("sampled")
    return {"samples": samples, "states": states,
            "cpu_seconds": float(cpu_seconds) if _finite(cpu_seconds) and cpu_seconds >= 0 else 0.0,
            "sampled": int(sampled) if isinstance(sampled, Integral) and 0 <= int(sampled) < MAX_BYTES else 0}


def _checked_sample(raw: Any) -> Sample | None:
    if not isinstance(raw, Sample) or not _finite(raw.time) or not isinstance(raw.device, str):
        return None
    if _DEVICE.fullmatch(raw.device) is None or not isinstance(raw.source, str):
        return None
    framework = getattr(raw, "framework", None)
    if framework is not None and (not isinstance(framework, str) or _DEVICE.fullmatch(framework) is None):
        return None
    sizes: dict[str, int | None] = {}
    for quantity in QUANTITIES:
        value = getattr(raw, quantity)
        if value is None:
            sizes[quantity] = None
        elif isinstance(value, bool) or not _finite(value) or not 0 <= value <= MAX_BYTES or value != int(value):
            return None
        else:
            sizes[quantity] = int(value)
    return Sample(float(raw.time), _text(raw.source), raw.device, sizes["used"], sizes["total"], sizes["process"],
                  sizes["allocated"], sizes["reserved"], sizes["peak"], raw.simulated is True, framework=framework)


def _checked_state(raw: Any) -> NodeState | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not isinstance(raw.get("state"), dict):
        return None
    state = from_wire(raw["state"], _text)
    if state is None:
        return None
    simulation = raw.get("simulation")
    return {"name": _text(raw["name"]), "state": state, "idle": raw.get("idle") is True,
            "simulated": raw.get("simulated") is True,
            "simulation": _text(simulation) if isinstance(simulation, str) else None}


def _refused(state: State) -> NodeState:
    return {"name": REFUSED_STATE, "state": state, "idle": False, "simulated": False, "simulation": None}


def _finite(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, Real):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def _text(text: str) -> str:
    """One line of at most `_TEXT_CHARS` characters: control characters and line separators become spaces."""
    return _CONTROL.sub(" ", text[:_TEXT_CHARS])


def live_watch_actors() -> list[str]:
    """The names of the watch actors alive in the connected Ray cluster, any kernel's (`ray.init` first)."""
    import ray

    return sorted(entry["name"] for entry in ray.util.list_named_actors(all_namespaces=True)
                  if entry["name"].startswith(ACTOR_PREFIX))


def watch(interval: float = 0.1, *, sampler: Sampler | None = None,
          node_env: Mapping[str, Mapping[str, str]] | None = None,
          rescan_seconds: float | None = 5.0) -> ClusterMemory:
    """Stream every alive node's memory into the kernel's sampler (or `sampler`) every `interval` seconds, and that of
    nodes that join later (looked for every `rescan_seconds`); see `ClusterMemory`. Call after `ray.init(...)`."""
    return ClusterMemory(interval, sampler=sampler, node_env=node_env, rescan_seconds=rescan_seconds).start()
