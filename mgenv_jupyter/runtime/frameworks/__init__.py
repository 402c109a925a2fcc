"""Framework adapters: each framework's own run-time API for changing a variable, for reading it back, the probes
that tell whether the moment that fixes a value (a first use) has passed, and what its tensors and modules hold
(`tensor_kinds()`, declared in _tensors.py).

Adapters never import a framework: a live API is only offered when the framework's module is already loaded, and a
probe answers None (cannot tell) when its framework is not.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..._imported import imported
from ...catalog import Entry
from .._live_blocks import StackRecorder
from ._tensors import FrameworkTensors


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


Probe = Callable[[Entry], "bool | None"]


def _registry() -> dict[str, LiveApi]:
    from . import _jax as jax
    from . import _megengine as megengine
    from . import _paddle as paddle
    from . import _tensorflow as tensorflow
    from . import _torch as torch

    return {**megengine.LIVE_APIS, **paddle.LIVE_APIS, **torch.LIVE_APIS, **jax.LIVE_APIS, **tensorflow.LIVE_APIS}


@lru_cache(maxsize=1)
def _probes() -> dict[str, Probe]:
    from . import _jax as jax
    from . import _tensorflow as tensorflow
    from . import _torch as torch

    return {**torch.PROBES, **jax.PROBES, **tensorflow.PROBES, "cuda": _cuda_initialised}


# MegEngine, Paddle, MXNet and CuPy may initialise CUDA too, but offer no question that does not itself initialise it.
_CUDA_UNKNOWN = ("megengine", "paddle", "mxnet", "cupy")


def _cuda_initialised(entry: Entry) -> bool | None:
    """CUDA's driver variables are read at the process's first CUDA initialisation, by whichever framework comes
    first: True if a framework we can ask has initialised CUDA; False if every imported framework says it has not;
    None when an imported framework cannot be asked."""
    from . import _jax as jax
    from . import _tensorflow as tensorflow
    from . import _torch as torch

    asked = {"torch": torch.cuda_initialised, "jax": jax.gpu_initialised, "tensorflow": tensorflow.gpu_initialised}
    answers = [question() for module, question in asked.items() if imported(module) is not None]
    if any(answers):
        return True
    if any(module in sys.modules for module in _CUDA_UNKNOWN) or None in answers:  # importing counts: CUDA may start
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
    from . import _megengine as megengine

    api = megengine.GROUP_APIS.get(key) if key is not None else None
    return api if api is not None and api.available() else None


_LIVE: dict[str, LiveApi] | None = None


def _api_of(entry: Entry) -> LiveApi | None:
    """The adapter the catalog names for `entry` (loaded or not); None when it names none."""
    global _LIVE
    if entry.live_api is None:
        return None
    if _LIVE is None:
        _LIVE = _registry()
    return _LIVE.get(entry.live_api)


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
    global _LIVE
    if entry.live_api is None:
        return False
    if _LIVE is None:
        _LIVE = _registry()
    api = _LIVE.get(entry.live_api)
    return api is not None and api.survives_latch


def known_live_keys() -> set[str]:
    """Every live-API key an adapter implements (the catalog may only name these)."""
    from . import _megengine as megengine

    return set(_registry()) | set(megengine.GROUP_APIS)


def known_probes() -> set[str]:
    """Every latch probe an adapter implements (the catalog's `latch` may only name these)."""
    return set(_probes())


def tensor_kinds() -> list[FrameworkTensors]:
    """What each loaded framework's objects are and hold (runtime/frameworks/_tensors.py), for the holders walk:
    PyTorch, JAX, Paddle, MegEngine, MXNet and NumPy, in that order; a framework not imported is not asked."""
    from . import _jax as jax
    from . import _megengine as megengine
    from . import _mxnet as mxnet
    from . import _numpy as numpy
    from . import _paddle as paddle
    from . import _torch as torch

    found = []
    for adapter in (torch, jax, paddle, megengine, mxnet, numpy):
        try:
            declared = adapter.tensor_kinds()
        except Exception:  # a framework half loaded or of another version: its objects are not looked for
            declared = None
        if declared is not None:
            found.append(declared)
    return found
def stack_recorders() -> dict[str, StackRecorder]:
    """A fresh recorder of allocation stacks for each framework that records them (catalog._allocation_stacks says
    which), by the catalog's framework key."""
    from . import _jax as jax
    from . import _torch as torch

    return {"jax": jax.JaxRecorder(), "torch": torch.TorchRecorder()}


def _peak_adapters() -> dict[str, Any]:
    """The adapters that read a framework's own memory peaks, by the framework's top-level module."""
    from . import _jax as jax
    from . import _megengine as megengine
    from . import _paddle as paddle
    from . import _torch as torch

    return {"torch": torch, "jax": jax, "paddle": paddle, "megengine": megengine}


def peak_counters() -> dict[str, int]:
    """Every imported framework's own memory peaks, "<framework> <device> <counter>" → bytes: PyTorch's
    max_allocated / max_reserved, JAX's peak_bytes_in_use, Paddle's and MegEngine's max_allocated / max_reserved.
    A framework that is not imported, or cannot be asked, gives nothing; asking never imports or initialises one."""
    peaks: dict[str, int] = {}
    for module, adapter in _peak_adapters().items():
        if imported(module) is None:
            continue
        try:
            found = adapter.peak_counters()
        except Exception:  # a framework's internals may change; no figure is the honest answer
            continue
        peaks.update({f"{module} {key}": value for key, value in found.items()})
    return peaks


def reset_peak_counters() -> list[str]:
    """Start every imported framework's peaks again from now where it can; the frameworks that did."""
    reset = []
    for module, adapter in _peak_adapters().items():
        if imported(module) is None:
            continue
        try:
            if adapter.reset_peak_counters():
                reset.append(module)
        except Exception:  # as above: a peak that cannot be reset is reported as it is
            continue
    return reset
