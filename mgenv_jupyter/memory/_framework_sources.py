"""Framework allocators: what MegEngine, Paddle, PyTorch, JAX and TensorFlow say they have allocated, reserved and
peaked at, and the device free/total MXNet reports.

A framework is never imported here: its source reads only when the framework is already in `sys.modules`, and says
"not imported" otherwise. Some readings would create a CUDA context (hundreds of MB) on a GPU the kernel has not used
yet — MegEngine's per-device counters and MXNet's `gpu_memory_info`. Those sources take a `gate(ordinal)`: when it
answers False (NVML sees no memory of the kernel's process tree on that GPU) the device is skipped until it is used.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from .._ascii_numbers import whole_number
from .._imported import imported
from ._sample import OK, Sample

Gate = Callable[[int], "bool | None"]
_MAX_NVML_INDEX = 9999  # far beyond any machine's GPUs; a longer number in CUDA_VISIBLE_DEVICES names none


class FrameworkSource:
    """Common behaviour: read only an already imported framework, never raise, keep the reason in `state`."""

    name = ""  # the framework's top-level module
    simulated = False

    def __init__(self, devices: Sequence[int] | None = None, gate: Gate | None = None) -> None:
        self.devices = None if devices is None else list(devices)
        self.gate = gate
        self._idle = f"{self.name} is not imported"
        self._state = self._idle

    @property
    def state(self) -> str:
        return self._state

    @property
    def idle(self) -> bool:
        """True while the framework is not imported."""
        return self._state is self._idle

    def sample(self) -> list[Sample]:
        module = imported(self.name)  # never a framework a cell is still importing
        if module is None:
            self._state = self._idle
            return []
        try:
            return self._read(module)
        except Exception as exc:  # a framework call may raise anything; the sampler must carry on
            self._state = f"{self.name} error: {type(exc).__name__}: {_first_line(exc)}"
            return []

    def close(self) -> None:
        pass

    def _read(self, module: Any) -> list[Sample]:
        raise NotImplementedError

    def _open(self, ordinals: Sequence[int]) -> tuple[list[int], list[int]]:
        """(devices that may be read now, devices held back because reading them would create a CUDA context)."""
        if self.gate is None:
            return list(ordinals), []
        allowed: list[int] = []
        waiting: list[int] = []
        for ordinal in ordinals:
            (waiting if self.gate(ordinal) is False else allowed).append(ordinal)
        return allowed, waiting

    def _waiting_state(self, waiting: list[int]) -> str:
        names = ", ".join(f"gpu{d}" for d in waiting)
        return (f"waiting for the kernel to use {names}: reading {self.name}'s counters there now would create a "
                "CUDA context")


class MegEngineSource(FrameworkSource):
    """MegEngine's allocator on its default device (or `devices`): `get_allocated_memory`, `get_reserved_memory`,
    `get_max_allocated_memory`.

    MegEngine runs asynchronously and these counters are read without `megengine._full_sync()` (which would stall
    training), so they may trail the last operations slightly. Its CPU device keeps no allocator statistics (it
    reports 0 whatever is allocated), so a CPU-only MegEngine gives no series.
    """

    name = "megengine"

    def _read(self, mge: Any) -> list[Sample]:
        gpus = mge.get_device_count("gpu")
        if gpus == 0:
            self._state = ("megengine sees no GPU; its CPU device keeps no allocator statistics "
                           "(get_allocated_memory('cpu0') is always 0)")
            return []
        ordinals = self.devices if self.devices is not None else _default_gpu(mge.get_default_device())
        if not ordinals:
            self._state = f"megengine's default device is {mge.get_default_device()}, which has no GPU allocator"
            return []
        allowed, waiting = self._open([d for d in ordinals if d < gpus])
        samples = []
        for ordinal in allowed:
            device = f"gpu{ordinal}"
            samples.append(Sample(time.time(), self.name, device, framework="megengine",
                                  allocated=mge.get_allocated_memory(device),
                                  reserved=mge.get_reserved_memory(device),
                                  peak=mge.get_max_allocated_memory(device)))
        self._state = self._waiting_state(waiting) if waiting else OK
        return samples


class PaddleSource(FrameworkSource):
    """Paddle's allocator per GPU: `paddle.device.cuda.memory_allocated`, `memory_reserved`, `max_memory_allocated`.

    These are host-side counters (no CUDA context is created). GPUs where Paddle holds nothing are left out.
    """

    name = "paddle"

    def _read(self, paddle: Any) -> list[Sample]:
        cuda = paddle.device.cuda
        if not paddle.is_compiled_with_cuda():
            try:
                cuda.memory_allocated()
            except ValueError as exc:  # Paddle's own words: "not supported in CPU-only PaddlePaddle ..."
                self._state = f"paddle: {_first_line(exc)}"
            else:
                self._state = "CPU-only PaddlePaddle build: no GPU allocator statistics"
            return []
        count = cuda.device_count()
        if count == 0:
            self._state = "paddle sees no GPU"
            return []
        samples = []
        for ordinal in self.devices if self.devices is not None else range(count):
            reserved = cuda.memory_reserved(ordinal)
            allocated = cuda.memory_allocated(ordinal)
            if self.devices is None and not reserved and not allocated:
                continue
            samples.append(Sample(time.time(), self.name, f"gpu{ordinal}", framework="paddle", allocated=allocated,
                                  reserved=reserved, peak=cuda.max_memory_allocated(ordinal)))
        self._state = OK if samples else "ok: paddle holds no GPU memory yet"
        return samples


class TorchSource(FrameworkSource):
    """PyTorch's caching allocator per GPU (`torch.cuda.memory_allocated`, `memory_reserved`,
    `max_memory_allocated`), read only once PyTorch has initialised CUDA itself. GPUs it holds nothing on are left out.
    """

    name = "torch"

    def _read(self, torch: Any) -> list[Sample]:
        cuda = torch.cuda
        if not cuda.is_initialized():
            self._state = "torch has not initialised CUDA in this kernel yet"
            return []
        samples = []
        for ordinal in self.devices if self.devices is not None else range(cuda.device_count()):
            reserved = cuda.memory_reserved(ordinal)
            if self.devices is None and not reserved:
                continue
            samples.append(Sample(time.time(), self.name, f"gpu{ordinal}", framework="torch",
                                  allocated=cuda.memory_allocated(ordinal), reserved=reserved,
                                  peak=cuda.max_memory_allocated(ordinal)))
        self._state = OK if samples else "ok: torch holds no GPU memory yet"
        return samples


class JaxSource(FrameworkSource):
    """JAX's allocator per device of its default backend: `Device.memory_stats()` → `bytes_in_use` (allocated),
    `pool_bytes` (reserved: what the allocator took from the device, all of it when JAX preallocates), and
    `peak_bytes_in_use` (peak); `bytes_limit` (the most it may take: XLA_PYTHON_CLIENT_MEM_FRACTION of the device) is
    the device's `total`.

    Read only once JAX has started its backends (`jax._src.xla_bridge.backends_are_initialized()`): asking for devices
    earlier would start them, which reads XLA_FLAGS and the XLA client's memory settings and, on a GPU, preallocates
    most of its memory. A backend without statistics (the CPU's `memory_stats()` is None) gives no series.
    """

    name = "jax"

    def _read(self, jax: Any) -> list[Sample]:
        from ..runtime.frameworks._jax import backends_initialised

        if not backends_initialised():
            self._state = "jax has not started its backends yet (its first operation starts them)"
            return []
        samples = []
        untracked = set()
        for device in jax.local_devices():
            if self.devices is not None and device.id not in self.devices:
                continue
            stats = device.memory_stats()
            if not stats:
                untracked.add(device.platform)
                continue
            samples.append(Sample(time.time(), self.name, f"{device.platform}{device.id}", framework="jax",
                                  allocated=stats.get("bytes_in_use"), reserved=stats.get("pool_bytes"),
                                  peak=stats.get("peak_bytes_in_use"), total=stats.get("bytes_limit")))
        if samples:
            self._state = OK
        else:
            platforms = ", ".join(sorted(untracked)) or "default"
            self._state = f"jax's {platforms} backend keeps no memory statistics (Device.memory_stats() is None)"
        return samples


class TensorFlowSource(FrameworkSource):
    """TensorFlow's allocator per GPU: `tf.config.experimental.get_memory_info("GPU:n")` → `current` (allocated) and
    `peak`; TensorFlow reports neither what it holds from the device nor its limit.

    Read only once TensorFlow's eager context is initialised (its first operation): `get_memory_info` initialises the
    context itself, which fixes the thread pools and takes the GPUs. Without a GPU there is nothing to read
    (TensorFlow 2.21 answers zeros for "CPU:0", though its docs say it raises).
    """

    name = "tensorflow"

    def _read(self, tf: Any) -> list[Sample]:
        from ..runtime.frameworks._tensorflow import context_initialised

        if not context_initialised():
            self._state = "tensorflow has not initialised its runtime yet (its first operation does)"
            return []
        gpus = tf.config.list_logical_devices("GPU")
        if not gpus:
            self._state = "tensorflow sees no GPU"
            return []
        samples = []
        for gpu in gpus:
            name = gpu.name.rpartition("device:")[2]  # "/device:GPU:1" → "GPU:1", as get_memory_info takes it
            ordinal = int(name.rpartition(":")[2])
            if self.devices is not None and ordinal not in self.devices:
                continue
            info = tf.config.experimental.get_memory_info(name)
            samples.append(Sample(time.time(), self.name, f"gpu{ordinal}", framework="tensorflow",
                                  allocated=info.get("current"),
                                  peak=info.get("peak")))
        self._state = OK
        return samples


class MXNetSource(FrameworkSource):
    """MXNet's view of each GPU: `mx.context.gpu_memory_info` → free and total, shown as used/total.

    This is cudaMemGetInfo: device-wide (every process), not MXNet's own pool, which MXNet does not report.
    """

    name = "mxnet"

    def _read(self, mx: Any) -> list[Sample]:
        count = mx.context.num_gpus()
        if count == 0:
            self._state = "mxnet sees no GPU" + (" (this MXNet build has no CUDA)" if not _mxnet_cuda(mx) else "")
            return []
        allowed, waiting = self._open(self.devices if self.devices is not None else range(count))
        samples = []
        for ordinal in allowed:
            free, total = mx.context.gpu_memory_info(ordinal)
            samples.append(Sample(time.time(), self.name, f"gpu{ordinal}", framework="mxnet", used=total - free,
                                  total=total))
        self._state = self._waiting_state(waiting) if waiting else OK
        return samples


def framework_sources(gate: Gate | None = None) -> list[FrameworkSource]:
    """One source per framework; each stays idle ("not imported") until its framework is imported."""
    return [MegEngineSource(gate=gate), PaddleSource(), TorchSource(), JaxSource(), TensorFlowSource(),
            MXNetSource(gate=gate)]


def nvml_index(ordinal: int) -> int | None:
    """The NVML index of CUDA device `ordinal`, through CUDA_VISIBLE_DEVICES; None when that names GPUs by UUID or
    hides the ordinal. (CUDA orders GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; on machines with one GPU
    model, as most are, both orders agree.)"""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None or not visible.strip():
        return ordinal
    entries = [e.strip() for e in visible.split(",")]
    # ASCII digits only: '²' passes str.isdigit() and then int() raises (_ascii_numbers.py).
    return whole_number(entries[ordinal], 0, _MAX_NVML_INDEX) if ordinal < len(entries) else None


def _default_gpu(device: str) -> list[int]:
    match = re.fullmatch(r"(?:gpu|xpu)(\d+|x)(?::\d+)?", device)
    if match is None:
        return []
    return [0 if match.group(1) == "x" else int(match.group(1))]


def _mxnet_cuda(mx: Any) -> bool:
    try:
        return bool(mx.runtime.Features().is_enabled("CUDA"))
    except Exception:  # older builds have no feature list: assume CUDA, say less
        return True


def _first_line(exc: BaseException) -> str:
    """The telling line of an error message; MXNet's start with a C++ traceback and end with the message."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    return lines[-1] if lines[0].startswith("Traceback") else lines[0]
