"""Which exceptions are out-of-memory failures, in which framework, on which device, and what their message says.

Matching is on the exception's classes (module-qualified names along its MRO, so no framework is imported to ask) and
on the message each framework writes (where a TensorFlow message names no device, a TensorFlow already loaded and
initialised is asked whether it has a GPU); the chain (`__cause__`, `__context__`) is followed, because MegEngine
raises an `AsyncError` whose cause holds the allocator's message. Every pattern below is the text of the framework's
own source, cited where it is written, or an error captured from the real framework (tests/data/cuda_facts_h100.json
on an H100; tests/data/oom/tensorflow_messages.json; the CPU ones in each framework's venv,
tests/frameworks/test_oom_real.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..catalog._secrets import redact

__all__ = ["OutOfMemory", "parse_size", "recognise"]

# Sizes as the frameworks print them: "1024.00 GiB" (PyTorch), "1.00TiB" (XLA), "1.000000GB" (Paddle's
# HumanReadableSize, 1024-based), "1,099,511,627,776 bytes" (CuPy), "0 bytes".
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2,
          "mib": 1024**2, "g": 1024**3, "gb": 1024**3, "gib": 1024**3, "t": 1024**4, "tb": 1024**4, "tib": 1024**4,
          "p": 1024**5, "pb": 1024**5, "pib": 1024**5}
_SIZE = r"[0-9][0-9,]*(?:\.[0-9]+)?\s*(?:[KMGTP]i?B|[KMGTP]B|bytes?|B)?"
_SIZE_PARTS = re.compile(r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*([A-Za-z]*)")
_MAX_DEPTH = 8  # links of the exception chain followed
_MESSAGE_CHARS = 2000  # of each message kept in the report
# Of a message, the part searched for credentials before the first _MESSAGE_CHARS are kept: masking the whole of a
# huge message could take seconds after the user's cell, and a credential cut at this bound could only reach the kept
# part if masking had shortened the 64 Ki characters before it to less than 2000.
_REDACTED_CHARS = 64 * 1024
# Of a message, the part the patterns are searched in: every framework states the failure at the start of its text,
# and a crafted message of megabytes must cost no more than this (every pattern below is also linear in the text).
_SEARCHED_CHARS = 64 * 1024
# The most text between two facts of one PyTorch message (its lines about other processes using the GPU).
_GAP = 4096
_GPU_DIGITS = 6  # a GPU index longer than this is no GPU's (and int() refuses over 4300 digits)


def parse_size(text: str) -> int | None:
    """Bytes in a size as a framework message prints it ("2.00 GiB", "1.00TiB", "716.750000MB", "1,024 bytes")."""
    match = _SIZE_PARTS.fullmatch(text.strip())
    if match is None:
        return None
    unit = _UNITS.get(match.group(2).lower())
    if unit is None:
        return None
    number = float(match.group(1).replace(",", "")) * unit
    # A message is outside input: "999...9 bytes" would be an infinite float, which int() refuses (OverflowError).
    return int(number) if math.isfinite(number) else None


@dataclass(frozen=True)
class OutOfMemory:
    """One recognised out-of-memory failure.

    `framework`: "torch", "jax", "tensorflow", "paddle", "megengine", "mxnet", "cupy", or "python" (a plain
    `MemoryError`). `device`: "gpu" or "host". `gpu`: the GPU's index where the message names it. `requested`:
    bytes the failed allocation asked for, where the message says. `facts`: other sizes the message states (PyTorch's
    `total`, `free`, `in_use`, `allocated`, `cached_free` = reserved but unallocated, `allowed`). `exception`: the
    qualified class of the exception that carried the message; `message`: that message (at most 2000 characters), with
    every credential-shaped part masked (a URL with a password, a token: `catalog.secrets.redact`).
    """

    framework: str
    device: str
    exception: str
    message: str
    gpu: int | None = None
    requested: int | None = None
    facts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"framework": self.framework, "device": self.device, "gpu": self.gpu, "requested": self.requested,
                "facts": dict(self.facts), "exception": self.exception, "message": self.message}


@dataclass(frozen=True)
class _Pattern:
    """Classes (any of them in the MRO) and a message pattern (None: any message) that make an out-of-memory error;
    `facts` reads the sizes out of the match; `where`, for a framework whose messages do not always name the device,
    decides it (device, GPU index) from the match and the whole message instead of `device`. With `after`, the
    pattern is searched only past the first occurrence of that text (none: no match), so "A, then later B" is a
    linear search for B from a position rather than a pattern `A.*B`, which is quadratic in a text repeating A."""

    framework: str
    device: str
    classes: tuple[str, ...]
    message: re.Pattern[str] | None
    facts: Callable[[re.Match[str] | None], dict[str, int]] = lambda match: {}
    where: Callable[[re.Match[str] | None, str], tuple[str, int | None]] | None = None
    after: str = ""

    def search(self, text: str) -> re.Match[str] | None:
        if self.message is None:
            return None
        start = 0
        if self.after:
            found = text.find(self.after)
            if found < 0:
                return None
            start = found + len(self.after)
        return self.message.search(text, start)


def _sizes(**groups: str) -> Callable[[re.Match[str] | None], dict[str, int]]:
    """Facts from the named groups of a match: fact name → group name."""
    def read(match: re.Match[str] | None) -> dict[str, int]:
        found = {}
        for fact, group in groups.items():
            text = match.group(group) if match is not None else None
            value = parse_size(text) if text else None
            if value is not None:
                found[fact] = value
        return found
    return read


def _gpu_index(match: re.Match[str] | None) -> dict[str, int]:
    digits = match.groupdict().get("gpu") if match is not None else None
    return {"gpu": int(digits)} if digits and len(digits) <= _GPU_DIGITS else {}


def _both(*readers: Callable[[re.Match[str] | None], dict[str, int]]) -> Callable[[re.Match[str] | None],
                                                                                  dict[str, int]]:
    return lambda match: {key: value for reader in readers for key, value in reader(match).items()}


# ---- TensorFlow ---------------------------------------------------------------------------------------------------

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
    from ..runtime.frameworks._tensorflow import gpu_initialised

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
        named = _TF_FUNCTION_DEVICE.search(text[:_MESSAGE_CHARS])
    if named is not None:
        return _tf_device(named.group("kind"), named.group("index"))
    return _tf_default_device()


def _tf_gpu_where(match: re.Match[str] | None, text: str) -> tuple[str, int | None]:
    """A copy to the device failed: the device is a GPU (or a pluggable one); its index where the prefix gives it."""
    named = _TF_FUNCTION_DEVICE.search(text[:_MESSAGE_CHARS])
    return "gpu", int(named.group("index")) if named is not None and named.group("kind").endswith("GPU") else None


# ---- the patterns, first match wins ----------------------------------------------------------------------------------

_TORCH_GPU = re.compile(
    # c10/cuda/CUDACachingAllocator.cpp, as PyTorch 2.11 wrote it on an H100 (tests/data/cuda_facts_h100.json)
    rf"out of memory\. Tried to allocate (?P<requested>{_SIZE})\. GPU (?P<gpu>\d+) has a total capacity of "
    rf"(?P<total>{_SIZE}) of which (?P<free>{_SIZE}) is free\.")
# The message's later figures, each searched for in the _GAP characters after the head above: one search each from
# one place, where optional parts `(?:.*?X)?` of one pattern would scan on from every repeat of the head.
_TORCH_LATER = (
    re.compile(rf"this process has (?P<in_use>{_SIZE}) memory in use\.(?:\s*(?P<allowed>{_SIZE}) allowed;)?"),
    re.compile(rf"Of the allocated memory (?P<allocated>{_SIZE}) is allocated by PyTorch, and (?P<cached_free>{_SIZE}) "
               r"is reserved by PyTorch but unallocated"),
)


def _torch_gpu(match: re.Match[str] | None) -> dict[str, int]:
    facts = _both(_sizes(requested="requested", total="total", free="free"), _gpu_index)(match)
    if match is not None:
        later = match.string[match.end():match.end() + _GAP]
        for pattern in _TORCH_LATER:
            found = pattern.search(later)
            facts.update(_sizes(**{name: name for name in pattern.groupindex})(found) if found else {})
    return facts


_TORCH_GPU_SHORT = re.compile(rf"out of memory\. Tried to allocate (?P<requested>{_SIZE})")
PATTERNS: tuple[_Pattern, ...] = (
    _Pattern("torch", "gpu", ("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"), _TORCH_GPU, _torch_gpu),
    _Pattern("torch", "gpu", ("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"), _TORCH_GPU_SHORT,
             _sizes(requested="requested")),
    _Pattern("torch", "gpu", ("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"), None),
    # c10/core/impl/alloc_cpu.cpp (torch 2.13 CPU wheel): "DefaultCPUAllocator: can't allocate memory: you tried to
    # allocate 1125899906842624 bytes. Error code 12 (Cannot allocate memory)"
    _Pattern("torch", "host", ("builtins.RuntimeError",),
             re.compile(r"DefaultCPUAllocator: can't allocate memory: you tried to allocate (?P<requested>\d+) bytes"),
             _sizes(requested="requested")),
    # XLA's BFC allocator via jax.errors.JaxRuntimeError (jaxlib.xla_extension.XlaRuntimeError before JAX 0.4.36):
    # GPU "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1.00TiB with allocator GPU_0_bfc on device 0"
    # (H100 capture); CPU "RESOURCE_EXHAUSTED: Out of memory allocating 1125899906842624 bytes." (jax venv).
    _Pattern("jax", "gpu", ("jax.errors.JaxRuntimeError", "jaxlib.xla_extension.XlaRuntimeError",
                            "jax._src.lib.xla_extension.XlaRuntimeError"),
             re.compile(rf"RESOURCE_EXHAUSTED: Out of memory while trying to allocate (?P<requested>{_SIZE}) with "
                        r"allocator GPU_(?P<gpu>\d+)_bfc"),
             _both(_sizes(requested="requested"), _gpu_index)),
    _Pattern("jax", "host", ("jax.errors.JaxRuntimeError", "jaxlib.xla_extension.XlaRuntimeError",
                             "jax._src.lib.xla_extension.XlaRuntimeError"),
             re.compile(rf"RESOURCE_EXHAUSTED: Out of memory allocating (?P<requested>{_SIZE})"),
             _sizes(requested="requested")),
    _Pattern("jax", "gpu", ("jax.errors.JaxRuntimeError", "jaxlib.xla_extension.XlaRuntimeError",
                            "jax._src.lib.xla_extension.XlaRuntimeError"),
             re.compile(r"out of memory|GPU_(?P<gpu>\d+)_bfc", re.I), _gpu_index, after="RESOURCE_EXHAUSTED:"),
    # TensorFlow (tests/data/oom/tensorflow_messages.json: the texts, their source and the version): every one is a
    # tensorflow.python.framework.errors_impl.ResourceExhaustedError, a class TensorFlow also raises for quotas and
    # full disks, so the message decides. tensorflow/core/framework/op_kernel.cc OpKernelContext::allocate_tensor
    # names the device and the allocator: "OOM when allocating tensor with shape[1125899906842624] and type uint8 on
    # /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu" (GPU: device:GPU:0 by allocator GPU_0_bfc,
    # or gpu_async_0 under TF_GPU_ALLOCATOR=cuda_malloc_async); the size is the shape times the type's size.
    _Pattern("tensorflow", "gpu", _TF_ERROR,
             re.compile(r"OOM when allocating tensor with shape(?P<shape>\[[0-9,]{0,400}\]) and type "
                        r"(?P<dtype>\w+) on (?P<on>\S+) by allocator"), _tf_tensor, _tf_where),
    # tensorflow/core/common_runtime/gpu/gpu_device.cc BaseGPUDevice::MaybeCopyTensorToGPU (and the pluggable
    # devices'): copying a host tensor to the device, "OOM when allocating tensor of shape [2,3] and type float".
    _Pattern("tensorflow", "gpu", _TF_ERROR,
             re.compile(r"OOM when allocating tensor of shape (?P<shape>\[[0-9,]{0,400}\]) and type (?P<dtype>\w+)"),
             _tf_tensor, _tf_gpu_where),
    # op_kernel.cc OpKernelConstruction::allocate_temp: no type, no device; and TensorFlow 2.21's XLA path
    # (jit_compile=True, and Keras 3's default jit_compile="auto" where the model allows it), "Out of memory while
    # trying to allocate 4.00PiB." (tensorflow venv): no device either. Where the message does not say, the device
    # is where TensorFlow places work by default.
    _Pattern("tensorflow", "host", _TF_ERROR,
             re.compile(r"OOM when allocating temporary tensor with shape(?P<shape>\[[0-9,]{0,400}\])"),
             where=_tf_where),
    _Pattern("tensorflow", "host", _TF_ERROR,
             re.compile(rf"Out of memory while trying to allocate (?P<requested>{_SIZE})\."),
             _sizes(requested="requested"), _tf_where),
    _Pattern("tensorflow", "host", _TF_ERROR, re.compile(r"OOM when allocating|out of memory", re.I), where=_tf_where),
    # CuPy: cupy.cuda.memory.OutOfMemoryError (a MemoryError), "Out of memory allocating 1,099,511,627,776 bytes
    # (allocated so far: 0 bytes)." (H100 capture). Before the plain MemoryError below.
    _Pattern("cupy", "gpu", ("cupy.cuda.memory.OutOfMemoryError",),
             re.compile(rf"Out of memory allocating (?P<requested>{_SIZE}) \(allocated so far: (?P<allocated>{_SIZE})"),
             _sizes(requested="requested", allocated="allocated")),
    _Pattern("cupy", "gpu", ("cupy.cuda.memory.OutOfMemoryError",), None),
    # Paddle turns its BadAlloc into Python's MemoryError with the "(ResourceExhausted)" summary. GPU:
    # paddle/phi/core/memory/allocation/cuda_allocator.cc CUDAAllocator::AllocateImpl, "Out of memory error on GPU %d.
    # Cannot allocate %s memory on GPU %d, %s memory has been allocated and available memory is only %s." (also
    # cuda_malloc_async_allocator.cc, cuda_virtual_mem_allocator.cc); CPU: cpu_allocator.cc "Fail to alloc memory of
    # %d size, error code is %d." (paddle 3.3.1 venv).
    _Pattern("paddle", "gpu", ("builtins.MemoryError",),
             re.compile(rf"Out of memory error on GPU (?:Virtual Memory )?(?P<gpu>\d+)\. Cannot allocate "
                        rf"(?P<requested>{_SIZE}) memory on GPU (?:Virtual Memory )?\d+, "
                        rf"(?:(?P<in_use>{_SIZE}) memory has been allocated and )?"
                        rf"available memory is only (?P<free>{_SIZE})"),
             _both(_sizes(requested="requested", in_use="in_use", free="free"), _gpu_index)),
    _Pattern("paddle", "host", ("builtins.MemoryError",),
             re.compile(r"\(ResourceExhausted\) Fail to alloc memory of (?P<requested>\d+) size"),
             _sizes(requested="requested")),
    # MegEngine 1.13.4: src/core/impl/comp_node/mem_alloc/impl.cpp MemAllocImplHelper::do_alloc, "out of memory while
    # requesting %zu bytes; you can try setting MGB_CUDA_RESERVE_MEMORY ..." (device allocators);
    # src/core/include/megbrain/comp_node/alloc.h "failed to alloc %zu bytes"; CPU: src/core/impl/comp_node/cpu/
    # comp_node.cpp mgb_aligned_alloc "failed to malloc %zubytes with align %zu" (megengine venv). Raised as the
    # RuntimeError cause of core2.AsyncError.
    _Pattern("megengine", "gpu", ("builtins.RuntimeError",),
             re.compile(r"out of memory while requesting (?P<requested>\d+) bytes"), _sizes(requested="requested")),
    _Pattern("megengine", "host", ("builtins.RuntimeError",),
             re.compile(r"failed to malloc (?P<requested>\d+) ?bytes with align"), _sizes(requested="requested")),
    _Pattern("megengine", "gpu", ("builtins.RuntimeError",),
             re.compile(r"MemAllocError|failed to alloc (?P<requested>\d+) bytes"), _sizes(requested="requested")),
    # MXNet 1.9.1: src/storage/pooled_storage_manager.h GPUPooledStorageManager::Alloc (and the rounded pool),
    # LOG(FATAL) << "cudaMalloc retry failed: " << cudaGetErrorString(e) → "out of memory"; the unpooled
    # src/storage/gpu_device_storage.h "CUDA: out of memory"; CPU: src/storage/cpu_device_storage.h "Failed to allocate
    # CPU Memory" (mxnet venv).
    _Pattern("mxnet", "gpu", ("mxnet.base.MXNetError",),
             re.compile(r"cudaMalloc (?:retry )?failed: out of memory|CUDA: out of memory")),
    _Pattern("mxnet", "host", ("mxnet.base.MXNetError",), re.compile(r"Failed to allocate CPU Memory")),
    _Pattern("python", "host", ("builtins.MemoryError",), None),
)


def _class_names(exc: BaseException) -> set[str]:
    return {f"{cls.__module__}.{cls.__qualname__}" for cls in type(exc).__mro__}


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception, then its causes and contexts, each once, at most _MAX_DEPTH of them."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < _MAX_DEPTH and all(current is not s for s in seen):
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a broken __str__ must not break the user's cell twice
        return ""


def recognise(exc: BaseException) -> OutOfMemory | None:
    """The out-of-memory failure `exc` is (or was caused by), or None when it is none."""
    for link in _chain(exc):
        names = _class_names(link)
        text = _message(link)
        searched = text[:_SEARCHED_CHARS]
        for pattern in PATTERNS:
            if not names.intersection(pattern.classes):
                continue
            match = pattern.search(searched)
            if pattern.message is not None and match is None:
                continue
            facts = pattern.facts(match)
            gpu = facts.pop("gpu", None)
            requested = facts.pop("requested", None)
            device = pattern.device
            if pattern.where is not None:
                device, gpu = pattern.where(match, searched)
            cls = type(link)
            return OutOfMemory(pattern.framework, device, f"{cls.__module__}.{cls.__qualname__}",
                               redact(text[:_REDACTED_CHARS])[:_MESSAGE_CHARS], gpu, requested, facts)
    return None
