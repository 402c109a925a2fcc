"""Which frameworks record where their memory was allocated (a Python stack per block), how, and what the others do
not record: the facts the allocation sites (`%%memtrace`, the out-of-memory report's "Where the memory was
allocated") ask instead of restating. Checked against the wheels the tests run (catalog._frameworks)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .._text import Text


class Recording(str, Enum):
    ALWAYS = "always"  # the framework keeps a stack for every live block whatever we do (JAX)
    WHEN_ON = "when_on"  # a recording the kernel turns on (PyTorch's CUDA memory history, its CPU profiler)
    NEVER = "never"  # the framework keeps no stack for its blocks


@dataclass(frozen=True)
class StackFacts:
    framework: str
    recording: Recording
    how: Text  # the framework's own record, named
    kept_on: Text | None = None  # what `%memtrace on` keeps on for it (None: nothing to switch, or no stacks)
    per_cell: Text | None = None  # what records each cell instead where nothing can be kept on


FACTS = {
    "jax": StackFacts("jax", Recording.ALWAYS, Text(
        "JAX keeps the Python stack of every live buffer (jax.profiler.device_memory_profile), always",
        "JAX 始终记录每个存活缓冲区的 Python 调用栈(jax.profiler.device_memory_profile)"),
        kept_on=Text("JAX: always recorded (its device memory profile)", "JAX:始终记录(其设备内存分析)")),
    "torch": StackFacts("torch", Recording.WHEN_ON, Text(
        "PyTorch records stacks on CUDA in its memory history (torch.cuda.memory._record_memory_history) and on "
        "the CPU in its profiler's memory events (torch.profiler with profile_memory and with_stack), only while "
        "they are on",
        "PyTorch 仅在开启时记录调用栈:CUDA 上是显存历史(torch.cuda.memory._record_memory_history),CPU 上是"
        "性能分析器的内存事件(torch.profiler 的 profile_memory 与 with_stack)"),
        kept_on=Text("PyTorch: the CUDA memory history, kept on", "PyTorch:CUDA 显存历史,保持开启"),
        per_cell=Text("PyTorch: no CUDA started, so each cell is recorded by its CPU profiler's memory events while "
                      "it runs", "PyTorch:尚未启动 CUDA,每个单元运行时由 CPU 性能分析器的内存事件记录")),
    "tensorflow": StackFacts("tensorflow", Recording.NEVER, Text(
        "TensorFlow does not record where its tensors were allocated: its allocators keep sizes and its profiler "
        "names operations, not Python lines",
        "TensorFlow 不记录张量在哪里分配:其分配器只记录大小,性能分析器只记录算子,不记录 Python 代码行")),
    "paddle": StackFacts("paddle", Recording.NEVER, Text(
        "PaddlePaddle does not record where its tensors were allocated: its allocator keeps sizes, not stacks",
        "飞桨 PaddlePaddle 不记录张量在哪里分配:其分配器只记录大小,不记录调用栈")),
    "megengine": StackFacts("megengine", Recording.NEVER, Text(
        "MegEngine does not record where its tensors were allocated: its allocator keeps sizes, not stacks",
        "MegEngine 不记录张量在哪里分配:其分配器只记录大小,不记录调用栈")),
    "mxnet": StackFacts("mxnet", Recording.NEVER, Text(
        "MXNet does not record where its arrays were allocated: its storage pool keeps sizes, not stacks",
        "MXNet 不记录数组在哪里分配:其存储池只记录大小,不记录调用栈")),
}
