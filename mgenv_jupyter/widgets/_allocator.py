"""`AllocatorWidget`: the memory-allocator settings of Paddle, MegEngine, MXNet, PyTorch, JAX or TensorFlow, with their
first-use latching shown.

Allocators read most of these once — at import, then fixed at the first allocation — so each row's status says
"may already be latched" once the framework is running. Rows that do not matter with the values chosen (Paddle's pool
sizes outside `naive_best_fit`, a rule of the catalog) stay visible and editable, greyed with the reason.

PyTorch, JAX and TensorFlow rows are the catalog's "GPU memory" variables of that framework. A `key:value` config
(PyTorch's PYTORCH_ALLOC_CONF) gets one typed control per key, with the joined string shown (the presentation layer's
"key_value" editor, as in every front end); the session checks and applies it as one value.
"""

from __future__ import annotations

import ipywidgets as widgets

from .._errors import InvalidValueError
from .._markup import text_html
from .._text import Text, current_language
from ..catalog import Catalog, Entry
from ..runtime import session
from ._editors import KeyValueEditor
from ._panel import EnvPanel
from ._rows import VariableRow

PADDLE_STRATEGY = "FLAGS_allocator_strategy"
ALLOCATOR_NAMES: dict[str, tuple[str, ...]] = {
    "paddle": (PADDLE_STRATEGY, "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_gpu_memory_in_mb",
               "FLAGS_reallocate_gpu_memory_in_mb", "FLAGS_fraction_of_cpu_memory_to_use",
               "FLAGS_initial_cpu_memory_in_mb"),
    "megengine": ("MGB_CUDA_RESERVE_MEMORY", "MEGENGINE_INPLACE_UPDATE"),
    "mxnet": ("MXNET_GPU_MEM_POOL_TYPE", "MXNET_GPU_MEM_POOL_RESERVE"),
}
# Frameworks whose allocator rows are their catalog entries of this category (matched as `Catalog.select` does).
MEMORY_CATEGORY = {"torch": "GPU memory", "jax": "GPU memory", "tensorflow": "GPU memory"}
FRAMEWORKS = (*ALLOCATOR_NAMES, *MEMORY_CATEGORY)
TITLES = {"paddle": "Paddle allocator", "megengine": "MegEngine allocator", "mxnet": "MXNet GPU memory pool",
          "torch": "PyTorch allocator", "jax": "JAX GPU memory (XLA client)", "tensorflow": "TensorFlow GPU allocator"}

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
    "torch": Text(
        "The allocator config is applied as one value: each key below is its own control, and a key left at "
        "\"default\" is left out. backend is fixed when torch loads; the other keys at the allocator's first use, "
        "after which torch.cuda.memory._set_allocator_settings changes them for later allocations.",
        "分配器设置作为一个值整体应用:下面每个键各有一个控件,取 \"默认\" 的键不写入。backend 在 torch 加载时固定;其余键"
        "在分配器第一次使用时读取,之后可用 torch.cuda.memory._set_allocator_settings 修改,对之后的分配生效。",
    ),
    "jax": Text(
        "JAX reads these when its backend initialises — the first operation or jax.devices(), not the import — and "
        "only a GPU backend uses them; after that a change waits for a restart.",
        "JAX 在后端初始化时(第一次运算或 jax.devices(),而非 import 时)读取这些变量,且只有 GPU 后端使用它们;"
        "此后修改要等重启才生效。",
    ),
    "tensorflow": Text(
        "TensorFlow reads these when each GPU is first used (its allocator is created then); memory growth can "
        "still be switched per GPU with tf.config.experimental.set_memory_growth before that.",
        "TensorFlow 在每块 GPU 第一次使用时(此时创建其分配器)读取这些变量;在此之前仍可用 "
        "tf.config.experimental.set_memory_growth 按 GPU 开启显存增长。",
    ),
}


def allocator_entries(known: Catalog, framework: str) -> list[Entry]:
    """The catalog entries `AllocatorWidget(framework=...)` shows, in the catalog's order."""
    if framework in ALLOCATOR_NAMES:
        return [entry for name in ALLOCATOR_NAMES[framework] if (entry := known.get(name)) is not None]
    return known.select(framework=framework, category=MEMORY_CATEGORY[framework])


class AllocatorWidget(EnvPanel):
    """Allocator settings of one framework: `AllocatorWidget(framework="paddle" | "megengine" | "mxnet" | "torch" |
    "jax" | "tensorflow")`.

    Paddle: allocator strategy, memory fractions and initial/reallocate chunk sizes (applied live with
    paddle.set_flags once Paddle is imported). MegEngine: MGB_CUDA_RESERVE_MEMORY and MEGENGINE_INPLACE_UPDATE.
    MXNet: MXNET_GPU_MEM_POOL_TYPE and MXNET_GPU_MEM_POOL_RESERVE. PyTorch: PYTORCH_ALLOC_CONF with one control per
    key (`config_editor()`), its older name, and PYTORCH_NO_CUDA_MEMORY_CACHING. JAX: the XLA_PYTHON_CLIENT_*
    memory settings. TensorFlow: TF_FORCE_GPU_ALLOW_GROWTH, TF_GPU_ALLOCATOR and the pinned host memory limit. Each
    row's status shows when a value may already be latched by the framework's first allocation.
    """

    def __init__(self, framework: str = "paddle") -> None:
        if framework not in FRAMEWORKS:
            raise InvalidValueError(f"unknown framework {framework!r}: use one of {', '.join(FRAMEWORKS)}")
        self.framework = framework
        current = session()
        rows = [VariableRow(current, entry) for entry in allocator_entries(current.catalog, framework)]
        latching = widgets.HTML(text_html(LATCHING[framework].get(current_language())))
        latching.add_class("mgenv-intro")
        # "Try several values…" sweeps the first setting the widget shows (the allocator's strategy, its config)
        first = [row.entry.name for row in rows[:1]]
        super().__init__(rows, [latching, *rows], TITLES[framework], sweep=first)

    def strategy(self) -> str | None:
        """Paddle's allocator strategy as chosen in the widget (edited or applied); None for other frameworks."""
        if self.framework != "paddle":
            return None
        row = self.rows[PADDLE_STRATEGY]
        return row.value if isinstance(row, VariableRow) else None

    def config_editor(self, name: str = "PYTORCH_ALLOC_CONF") -> KeyValueEditor:
        """The per-key editor of a `key:value` config row (PyTorch's allocator config)."""
        row = self.rows.get(name)
        editor = row.editor if isinstance(row, VariableRow) else None
        if not isinstance(editor, KeyValueEditor):
            raise InvalidValueError(f"{name} is not a key:value config of this widget")
        return editor
