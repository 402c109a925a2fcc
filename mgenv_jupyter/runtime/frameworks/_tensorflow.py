"""TensorFlow's run-time APIs: `tf.config.threading` and `tf.config.experimental.set_memory_growth`, both refused by
TensorFlow once the eager context is initialised; and the probe for that moment."""

from __future__ import annotations

import sys
from typing import Any

from ..._imported import imported
from ...catalog import Entry
from . import LiveApi


def _tf() -> Any:
    return sys.modules["tensorflow"]


def _threads(kind: str) -> LiveApi:
    setter, getter = f"set_{kind}_parallelism_threads", f"get_{kind}_parallelism_threads"

    def apply(entry: Entry, value: Any) -> None:
        getattr(_tf().config.threading, setter)(int(value))

    def read(entry: Entry) -> str:
        return str(getattr(_tf().config.threading, getter)())

    return LiveApi("tensorflow", apply, read, lambda entry, value: f"tf.config.threading.{setter}({int(value)})")


def _set_growth(entry: Entry, value: Any) -> None:
    config = _tf().config
    for gpu in config.list_physical_devices("GPU"):
        config.experimental.set_memory_growth(gpu, value == "true")


def _read_growth(entry: Entry) -> str:
    config = _tf().config
    gpus = config.list_physical_devices("GPU")
    if not gpus:
        return "no GPU"
    return "true" if all(config.experimental.get_memory_growth(gpu) for gpu in gpus) else "false"


def context_initialised() -> bool | None:
    """Whether TensorFlow's eager context is initialised (its thread pools and devices exist). Reads a flag of the
    context object if there is one; never creates it."""
    context = imported("tensorflow.python.eager.context")
    if context is None:
        return None
    current = getattr(context, "_context", None)
    if current is None:
        return False
    initialised = getattr(current, "_initialized", None)
    return bool(initialised) if initialised is not None else None


LIVE_APIS: dict[str, LiveApi] = {
    "tensorflow.threading:intra_op": _threads("intra_op"),
    "tensorflow.threading:inter_op": _threads("inter_op"),
    "tensorflow.set_memory_growth": LiveApi(
        "tensorflow", _set_growth, _read_growth,
        lambda e, value: "for gpu in tf.config.list_physical_devices('GPU'): "
                         f"tf.config.experimental.set_memory_growth(gpu, {value == 'true'})",
    ),
}
PROBES = {"tensorflow.context": lambda entry: context_initialised()}


def gpu_initialised() -> bool | None:
    """Whether TensorFlow's initialised context has a GPU (so CUDA is initialised); False before the context starts
    or without a GPU. Lists devices only once the context exists, which then creates nothing new."""
    started = context_initialised()
    if not started:
        return started
    return bool(_tf().config.list_physical_devices("GPU"))


cuda_started = gpu_initialised  # the registry's question: has this framework initialised CUDA?
