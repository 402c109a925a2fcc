"""The registry of the framework adapters. An adapter (`_<key>.py`, with its parts `_<key>_<part>.py`) is all the
code the product has for one framework. Each ends with its `ADAPTER`, an `Adapter` naming what it offers (None: it
offers nothing of that kind), and every other module asks the adapters through the functions here, or through
`offered(lambda adapter: adapter.<field>)` (typed: no extension point is looked up by a string):

- `live_apis` and `group_apis`: how to change a variable (or a group) in the running framework and read it back;
- `probes`: whether the moment that fixes a value (a first use) has passed; `cuda_started`: whether it started CUDA;
- `tensor_kinds`: what its tensors and modules hold (_tensors.py); `memtrace_recorder`: where its memory was allocated;
- `oom_patterns`: how to recognise its out-of-memory errors (_out_of_memory.py), `oom_evidence` its own causes;
- `read_counters` and `state_words`: its allocator's counters and its states' words; `chart_lines`: chart overlays;
- `peak_counters` and `reset_peak_counters`: its own peaks; `release_cache`: giving its cache back.

Adapters never import a framework: a live API is only offered when the framework's module is already loaded, and a
probe answers None (cannot tell) when its framework is not. Only _adapters.py's table and COUNTERS here name the
frameworks (tests/quality/test_framework_homes.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ...base._imported import imported
from ...catalog._frameworks import GPU_MODULES

if TYPE_CHECKING:
    from ...base._text import Text
    from ...catalog import Catalog, Entry
    from ...catalog._out_of_memory import Room
    from .._memtrace import MemtraceRecorder
    from ._counters import ChartLine, OpenDevices, Reading
    from ._out_of_memory import OomPattern
    from ._tensors import FrameworkTensors

# The adapters that read their framework's allocator (`read_counters`), in the order the memory sources list them: the
# sources are made at `%load_ext`, before any adapter is imported.
COUNTERS = ("megengine", "paddle", "torch", "jax", "tensorflow", "mxnet")


class SessionView(Protocol):
    """What an adapter reads of the kernel's session (runtime/_session.py's `EnvSession` is one): the catalog, and a
    variable's value as the session reads it. A protocol, so that the adapters, which the session asks, do not name
    the session back."""

    catalog: Catalog

    def get(self, name: str) -> str | None: ...


@dataclass(frozen=True)
class LiveApi:
    """How to change one variable in a running framework, how to ask the framework what it now uses, and the call
    `apply` makes, written out as Python for users (`call(entry, value)`). `survives_latch` is True when the call
    still changes what the framework uses after the variable's first use (PyTorch's allocator settings); otherwise
    it is only made before that moment (TensorFlow raises after it, Paddle's allocator ignores it)."""

    module: str
    apply: Callable[[Entry, Any], None]
    read: Callable[[Entry], str | None]  # None: the framework cannot say what it now uses
    call: Callable[[Entry, Any], str]
    survives_latch: bool = False

    def available(self) -> bool:
        return imported(self.module) is not None


@dataclass(frozen=True)
class GroupApi:
    """How a running framework switches a whole group of options at once (megengine.dtr.enable() / disable()),
    which may do more than setting the members: disable() also clears DTR's eviction candidates."""

    module: str
    switch: Callable[[bool], None]
    call: Callable[[bool], str]

    def available(self) -> bool:
        return imported(self.module) is not None


Probe = Callable[["Entry"], "bool | None"]


@dataclass(frozen=True)
class CacheCall:
    """One call that asks a framework's allocator to give its cached blocks back: `what` as users read it, `action`
    the call, and `gpu`: whether those blocks are a GPU's (MXNet's `cpu()` pool and CuPy's pinned pool are the
    host's, and what they give back is no GPU memory)."""

    what: str
    action: Callable[[], object]
    gpu: bool = True


Release = Callable[[Any, Callable[[], list[int]]], list[CacheCall]]
T = TypeVar("T")


@dataclass(frozen=True)
class Adapter:
    """What one framework's adapter offers the rest of the product; None where it offers nothing of that kind. The
    callables' arguments: `read_counters(module, devices, open_devices)`, `release_cache(module, gpus)`,
    `oom_evidence(cause, facts, room, session)`, `chart_lines(session, gpu_totals, language)`."""

    live_apis: Mapping[str, LiveApi] | None = None
    group_apis: Mapping[str, GroupApi] | None = None
    probes: Mapping[str, Probe] | None = None
    cuda_started: Callable[[], bool | None] | None = None
    tensor_kinds: Callable[[], FrameworkTensors | None] | None = None
    memtrace_recorder: Callable[[], MemtraceRecorder] | None = None
    peak_counters: Callable[[], dict[str, int]] | None = None
    reset_peak_counters: Callable[[], bool] | None = None
    oom_patterns: Sequence[OomPattern] | None = None
    oom_evidence: Callable[[str, Mapping[str, int], Room, Any], dict[str, float] | None] | None = None
    release_cache: Release | None = None
    read_counters: Callable[[Any, list[int] | None, OpenDevices], Reading] | None = None
    state_words: Mapping[str, Text] | None = None
    chart_lines: Callable[[SessionView, Mapping[str, int], str], list[ChartLine]] | None = None


def adapters() -> dict[str, Adapter]:
    """Every adapter, by the framework's key, in the order they are asked (_adapters.py). Imported on the first
    question, not at `%load_ext` (the adapters import catalog modules); they import no framework."""
    from ._adapters import ADAPTERS

    return ADAPTERS


def adapter(key: str) -> Adapter | None:
    """The adapter of framework `key`, None when it has none."""
    return adapters().get(key)


def offered(get: Callable[[Adapter], T | None]) -> dict[str, T]:
    """What each adapter offers of one kind (`offered(lambda adapter: adapter.memtrace_recorder)`), by framework key in
    the order of `adapters()`; an adapter that offers none is left out."""
    found = {key: get(each) for key, each in adapters().items()}
    return {key: value for key, value in found.items() if value is not None}


@lru_cache(maxsize=1)
def _registry() -> dict[str, LiveApi]:
    return {key: api for apis in offered(lambda a: a.live_apis).values() for key, api in apis.items()}


def _group_apis() -> dict[str, GroupApi]:
    return {key: api for apis in offered(lambda a: a.group_apis).values() for key, api in apis.items()}


@lru_cache(maxsize=1)
def _probes() -> dict[str, Probe]:
    probes = {key: probe for found in offered(lambda a: a.probes).values() for key, probe in found.items()}
    return {**probes, "cuda": _cuda_initialised}


def _cuda_initialised(entry: Entry) -> bool | None:
    """CUDA's driver variables are read at the process's first CUDA initialisation, by whichever framework comes
    first: True if a framework we can ask (`cuda_started`) has initialised CUDA; False if every imported framework
    says it has not; None when an imported framework cannot be asked (MegEngine, Paddle, MXNet and CuPy may
    initialise CUDA too, but offer no question that does not itself initialise it)."""
    asked = offered(lambda a: a.cuda_started)
    answers = [question() for module, question in asked.items() if imported(module) is not None]
    if any(answers):
        return True
    unknown = [module for module in GPU_MODULES if module not in asked]
    if any(module in sys.modules for module in unknown) or None in answers:  # importing counts: CUDA may start
        return None
    return False


def latched(entry: Entry) -> bool | None:
    """Whether the moment that fixes `entry`'s value (its first use) has passed: True (it has: a change now needs a
    restart, or a live API that outlasts it), False (not yet: the framework will still read it), None (cannot tell:
    no probe, or the framework is not loaded)."""
    if entry.latch is None:
        return None
    probe = _probes().get(entry.latch)
    if probe is None:
        return None
    try:
        return probe(entry)
    except Exception:  # a probe reads a framework's internals, which may change; not knowing is the honest answer
        return None


def group_api(key: str | None) -> GroupApi | None:
    """The live switch of a catalog group, if it has one and its framework is loaded now."""
    api = _group_apis().get(key) if key is not None else None
    return api if api is not None and api.available() else None


def _api_of(entry: Entry) -> LiveApi | None:
    """The adapter the catalog names for `entry` (loaded or not); None when it names none."""
    if entry.live_api is None:
        return None
    return _registry().get(entry.live_api)


def live_api(entry: Entry) -> LiveApi | None:
    """The live API for `entry` if it has one and its framework is loaded now."""
    api = _api_of(entry)
    return api if api is not None and api.available() else None


def live_call(entry: Entry, value: Any) -> str | None:
    """The framework call that sets `entry` to `value` (a parsed, typed value), as Python text; None when the entry
    has no live API. Works whether or not the framework is loaded: it only writes the call out."""
    api = _api_of(entry)
    return api.call(entry, value) if api is not None else None


def outlasts_latch(entry: Entry) -> bool:
    """Whether `entry`'s live API still changes what the framework uses after the variable's first use."""
    if entry.live_api is None:
        return False
    api = _registry().get(entry.live_api)
    return api is not None and api.survives_latch


def known_live_keys() -> set[str]:
    """Every live-API key an adapter implements (the catalog may only name these)."""
    return set(_registry()) | set(_group_apis())


def known_probes() -> set[str]:
    """Every latch probe an adapter implements (the catalog's `latch` may only name these)."""
    return set(_probes())


def tensor_kinds() -> list[FrameworkTensors]:
    """What each loaded framework's objects are and hold (runtime/frameworks/_tensors.py), for the holders walk:
    PyTorch, JAX, Paddle, MegEngine, MXNet and NumPy, in that order; a framework not imported is not asked."""
    found = []
    for declare in offered(lambda a: a.tensor_kinds).values():
        try:
            kinds = declare()
        except Exception:  # a framework half loaded or of another version: its objects are not looked for
            kinds = None
        if kinds is not None:
            found.append(kinds)
    return found


def memtrace_recorders() -> dict[str, MemtraceRecorder]:
    """A fresh recorder of allocation stacks for each framework that records them (catalog._allocation_stacks says
    which), by the catalog's framework key."""
    return {key: recorder() for key, recorder in offered(lambda a: a.memtrace_recorder).items()}


def peak_counters() -> dict[str, int]:
    """Every imported framework's own memory peaks, "<framework> <device> <counter>" → bytes, from each adapter that
    reads them (`peak_counters`: PyTorch's max_allocated / max_reserved, JAX's peak_bytes_in_use, Paddle's and
    MegEngine's max_allocated / max_reserved). A framework that is not imported, or cannot be asked, gives nothing;
    asking never imports or initialises one."""
    peaks: dict[str, int] = {}
    for module, read in offered(lambda a: a.peak_counters).items():
        if imported(module) is None:
            continue
        try:
            found = read()
        except Exception:  # a framework's internals may change; no figure is the honest answer
            continue
        peaks.update({f"{module} {key}": value for key, value in found.items()})
    return peaks


def reset_peak_counters() -> list[str]:
    """Start every imported framework's peaks again from now where it can (`reset_peak_counters`); the frameworks
    that did."""
    reset = []
    for module, start_again in offered(lambda a: a.reset_peak_counters).items():
        if imported(module) is None:
            continue
        try:
            if start_again():
                reset.append(module)
        except Exception:  # as above: a peak that cannot be reset is reported as it is
            continue
    return reset
