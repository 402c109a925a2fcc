"""ipywidgets editors, front ends of the kernel's `EnvSession`: `ConfigWidget` for any catalog variables, `DTRWidget`
for MegEngine's DTR, `AllocatorWidget` for the allocators of Paddle, MegEngine and MXNet; and `MemoryChart`, the live
memory chart (an anywidget)."""

from __future__ import annotations

from ._allocator import AllocatorWidget
from ._config import ConfigWidget
from ._dtr import DTRWidget
from ._memory_chart import MemoryChart

__all__ = ["AllocatorWidget", "ConfigWidget", "DTRWidget", "MemoryChart"]
