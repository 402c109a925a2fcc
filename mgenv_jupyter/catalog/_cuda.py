"""CUDA runtime variables every GPU framework reads when it first initialises CUDA (not in the seeds, but users expect
them to be known: setting CUDA_VISIBLE_DEVICES after the first CUDA call silently does nothing)."""

from __future__ import annotations

from ..base._text import Text
from ._entry import EntryFactory, ReadWhen
from ._frameworks import GPU_MODULES
from ._values import Choice, DeviceList, Switch

CUDA_READERS = GPU_MODULES  # NVML ignores them
DEVICES = Text("Device selection", "设备选择")
_FIRST_CUDA_INIT = Text(
    "the first CUDA initialisation in this process (the first GPU operation of any framework)",
    "本进程第一次初始化 CUDA 时(任一框架的第一次 GPU 操作)",
)
_CU_INIT = Text("CUDA driver : cuInit", "CUDA 驱动 : cuInit")  # where both variables are read
_LATCH = Text(
    "Read once by the CUDA driver when the process first initialises CUDA; later changes are ignored until restart.",
    "CUDA 驱动在进程第一次初始化 CUDA 时读取一次;之后修改直到重启内核都不会生效。",
)

_variable = EntryFactory("cuda", readers=CUDA_READERS, latch="cuda")

ENTRIES = (
    _variable(
        "CUDA_VISIBLE_DEVICES",
        category=DEVICES,
        type=DeviceList(),
        default=None,
        when=ReadWhen.FIRST_USE,
        read_at=_CU_INIT,
        first_use=_FIRST_CUDA_INIT,
        description=Text(
            "Which GPUs this process may see, and in which order; they are renumbered from 0.",
            "限定本进程可见的 GPU 及其顺序;可见设备会从 0 开始重新编号。",
        ),
        caveats=(_LATCH,),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "CUDA_DEVICE_ORDER",
        category=DEVICES,
        type=Choice(("FASTEST_FIRST", "PCI_BUS_ID")),
        default="FASTEST_FIRST",
        when=ReadWhen.FIRST_USE,
        read_at=_CU_INIT,
        first_use=_FIRST_CUDA_INIT,
        description=Text(
            "How CUDA numbers devices: fastest first, or by PCI bus id (which matches nvidia-smi).",
            "CUDA 的设备编号方式:最快的优先,或按 PCI 总线号(与 nvidia-smi 一致)。",
        ),
        caveats=(_LATCH,),
        extra=True,
        loads_code=None,
    ),
    _variable(
        "CUDA_LAUNCH_BLOCKING",
        category=Text("Debugging", "调试"),
        type=Switch(),
        default="0",
        when=ReadWhen.FIRST_USE,
        read_at=Text(
            "CUDA driver : context creation",
            "CUDA 驱动 : 创建上下文时",
        ),
        first_use=_FIRST_CUDA_INIT,
        description=Text(
            "Run every CUDA kernel synchronously so errors point at the operation that caused them (slow).",
            "让每个 CUDA kernel 同步执行,报错会指向真正出错的算子(会变慢)。",
        ),
        caveats=(_LATCH,),
        extra=True,
        loads_code=None,
    ),
)
