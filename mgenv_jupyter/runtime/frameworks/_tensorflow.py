"""TensorFlow's run-time APIs: `tf.config.threading` and `tf.config.experimental.set_memory_growth`, both refused by
TensorFlow once the eager context is initialised; and the probe for that moment."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...base._imported import imported
from ...base._source_state import State
from ...base._text import Text
from ...catalog._out_of_memory import Room
from . import Adapter, LiveApi
from ._counters import Counters, OpenDevices, Reading
from ._out_of_memory import MESSAGE_CHARS, SIZE, OomPattern, sizes

if TYPE_CHECKING:
    from ...catalog import Entry


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

# ---- its out-of-memory errors (oom/_recognise.py asks; runtime/frameworks/_out_of_memory.py) ---------------------

_TF_ERROR = ("tensorflow.python.framework.errors_impl.ResourceExhaustedError",)
# Bytes per element by the type's name as TensorFlow's DataTypeString writes it (tensorflow/core/framework/types.cc),
# each checked against a real error of TensorFlow 2.21 (tests/frameworks/test_oom_real.py) or tf.dtypes' size; a
# type not here ("string", whose elements have no fixed size) gives no requested size.
_TF_TYPE_BYTES = {"half": 2, "bfloat16": 2, "float": 4, "double": 8, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
                  "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "bool": 1, "complex64": 8, "complex128": 16,
                  "qint8": 1, "quint8": 1, "qint16": 2, "quint16": 2, "qint32": 4}
_TF_DIMENSIONS = 64  # more dimensions than any real tensor has: a longer "shape" is not multiplied out
# Eager ops prefix the message with the function they ran: "{{function_node __wrapped__Fill_device_/job:localhost/
# replica:0/task:0/device:GPU:0}} OOM when ..."
_TF_FUNCTION_DEVICE = re.compile(r"\{\{function_node [^{}]{0,300}?device:(?P<kind>[A-Z_]+):(?P<index>\d{1,6})\}\}")
_TF_DEVICE = re.compile(r"device:(?P<kind>[A-Z_]+):(?P<index>\d{1,6})")


def _tf_tensor(match: re.Match[str] | None) -> dict[str, int]:
    """The requested bytes of a tensor from the shape and type the message gives: "[1024,1024]" and "float"."""
    if match is None:
        return {}
    dims = match.group("shape")[1:-1]
    size = _TF_TYPE_BYTES.get(match.group("dtype"))
    parts = dims.split(",") if dims else []
    if size is None or len(parts) > _TF_DIMENSIONS or not all(part.isdigit() for part in parts):
        return {}
    return {"requested": math.prod(int(part) for part in parts) * size}


def _tf_device(kind: str, index: str) -> tuple[str, int | None]:
    """"CPU" (or "XLA_CPU") is the host; any other device an accelerator, numbered where it is a GPU."""
    if kind.endswith("CPU"):
        return "host", None
    return "gpu", int(index) if kind.endswith("GPU") else None


def _tf_default_device() -> tuple[str, int | None]:
    """Where TensorFlow runs an op no device was asked for: on its first GPU when its (already initialised) context
    has one, else on the CPU. Asks a TensorFlow that is loaded and initialised; never imports or initialises it."""
    try:
        on_gpu = gpu_initialised()
    except Exception:  # a TensorFlow in a strange state: nothing says there is a GPU
        on_gpu = None
    return ("gpu", None) if on_gpu else ("host", None)


def _tf_where(match: re.Match[str] | None, text: str) -> tuple[str, int | None]:
    """The device the message names ("on /job:.../device:GPU:0", else the eager function's prefix), else TensorFlow's
    default placement."""
    on = match.groupdict().get("on") if match is not None else None
    named = _TF_DEVICE.search(on) if on else None
    if named is None:
        named = _TF_FUNCTION_DEVICE.search(text[:MESSAGE_CHARS])
    if named is not None:
        return _tf_device(named.group("kind"), named.group("index"))
    return _tf_default_device()


def _tf_gpu_where(match: re.Match[str] | None, text: str) -> tuple[str, int | None]:
    """A copy to the device failed: the device is a GPU (or a pluggable one); its index where the prefix gives it."""
    named = _TF_FUNCTION_DEVICE.search(text[:MESSAGE_CHARS])
    return "gpu", int(named.group("index")) if named is not None and named.group("kind").endswith("GPU") else None


OOM_PATTERNS = (
    # TensorFlow (tests/data/oom/tensorflow_messages.json: the texts, their source and the version): every one is a
    # tensorflow.python.framework.errors_impl.ResourceExhaustedError, a class TensorFlow also raises for quotas and
    # full disks, so the message decides. tensorflow/core/framework/op_kernel.cc OpKernelContext::allocate_tensor
    # names the device and the allocator: "OOM when allocating tensor with shape[1125899906842624] and type uint8 on
    # /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu" (GPU: device:GPU:0 by allocator GPU_0_bfc,
    # or gpu_async_0 under TF_GPU_ALLOCATOR=cuda_malloc_async); the size is the shape times the type's size.
    OomPattern("tensorflow", "gpu", _TF_ERROR,
               re.compile(r"OOM when allocating tensor with shape(?P<shape>\[[0-9,]{0,400}\]) and type "
                          r"(?P<dtype>\w+) on (?P<on>\S+) by allocator"), _tf_tensor, _tf_where),
    # tensorflow/core/common_runtime/gpu/gpu_device.cc BaseGPUDevice::MaybeCopyTensorToGPU (and the pluggable
    # devices'): copying a host tensor to the device, "OOM when allocating tensor of shape [2,3] and type float".
    OomPattern("tensorflow", "gpu", _TF_ERROR,
               re.compile(r"OOM when allocating tensor of shape (?P<shape>\[[0-9,]{0,400}\]) and type (?P<dtype>\w+)"),
               _tf_tensor, _tf_gpu_where),
    # op_kernel.cc OpKernelConstruction::allocate_temp: no type, no device; and TensorFlow 2.21's XLA path
    # (jit_compile=True, and Keras 3's default jit_compile="auto" where the model allows it), "Out of memory while
    # trying to allocate 4.00PiB." (tensorflow venv): no device either. Where the message does not say, the device
    # is where TensorFlow places work by default.
    OomPattern("tensorflow", "host", _TF_ERROR,
               re.compile(r"OOM when allocating temporary tensor with shape(?P<shape>\[[0-9,]{0,400}\])"),
               where=_tf_where),
    OomPattern("tensorflow", "host", _TF_ERROR,
               re.compile(rf"Out of memory while trying to allocate (?P<requested>{SIZE})\."),
               sizes(requested="requested"), _tf_where),
    OomPattern("tensorflow", "host", _TF_ERROR, re.compile(r"OOM when allocating|out of memory", re.I),
               where=_tf_where),
)

# ---- its own causes of running out of memory (oom/_causes.py asks; the words: catalog/_tensorflow.py) ----------------

def oom_evidence(cause: str, facts: Mapping[str, int], room: Room, session: Any) -> dict[str, float] | None:
    """TensorFlow's cap shows unless memory growth is on."""
    if cause == "cap" and str(session.get("TF_FORCE_GPU_ALLOW_GROWTH")).lower() != "true":
        return {}
    return None

# ---- its allocator's counters (memory/_framework_sources.py asks; runtime/frameworks/_counters.py) --------------

def read_counters(tf: Any, devices: list[int] | None, open_devices: OpenDevices) -> Reading:
    """TensorFlow's allocator per GPU: `tf.config.experimental.get_memory_info("GPU:n")` → `current` (allocated) and
    `peak`; TensorFlow reports neither what it holds from the device nor its limit.

    Read only once TensorFlow's eager context is initialised (its first operation): `get_memory_info` initialises the
    context itself, which fixes the thread pools and takes the GPUs. Without a GPU there is nothing to read
    (TensorFlow 2.21 answers zeros for "CPU:0", though its docs say it raises).
    """
    if not context_initialised():
        return Reading([], State("runtime_not_initialised", framework="tensorflow"))
    gpus = tf.config.list_logical_devices("GPU")
    if not gpus:
        return Reading([], State("sees_no_gpu", framework="tensorflow"))
    counters = []
    for gpu in gpus:
        name = gpu.name.rpartition("device:")[2]  # "/device:GPU:1" → "GPU:1", as get_memory_info takes it
        ordinal = int(name.rpartition(":")[2])
        if devices is not None and ordinal not in devices:
            continue
        info = tf.config.experimental.get_memory_info(name)
        counters.append(Counters(f"gpu{ordinal}", allocated=info.get("current"), peak=info.get("peak")))
    return Reading(counters)


# Its states' words (memory/_state_words.py): code → words.
STATE_WORDS = {
    "runtime_not_initialised": Text("{framework} has not initialised its runtime yet (its first operation does)",
                                    "{framework} 尚未初始化其运行时(第一次运算时初始化)"),
}


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(live_apis=LIVE_APIS, probes=PROBES, cuda_started=cuda_started, oom_patterns=OOM_PATTERNS,
    oom_evidence=oom_evidence, read_counters=read_counters, state_words=STATE_WORDS)
