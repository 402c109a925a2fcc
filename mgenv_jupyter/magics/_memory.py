"""`%memfree`, `%memholders` and `%memtrace`: give back what a failed cell holds, say which variables hold the
rest, and which lines allocated it.

Thin front ends of `oom.free.free`, `memory.holders.memory_holders` and `memory.tracing`, imported on first use; what
they return is the view a notebook shows (`.result` / `.holders` / `.sites` are the data).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments

from ._env import _parse_args

if TYPE_CHECKING:
    from ..presentation._freeing import FreeView, HoldersView
    from ..presentation._memtrace import MemtraceView, SitesView

MAGICS = ("memfree", "memholders", "memtrace")


def free(outputs: bool = False) -> FreeView:
    """Give back what the last failed cell holds: its traceback's frames and the references Python and IPython keep
    to it, then garbage, then each loaded framework's cached blocks (`torch.cuda.empty_cache()`...). Never touches
    your variables; `outputs=True` also clears the output cache (`Out`, `_`, `__`). Returns what was freed, with the
    memory before and after; the live memory chart marks the moment."""
    from ..oom._free import free as free_memory  # on first use: `%load_ext` stays light
    from ..presentation._freeing import FreeView

    return FreeView(free_memory(outputs=outputs))


def holders() -> HoldersView:
    """The variables of the notebook that hold framework tensors or arrays (PyTorch, JAX, Paddle, MegEngine, MXNet,
    NumPy), largest first, with their size per device; shared storage counted once. Bounded in time: what it did not
    look at is said."""
    from ..memory._holders import memory_holders
    from ..presentation._freeing import HoldersView

    return HoldersView(memory_holders())


def trace(shell: Any, cell: str) -> SitesView:
    """Run `cell` in `shell`'s namespace with every loaded framework recording where it allocates, and return the
    live memory at the cell's peak by the line that allocated it. An error in the cell propagates as it would
    without the magic (an out-of-memory report then names the lines)."""
    from ..memory._cell_events import running_cell
    from ..memory._memtrace import kernel_memtrace
    from ..memory._memtrace_sites import CellNames
    from ..presentation._memtrace import SitesView

    memtrace = kernel_memtrace(shell)
    running = running_cell()
    number = running.execution_count if running is not None else None
    # One blank line first: the body's line numbers are the cell's as the user sees it (the magic's line is line 1).
    source = "\n" + shell.transform_cell(cell)
    filename = shell.compile.cache(source, number if number is not None else 0, raw_code=source)
    tree = shell.compile.ast_parse(source, filename)
    # The cell's last expression is shown as it would be without the magic (its value above the sites).
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    code = shell.compile(tree, filename, "exec")
    value_code = shell.compile(ast.Expression(last.value), filename, "eval") if last is not None else None
    value = None
    memtrace.begin(number)
    try:
        exec(code, shell.user_global_ns, shell.user_ns)
        if value_code is not None:
            value = eval(value_code, shell.user_global_ns, shell.user_ns)
    finally:
        sites = memtrace.finish(CellNames(shell))
    if value is not None:
        from IPython.display import display

        display(value)
    if sites is None:  # an out-of-memory report ended the recording first (it cannot here: the cell succeeded)
        from ..memory._memtrace_sites import Sites

        sites = Sites((), "peak", cell=number)
    return SitesView(sites)


def tracing(shell: Any, on: bool) -> MemtraceView:
    """Record where memory is allocated in every cell from the next one on (`on`), or stop."""
    from ..memory._memtrace import kernel_memtrace
    from ..presentation._memtrace import MemtraceView

    return MemtraceView(on, kernel_memtrace(shell).switch(shell, on))


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

    @no_var_expand
    @magic_arguments()
    @argument("mode", nargs="?", choices=("on", "off"),
              help="on: record every cell from the next one on; off: stop (as a cell magic: none)")
    @line_cell_magic
    def memtrace(self, line: str, cell: str | None = None) -> Any:
        """Which lines allocated the memory. As a cell magic (`%%memtrace`), run the cell with every loaded framework
        recording where it allocates and show the live memory at the cell's peak by cell and line, largest first
        (`.frame()`: one row a site with cell, line, code, bytes, blocks). `%memtrace on` records every cell from
        the next one on, so an out-of-memory report says where the memory was allocated; `%memtrace off` stops;
        `%memtrace` alone shows the last recorded cell's sites. JAX records always; PyTorch records while this is
        on (its CUDA memory history, or its CPU profiler's memory events); others record no stacks, as said."""
        mode = _parse_args(self.memtrace, line).mode
        if cell is not None:
            if mode is not None:
                raise UsageError(f"%%memtrace takes no arguments (got {mode!r}): %memtrace {mode} is a line magic")
            return trace(self.shell, cell)
        if mode is not None:
            return tracing(self.shell, mode == "on")
        from ..memory._memtrace import kernel_memtrace
        from ..presentation._memtrace import SitesView

        last = kernel_memtrace(self.shell).last
        if last is None:
            raise UsageError("no cell has been recorded yet: run one with %%memtrace, or turn %memtrace on")
        return SitesView(last)
