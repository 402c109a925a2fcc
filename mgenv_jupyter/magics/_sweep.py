"""`%%envsweep` and `mgenv_jupyter.sweep(...)`: the tuner's front end. It reads the line (or the arguments), works
out what each point replays from this kernel's history, runs the sweep (`sweeps/`) and shows it as the sweep view
(`presentation/sweep/`, live while the points run when a front end draws widgets).

    %%envsweep MEGENGINE_DTR_EVICTION_THRESHOLD=2GB,4GB,6GB,8GB --repeat 3
    train_step()

The line names the variables and their values (commas between values; a value that holds a comma is its own
NAME=VALUE word, the name repeated), and the options; the cell is the code each point measures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments

from ..base._errors import InvalidValueError
from ..base._kernel_state import Slot
from ..base._text import Text
from ._env import MAGICS as LINE_MAGICS
from ._env import _parse_args

if TYPE_CHECKING:
    from ..sweeps._replay import SetupPlan
    from ..sweeps._result import SweepResult

# Our magics, left out of what a point replays: their effect reaches the point through the environment it inherits.
REPLAY_LINE_MAGICS = (*LINE_MAGICS, "memtrace")
REPLAY_CELL_MAGICS = ("envset", "envsweep")
# Our cell magics that run their cell as code (it defined names, loaded a model): the point replays the cell's body.
REPLAY_BODY_MAGICS = ("memtrace",)

BAD_SETUP = Text("setup must be None (replay this kernel's cells), code, a list of code, or a list of cell numbers "
                 "(In [n]), not {kind}",
                 "setup 必须是 None(重放本内核的单元)、代码、代码列表或单元编号(In [n])列表,而不是 {kind}")
NO_SUCH_CELL = Text("there is no cell [{number}] in this kernel's history (cells 1 to {last} ran before this one)",
                    "本内核的历史中没有单元 [{number}](在此之前运行的是单元 1 到 {last})")
SEARCHES = ("grid", "largest_fit")
BAD_SEARCH = Text("search must be 'grid' (every point) or 'largest_fit' (the largest value that fits), not {value!r}",
                  "search 必须是 'grid'(每个点)或 'largest_fit'(能放下的最大取值),而不是 {value!r}")
MARGIN_ALONE = Text("a margin goes with the largest-fit search (--largest-fit, search='largest_fit')",
                    "margin 只用于最大可容纳搜索(--largest-fit,search='largest_fit')")
FIT_ALONE = Text("the largest-fit search runs one probe at a time over one variable: it takes no --together or "
                 "--parallel",
                 "最大可容纳搜索一次只运行一个探测、只搜索一个变量:不接受 --together 或 --parallel")
BAD_CELLS = Text("--setup takes cell numbers such as 3,5,7 (In [n]) or 'none', not {text!r}",
                 "--setup 的取值应为 3,5,7 这样的单元编号(In [n])或 'none',而不是 {text!r}")


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _history(shell: Any) -> tuple[list[str], int]:
    """The raw input history (index n is `In [n]`) and the number of the cell running now (the first not replayed)."""
    if shell is None or getattr(shell, "history_manager", None) is None:
        return [""], 1
    history = list(shell.history_manager.input_hist_raw)
    from ..memory._cell_events import running_cell

    running = running_cell()
    current = running.execution_count if running is not None else len(history)
    return history, max(1, min(current, len(history)))


def _outcomes() -> dict[int, bool | None]:
    from ..memory._shared import kernel_sampler

    return {marker.cell: marker.ok for marker in kernel_sampler().cells.markers}


# The cells in which a sweep ran, never replayed.
_SWEEP_CELLS: Slot[set[int]] = Slot("the cells a sweep ran in")


def sweep_cells() -> set[int]:
    return _SWEEP_CELLS.get_or_make(set)


def setup_plan(setup: object, shell: Any = None) -> SetupPlan:
    """What each point runs before the measured cell: None replays this kernel's cells (less failed ones and our
    magics); code or a list of code runs that; a list of cell numbers replays those cells."""
    from ..sweeps._replay import given_setup, replay_plan

    if setup is None or (isinstance(setup, (list, tuple)) and setup and all(
            isinstance(n, int) and not isinstance(n, bool) for n in setup)):
        shell = shell if shell is not None else _shell()
        history, current = _history(shell)
        plan = replay_plan(history, current, _outcomes() if shell is not None else {}, REPLAY_LINE_MAGICS,
                           REPLAY_CELL_MAGICS, sweep_cells(), REPLAY_BODY_MAGICS)
        if setup is None:
            return plan
        return _chosen_cells(plan, history, current, [int(n) for n in setup])  # type: ignore[union-attr]
    if isinstance(setup, str) or (isinstance(setup, (list, tuple)) and all(isinstance(c, str) for c in setup)):
        return given_setup(setup)  # type: ignore[arg-type]
    raise InvalidValueError(BAD_SETUP.get().format(kind=type(setup).__name__))


def _chosen_cells(plan: SetupPlan, history: list[str], current: int, numbers: list[int]) -> SetupPlan:
    """The cells the user named, in the order named, as the replay would run them (our magics' lines dropped)."""
    from ..sweeps._replay import SetupCell, SetupPlan, replay_plan

    by_number = {cell.number: cell for cell in plan.cells}
    chosen = []
    for number in numbers:
        if not 1 <= number < current:
            raise InvalidValueError(NO_SUCH_CELL.get().format(number=number, last=current - 1))
        cell = by_number.get(number)
        if cell is None:  # a cell the replay left out (it failed, say): the user asked for it, so it runs
            single = replay_plan(history, current, {}, REPLAY_LINE_MAGICS, REPLAY_CELL_MAGICS,
                                 body_magics=REPLAY_BODY_MAGICS)
            cell = next((c for c in single.cells if c.number == number), SetupCell(number, history[number]))
        chosen.append(cell)
    return SetupPlan(tuple(chosen), replayed=False)


def sweep(code: str, values: Mapping[str, Sequence[object]], setup: object = None, repeat: int = 1,
          timeout: float | None = 600.0, budget: int | str | None = None, *, kernel: str | None = None,
          parallel: int | None = None, setup_timeout: float | None = None, force: bool = False,
          ray: bool | None = None, together: bool = False, search: str = "grid", margin: float | str | None = None,
          source: str = "api", on_start: Callable[[SweepResult], None] | None = None,
          on_point: Callable[[SweepResult, Any], None] | None = None) -> SweepResult:
    """Run `code` once per point of `values` (NAME → values; several names make a grid), each point in a fresh
    kernel of this kernel's kernelspec with its variables in the environment before it starts, and compare them.

    `setup`: what runs before `code` in each point: None replays the cells this kernel ran (less the failed ones
    and our magics); code, a list of code, or a list of cell numbers instead. `repeat`: runs of `code` per point
    (the median is kept). `timeout`: seconds the runs of `code` may take per point (None: no limit). `budget`: the
    most memory a recommended point may peak at (a size such as "10GB"; default: the device's total less 5%, or the
    host's without a GPU). `kernel`: another kernelspec by name. `parallel`: at most this many points at a time (one
    per GPU by default). `ray`: False runs locally even when your code connected Ray. `together`: the variables'
    values go together (the n-th point takes every variable's n-th value) instead of every combination.

    `search="largest_fit"`: instead of every point, find by bisection the largest value of one variable whose point
    ends without running out of memory and peaks within `budget` less `margin` (a share: 0.1 or "10%", the default;
    `budget` defaults to the device's total, or the host's): `values` is {"NAME": range(LOW, HIGH + 1)}, a list in
    increasing order, or a text holding LOW..HIGH ("max_split_size_mb:64..1024" inside an allocator config). Each
    probe is a fresh kernel; the frame lists every probe, `.best` is the answer and `.apply()` sets it.

    Every value is checked as `%envset` checks it before anything starts; bad input raises `InvalidValueError` and
    nothing runs. Returns a `SweepResult` (`.frame()`, `.best`, `.apply()`); `mgenv_jupyter.last_sweep()` returns it
    later. Interrupting keeps the points that finished."""
    from ..runtime import session
    from ..sweeps._run import run_sweep

    if search not in SEARCHES:
        raise InvalidValueError(BAD_SEARCH.get().format(value=str(search)[:40]))
    largest_fit = search == "largest_fit"
    if not largest_fit and margin is not None:
        raise InvalidValueError(MARGIN_ALONE.get())
    if largest_fit and (together or parallel is not None):
        raise InvalidValueError(FIT_ALONE.get())
    shell = _shell()
    plan = setup_plan(setup, shell)
    history, current = _history(shell)
    if largest_fit:
        from ..sweeps._fit import NOT_ONE, run_largest_fit

        if not isinstance(values, Mapping) or len(values) != 1:
            raise InvalidValueError(NOT_ONE.get().format(count=len(values) if isinstance(values, Mapping) else 0))
        ((name, raw),) = values.items()
        sweep_cells().add(current)
        return run_largest_fit(code, name, raw, plan, session=session(), repeat=repeat, timeout=timeout,
                               setup_timeout=setup_timeout, budget=budget, margin=margin, kernel=kernel, force=force,
                               source=source, on_start=on_start, on_point=on_point)
    sweep_cells().add(current)
    return run_sweep(code, values, plan, session=session(), repeat=repeat, timeout=timeout,
                     setup_timeout=setup_timeout, budget=budget, kernel=kernel, parallel=parallel, force=force,
                     source=source, zipped=together, on_start=on_start, on_point=on_point, ray=ray)


def _cell_numbers(text: str) -> list[int] | str:
    if text.strip().lower() == "none":
        return ""
    try:
        numbers = [int(word) for word in text.split(",") if word.strip()]
    except ValueError:
        raise UsageError(BAD_CELLS.get().format(text=text[:40])) from None
    if not numbers:
        raise UsageError(BAD_CELLS.get().format(text=text[:40]))
    return numbers


@magics_class
class SweepMagics(Magics):
    @no_var_expand
    @magic_arguments()
    @argument("assignments", nargs="+", metavar="NAME=VALUE,VALUE",
              help="the values to try: commas between values; a value holding a comma is its own NAME=VALUE word")
    @argument("--repeat", "-r", type=int, default=1, help="runs of the cell per point; the median is kept (default 1)")
    @argument("--timeout", type=float, default=600.0, help="seconds the cell's runs may take per point (default 600)")
    @argument("--setup-timeout", type=float, default=None, dest="setup_timeout",
              help="seconds the replayed cells may take per point (default: no limit)")
    @argument("--budget", default=None, help="the most memory a recommended point may peak at, e.g. 10GB "
              "(default: the device's total less 5%%, or the host's without a GPU)")
    @argument("--setup", default=None, metavar="CELLS",
              help="replay these cells instead (In [n] numbers: 3,5,7), or 'none' (default: every cell this kernel "
                   "ran before, less failed ones and our magics)")
    @argument("--kernel", default=None, help="another kernelspec by name (default: this kernel's)")
    @argument("--parallel", type=int, default=None, help="at most this many points at a time (default: one per GPU)")
    @argument("--local", action="store_true", help="run the points here even when your code connected Ray")
    @argument("--together", action="store_true",
              help="take the variables' values together (the n-th point gets every variable's n-th value) instead "
                   "of every combination")
    @argument("--largest-fit", action="store_true", dest="largest_fit",
              help="find the largest value of NAME=LOW..HIGH whose point fits the budget less the margin, by "
                   "bisection (each probe a fresh kernel)")
    @argument("--margin", default=None, help="with --largest-fit: the share of the budget left free (default 10%%)")
    @argument("--force", action="store_true", help="as %%envset --force: names that look like misspelt ones")
    @argument("-o", action="store_true", dest="output", help="return the SweepResult")
    @cell_magic
    def envsweep(self, line: str, cell: str) -> Any:
        """Measure this cell under several values of one or more variables, each point in a fresh kernel (time,
        peak GPU and host memory, failures), and recommend the fastest that fits the memory budget.

            %%envsweep MEGENGINE_DTR_EVICTION_THRESHOLD=2GB,4GB,6GB,8GB --repeat 3
            train_step()

        Each point replays the cells this kernel ran before (less failed ones and our magics; --setup to choose),
        then runs the cell. Values are checked as %envset checks them before anything starts. A value that holds a
        comma (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128) is given as its own
        NAME=VALUE word, the name repeated once per value. mgenv_jupyter.last_sweep() returns the result; -o returns
        it here. Interrupting keeps the points that finished.

        Will it fit: the largest value whose point neither runs out of memory nor peaks above the budget less the
        margin, found by bisection, each probe a fresh kernel (about log2 of the range's size probes):

            %%envsweep BATCH=1..4096 --largest-fit --margin 10%
            train_step(batch=int(os.environ["BATCH"]))

        LOW..HIGH may sit inside a value (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False,max_split_size_mb:
        64..1024) or carry decimals (XLA_PYTHON_CLIENT_MEM_FRACTION=0.50..0.95) or a unit (1GB..8GB).
        """
        from ..runtime import session
        from ..sweeps._grid import words_to_values

        args = _parse_args(self.envsweep, line)
        try:
            values = (_fit_values(args.assignments) if args.largest_fit
                      else words_to_values(args.assignments, session()))
            setup = _cell_numbers(args.setup) if args.setup is not None else None
            result = _show_live(lambda on_start, on_point: sweep(
                cell, values, setup=setup, repeat=args.repeat, timeout=args.timeout, budget=args.budget,
                kernel=args.kernel, parallel=args.parallel, setup_timeout=args.setup_timeout, force=args.force,
                ray=False if args.local else None, together=args.together,
                search="largest_fit" if args.largest_fit else "grid", margin=args.margin, source="magic",
                on_start=on_start, on_point=on_point))
        except InvalidValueError as exc:
            raise UsageError(str(exc)) from None
        return result if args.output else None


def _fit_values(words: Sequence[str]) -> dict[str, str]:
    """--largest-fit's one NAME=LOW..HIGH word, its value whole (an allocator config's commas kept)."""
    from ..sweeps._fit import NOT_ONE
    from ..sweeps._grid import NOT_ASSIGNMENT

    if len(words) != 1:
        raise InvalidValueError(NOT_ONE.get().format(count=len(words)))
    name, sep, text = words[0].partition("=")
    if not sep or not name.strip():
        raise InvalidValueError(NOT_ASSIGNMENT.get().format(position=1))
    return {name.strip(): text}


def _show_live(run: Callable[[Callable[[Any], None], Callable[[Any, Any], None]], SweepResult]) -> SweepResult:
    """Run the sweep with its view on screen from the start, updated as each point ends, final at the end."""
    from IPython.display import display

    from ..widgets._sweep_chart import sweep_display

    shown: dict[str, Any] = {}

    def on_start(result: SweepResult) -> None:
        shown["view"] = view = sweep_display(result)
        shown["handle"] = display(view, display_id=True)

    def on_point(result: SweepResult, point: Any) -> None:
        view = shown.get("view")
        if view is not None:
            view.update(result)
            handle = shown.get("handle")
            if handle is not None and not view.live:  # a widget redraws itself; a static view is shown again
                handle.update(view)

    try:
        result = run(on_start, on_point)
    finally:
        view = shown.get("view")
        if view is not None:
            from ..sweeps._result import last_sweep

            final = last_sweep()
            view.update(final if final is not None else view.result, running=False)
            handle = shown.get("handle")
            if handle is not None:
                handle.update(view)
    return result


def register_sweep(ipython: Any, on: bool = True) -> None:
    """Install (or remove) `%%envsweep`. A `SweepResult` and what `.apply()` returns show themselves as the sweep
    view, as every result does (base/_display.py)."""
    if not on:
        ipython.magics_manager.magics["cell"].pop("envsweep", None)
        return
    ipython.register_magics(SweepMagics)
