"""`%memfree` and `%memholders`: give back what a failed cell holds, and say which variables hold the rest.

Thin front ends of `oom.free.free` and `memory.holders.memory_holders`, imported on first use; what they return is
the view a notebook shows (`.result` / `.holders` are the data).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.magic import Magics, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments

from ._magics import _parse_args

if TYPE_CHECKING:
    from .presentation._freeing import FreeView, HoldersView

MAGICS = ("memfree", "memholders")


def free(outputs: bool = False) -> FreeView:
    """Give back what the last failed cell holds: its traceback's frames and the references Python and IPython keep
    to it, then garbage, then each loaded framework's cached blocks (`torch.cuda.empty_cache()`...). Never touches
    your variables; `outputs=True` also clears the output cache (`Out`, `_`, `__`). Returns what was freed, with the
    memory before and after; the live memory chart marks the moment."""
    from .oom._free import free as free_memory  # on first use: `%load_ext` stays light
    from .presentation._freeing import FreeView

    return FreeView(free_memory(outputs=outputs))


def holders() -> HoldersView:
    """The variables of the notebook that hold framework tensors or arrays (PyTorch, JAX, Paddle, MegEngine, MXNet,
    NumPy), largest first, with their size per device; shared storage counted once. Bounded in time: what it did not
    look at is said."""
    from .memory._holders import memory_holders
    from .presentation._freeing import HoldersView

    return HoldersView(memory_holders())


@magics_class
class MemoryMagics(Magics):
    @no_var_expand
    @magic_arguments()
    @argument("--outputs", action="store_true",
              help="also clear the output cache (Out, _, __, _N), as %%reset out does; it holds results you may want")
    @line_magic
    def memfree(self, line: str) -> Any:
        """Give back what the last failed cell holds, without a restart: clears its traceback's frames and the
        references Python and IPython keep to it (sys.last_*; %debug has nothing to open afterwards), collects
        garbage, and asks each loaded framework's allocator to return its cached blocks. Your variables are never
        touched. Shows the memory before and after."""
        args = _parse_args(self.memfree, line)
        return free(outputs=args.outputs)

    @no_var_expand
    @magic_arguments()
    @line_magic
    def memholders(self, line: str) -> Any:
        """List the variables holding framework tensors or arrays, largest first, with their size per device (shared
        storage counted once), so you know which `del` gives what back. `.holders` is the data."""
        _parse_args(self.memholders, line)
        return holders()
