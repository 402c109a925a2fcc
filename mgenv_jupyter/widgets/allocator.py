"""`AllocatorWidget`: the memory-allocator settings of Paddle, MegEngine or MXNet, with their first-use latching shown.

Allocators read most of these once — at import, then fixed at the first allocation — so each row's status says
"may already be latched" once the framework is running. Rows that do not matter with the values chosen (Paddle's pool
sizes outside `naive_best_fit`, a rule of the catalog) stay visible and editable, greyed with the reason.
"""

from __future__ import annotations

import ipywidgets as widgets

from ..errors import InvalidValueError
from ..runtime import session
from ..text import Text, current_language
from .markup import text_html
from .panel import EnvPanel
from .rows import VariableRow

PADDLE_STRATEGY = "FLAGS_allocator_strategy"
ALLOCATOR_NAMES: dict[str, tuple[str, ...]] = {
    "paddle": (PADDLE_STRATEGY, "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb",
               "FLAGS_reallocate_gpu_memory_in_mb", "FLAGS_fraction_of_cpu_memory_to_use",
               "FLAGS_initial_cpu_memory_in_mb"),
    "megengine": ("MGB_CUDA_RESERVE_MEMORY", "MEGENGINE_INPLACE_UPDATE"),
    "mxnet": ("MXNET_GPU_MEM_POOL_TYPE", "MXNET_GPU_MEM_POOL_RESERVE"),
}
TITLES = {"paddle": "Paddle allocator", "megengine": "MegEngine allocator", "mxnet": "MXNet GPU memory pool"}

LATCHING = {
    "paddle": Text(
        "Paddle copies these flags at `import paddle`; paddle.set_flags changes them afterwards, but the allocator "
        "fixes its strategy and pool sizes at the first allocation — after that a change is reported by "
        "paddle.get_flags and ignored by the allocator (status \"may already be latched\").",
        "Paddle 在 `import paddle` 时读取这些 flag,之后可用 paddle.set_flags 修改;但分配器在第一次分配时就固定了策略"
        "和内存池大小,此后的修改 paddle.get_flags 能看到,分配器却不再理会(状态为 \"may already be latched\")。",
    ),
    "megengine": Text(
        "The reserve is taken when each GPU is first used, so it must be set before the first operation on that "
        "device; in-place update is read at every optimizer step.",
        "预留显存在每块 GPU 第一次使用时申请,必须在该设备上第一次运算前设置;原地更新在每次 optimizer.step() 时读取。",
    ),
    "mxnet": Text(
        "MXNet's GPU memory pool reads these at the first GPU allocation and keeps them until the process ends.",
        "MXNet 的显存池在第一次 GPU 分配时读取这些变量,并一直沿用到进程结束。",
    ),
}
class AllocatorWidget(EnvPanel):
    """Allocator settings of one framework: `AllocatorWidget(framework="paddle" | "megengine" | "mxnet")`.

    Paddle: allocator strategy, memory fractions and initial/reallocate chunk sizes (applied live with
    paddle.set_flags once Paddle is imported). MegEngine: MGB_CUDA_RESERVE_MEMORY and MEGENGINE_INPLACE_UPDATE.
    MXNet: MXNET_GPU_MEM_POOL_TYPE and MXNET_GPU_MEM_POOL_RESERVE. Each row's status shows when a value may already be
    latched by the framework's first allocation.
    """

    def __init__(self, framework: str = "paddle") -> None:
        if framework not in ALLOCATOR_NAMES:
            raise InvalidValueError(f"unknown framework {framework!r}: use one of {', '.join(ALLOCATOR_NAMES)}")
        self.framework = framework
        current = session()
        known = current.catalog
        rows = [VariableRow(current, known.get(name)) for name in ALLOCATOR_NAMES[framework]]  # type: ignore[arg-type]
        latching = widgets.HTML(text_html(LATCHING[framework].get(current_language())))
        latching.add_class("mgenv-intro")
        super().__init__(rows, [latching, *rows], TITLES[framework])

    def strategy(self) -> str | None:
        """Paddle's allocator strategy as chosen in the widget (edited or applied); None for other frameworks."""
        if self.framework != "paddle":
            return None
        row = self.rows[PADDLE_STRATEGY]
        return row.value if isinstance(row, VariableRow) else None
