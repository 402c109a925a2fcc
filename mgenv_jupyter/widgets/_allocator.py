"""`AllocatorWidget`: the memory-allocator settings of Paddle, MegEngine, MXNet, PyTorch, JAX or TensorFlow, with their
first-use latching shown: each framework's group (its title, rows, latching words and strategy) is its catalog home's
data (`ALLOCATOR`, catalog/_allocators.py).

Allocators read most of these once — at import, then fixed at the first allocation — so each row's status says
"may already be latched" once the framework is running. Rows that do not matter with the values chosen (Paddle's pool
sizes outside `naive_best_fit`, a rule of the catalog) stay visible and editable, greyed with the reason.

PyTorch, JAX and TensorFlow rows are the catalog's "GPU memory" variables of that framework. A `key:value` config
(PyTorch's PYTORCH_ALLOC_CONF) gets one typed control per key, with the joined string shown (the presentation layer's
"key_value" editor, as in every front end); the session checks and applies it as one value.
"""

from __future__ import annotations

import ipywidgets as widgets

from ..base._errors import InvalidValueError
from ..base._markup import text_html
from ..base._text import current_language
from ..catalog import Catalog, Entry
from ..catalog._allocators import Allocator
from ..runtime import session
from ._editors import KeyValueEditor
from ._panel import EnvPanel
from ._rows import VariableRow


def allocators() -> dict[str, Allocator]:
    """Every framework's allocator group, as its catalog home declares it (`ALLOCATOR`), by framework key."""
    from ..catalog._homes import declared

    return declared(lambda facts: facts.allocator)


def _default() -> str:
    return next(key for key, allocator in allocators().items() if allocator.default)


def allocator_entries(known: Catalog, framework: str) -> list[Entry]:
    """The catalog entries `AllocatorWidget(framework=...)` shows: the allocator's named variables in their order,
    else the framework's entries of its category in the catalog's order."""
    allocator = allocators()[framework]
    if allocator.names:
        return [entry for name in allocator.names if (entry := known.get(name)) is not None]
    return known.select(framework=framework, category=allocator.category)


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

    def __init__(self, framework: str | None = None) -> None:
        known = allocators()
        framework = _default() if framework is None else framework
        if framework not in known:
            raise InvalidValueError(f"unknown framework {framework!r}: use one of {', '.join(known)}")
        self.framework = framework
        self.allocator = known[framework]
        current = session()
        rows = [VariableRow(current, entry) for entry in allocator_entries(current.catalog, framework)]
        language = current_language()
        latching = widgets.HTML(text_html(self.allocator.latching.get(language)))
        latching.add_class("mgenv-intro")
        # "Try several values…" sweeps the first setting the widget shows (the allocator's strategy, its config)
        first = [row.entry.name for row in rows[:1]]
        super().__init__(rows, [latching, *rows], self.allocator.title.get(language), sweep=first)

    def strategy(self) -> str | None:
        """The allocator's strategy as chosen in the widget (edited or applied): Paddle's; None for a framework
        whose allocator has no such choice."""
        row = self.rows.get(self.allocator.strategy) if self.allocator.strategy is not None else None
        return row.value if isinstance(row, VariableRow) else None

    def config_editor(self, name: str | None = None) -> KeyValueEditor:
        """The per-key editor of a `key:value` config row (PyTorch's allocator config): `name`'s, else the first
        such row's."""
        rows = [self.rows.get(name)] if name is not None else list(self.rows.values())
        editors = [row.editor for row in rows if isinstance(row, VariableRow) and isinstance(row.editor,
                                                                                          KeyValueEditor)]
        if not editors:
            raise InvalidValueError(f"{name} is not a key:value config of this widget" if name is not None
                                    else "this widget has no key:value config")
        return editors[0]
