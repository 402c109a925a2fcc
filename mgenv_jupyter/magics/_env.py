"""The magics: %envset, %%envset, %envget, %envunset, %envlist, %envdiff, %envexport, %envload, %envlang, %memchart,
%oom, and %memfree and %memholders (_memory.py).

Magics are a thin front end of `EnvSession`: they parse the line, call the session, and turn `InvalidValueError` into
IPython's `UsageError` (a clean message, no traceback). They return values so a notebook shows them and a test can check
them in one line.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments

from ..base._display import Verbatim
from ..base._dotenv_line import parse_line
from ..base._errors import InvalidValueError
from ..base._kernel_state import Slot
from ..base._shell_words import split_words
from ..base._text import current_language, set_language
from ..catalog import FRAMEWORKS
from ..catalog._frameworks import KEYWORD_CALLS
from ..catalog._secrets import is_secret_value, redact
from ..runtime import _envfile as envfile
from ..runtime import _launchers as launchers
from ..runtime import session, watcher
from ..runtime._environ_limits import MAX_VARIABLE_BYTES

if TYPE_CHECKING:
    from ..oom._report import OomReport
    from ..presentation import VariableView
    from ..runtime._outcome import SetReport

# `%load_ext` imports only what `%envset` needs; the presentation layer, the comm's handler, the out-of-memory report
# and its view are imported by the magics and events that use them, on first use.

_COMPLETED_MAGICS = ("%envset", "%envget", "%envunset", "%%envset", "%envlist")


_WORD_SHOWN = 40  # longer input is described by position, not quoted


def _describe(word: str, position: int) -> str:
    """A word of the user's input as an error message may show it: quoted when it is short and cannot be a secret
    (a bare name), otherwise by its position (it may be a secret's value typed without its NAME=)."""
    if len(word) <= _WORD_SHOWN and word.isidentifier() and not is_secret_value(word):
        return repr(word)
    return f"word {position}"


# The longest magic line read: no line needs more than a few values of the environment's own cap
# (environ_limits.MAX_VARIABLE_BYTES), and a longer one is refused before it is split.
MAX_LINE_CHARS = 128 * 1024


def _parse_args(magic: Any, line: str) -> Any:
    """The one way every magic reads its line: the argparse parser its `magic_arguments` declare, over the words as a
    POSIX shell splits them (IPython's own splitting keeps quotes, so 'two words' would be two). Errors never quote
    the line, which may hold a secret: unbalanced quotes are said as such, and argparse's messages are redacted."""
    try:
        return magic.parser.parse_args(_words(line))
    except UsageError as exc:
        raise UsageError(redact(str(exc))) from None


def _words(line: str) -> list[str]:
    """The line's words as a POSIX shell splits them, or a UsageError for a line too long or unbalanced quotes."""
    _check_length(line)
    try:
        return split_words(line)  # shlex.split(posix=True)'s words, in linear time
    except ValueError as exc:
        raise UsageError(f"cannot read the line: {str(exc).lower()}; close every quote you open (\"...\" or '...')"
                         ) from None


def _check_length(line: str) -> None:
    if len(line) > MAX_LINE_CHARS:
        raise UsageError(f"the line is {len(line):,} characters long, more than the {MAX_LINE_CHARS:,} a magic line "
                         "may have (no environment variable holds more than "
                         f"{MAX_VARIABLE_BYTES:,} bytes); nothing was changed")


def _file_path(name: str) -> Path:
    """A file named on a magic's line, `~` expanded; a name no file can have is a UsageError, not a traceback."""
    if "\x00" in name:
        raise UsageError("the file name contains a NUL character, which no file name can hold; nothing was done")
    return Path(os.path.expanduser(name))


def parse_cell(cell: str) -> list[tuple[str, str]]:
    """`NAME=VALUE` a line, read as python-dotenv reads a file (and `%envload` reads it): # comments, quotes, escapes
    in double quotes, an `export ` prefix; the same value text means the same value as on `%envset`'s line."""
    return envfile.parse_dotenv(cell, origin="the cell")


@magics_class
class EnvMagics(Magics):
    """Validated environment variables and framework options for this kernel."""

    def _run(self, action: Any) -> Any:
        try:
            return action()
        except InvalidValueError as exc:
            raise UsageError(redact(str(exc))) from None

    @no_var_expand
    @magic_arguments()
    @argument("--force", action="store_true", help="set a name that looks like a misspelt catalog name")
    @argument("--env-only", action="store_true", dest="env_only",
              help="set the environment only (for processes started from here), not the framework's live API")
    @argument("assignments", nargs="*", metavar="NAME=VALUE", help="quote values with spaces")
    @line_magic
    def envset(self, line: str) -> SetReport:
        """Set variables, validated against the catalog.

        Values are normalised to what the framework reads (e.g. MEGENGINE_DTR_EVICTION_THRESHOLD=5GB becomes
        5368709120 bytes). A batch is all or nothing. If a framework already read a variable at import, an
        AlreadyReadWarning says so and how to get out; variables with a run-time API are applied live.

        A value is read as python-dotenv reads it in a file, the same as %%envset and %envload: unquoted text as
        written (backslashes included: C:\\temp\\new), 'single quotes' as written, "double quotes" with \\n, \\t,
        \\\\ and \\" escapes; quote a value with spaces; # after a space starts a comment. No $name or {expression}
        expansion.
        """
        _check_length(line)
        try:
            options, pairs = parse_line(line, _describe)
        except InvalidValueError as exc:
            raise UsageError(str(exc)) from None
        force, live = False, True
        if options:
            args = _parse_args(self.envset, " ".join(options))
            force, live = args.force, not args.env_only
        if not pairs:
            raise UsageError("usage: %envset [--force] [--env-only] NAME=VALUE [NAME=VALUE ...]")
        return self._run(lambda: session().set(pairs, source="magic", force=force, live=live))

    @no_var_expand
    @magic_arguments()
    @argument("--force", action="store_true", help="set names that look like misspelt catalog names")
    @argument("--env-only", action="store_true", dest="env_only", help="the environment only, not the live API")
    @cell_magic("envset")  # type: ignore[arg-type]
    def envset_cell(self, line: str, cell: str) -> SetReport:
        """Set one NAME=VALUE a line, all or nothing: the cell is read as python-dotenv reads a .env file (# comments,
        quotes, escapes in double quotes), so a value means what it means on %envset's line and in %envload's file."""
        args = _parse_args(self.envset_cell, line)
        try:
            pairs = parse_cell(cell)
        except InvalidValueError as exc:
            raise UsageError(str(exc)) from None
        if not pairs:
            raise UsageError("the cell has no NAME=VALUE lines")
        return self._run(lambda: session().set(pairs, source="magic", force=args.force, live=not args.env_only))

    @no_var_expand
    @magic_arguments()
    @argument("name", help=f"a variable (or {', '.join(KEYWORD_CALLS.values())} keyword)")
    @line_magic
    def envget(self, line: str) -> VariableView:
        """Show a variable's value and what it means for this kernel (effective, takes effect at import, already
        read, ...), with its description, default, the live API and caveats."""
        args = _parse_args(self.envget, line)
        from ..presentation import present

        return present(session(), args.name)

    @no_var_expand
    @magic_arguments()
    @argument("--force", action="store_true", help="accepted for symmetry with %%envset; a set variable is always "
              "unset, whatever its spelling")
    @argument("--env-only", action="store_true", dest="env_only", help="the environment only, not the live API")
    @argument("names", nargs="+", metavar="NAME")
    @line_magic
    def envunset(self, line: str) -> SetReport:
        """Remove variables (or NPURunConfig options); a live framework goes back to the default."""
        args = _parse_args(self.envunset, line)
        return self._run(lambda: session().unset(args.names, source="magic", force=args.force,
                                                 live=not args.env_only))

    @no_var_expand
    @magic_arguments()
    @argument("framework", nargs="?", help=f"only this framework: {', '.join(FRAMEWORKS)}")
    @argument("--category", help="only categories containing this text")
    @argument("--set", action="store_true", dest="only_set", help="only variables that are set")
    @line_magic
    def envlist(self, line: str) -> Any:
        """The catalog as a DataFrame: every variable with its value, status, default and description."""
        from ..presentation._listing import catalog_frame

        args = _parse_args(self.envlist, line)
        if args.framework is not None and args.framework not in FRAMEWORKS:
            raise UsageError(f"unknown framework {args.framework!r}: use one of {', '.join(FRAMEWORKS)}")
        return catalog_frame(session(), framework=args.framework, category=args.category, only_set=args.only_set)

    @no_var_expand
    @magic_arguments()
    @argument("--all", action="store_true", dest="everything", help="also what changed outside the session since "
              "the kernel started (ipykernel's own MPLBACKEND, CLICOLOR, GIT_PAGER...)")
    @line_magic
    def envdiff(self, line: str) -> Any:
        """Variables changed through the session (magics, widgets, the sidebar, files, the API) since the kernel
        started, as a DataFrame: who changed them and when. --all adds the kernel's own start-up changes and other
        code's writes to os.environ, which %envexport carries only with --all too."""
        from ..presentation._tables import diff_table

        args = _parse_args(self.envdiff, line)
        return diff_table(session(), everything=args.everything)

    @no_var_expand
    @magic_arguments()
    @argument("--format", "-f", default="dotenv", choices=envfile.FORMATS + launchers.FORMATS,
              help="output format (default dotenv); torchrun, mpirun, slurm, deepspeed, k8s and ray carry the "
              "variables changed through the session to a launcher's workers")
    @argument("--all", action="store_true", dest="everything", help="also what changed outside the session since "
              "the kernel started (ipykernel's own MPLBACKEND, TERM, PAGER...) and every catalog variable that is set")
    @argument("--include", action="append", default=[], metavar="NAME",
              help="for a launcher format: also carry this variable that loads code (LD_PRELOAD, PYTHONPATH...)")
    @argument("file", nargs="?", help="write to this file instead of returning the text")
    @line_magic
    def envexport(self, line: str) -> str:
        """Export the variables changed through the session (not the kernel's own start-up ones: --all adds them) as
        dotenv, shell `export` lines or JSON, or for a launcher (torchrun, mpirun, slurm, deepspeed for a
        .deepspeed_env file, k8s for a container's env list, ray for a runtime_env); secrets are never exported in
        clear."""
        args = _parse_args(self.envexport, line)
        if args.format in launchers.FORMATS:
            exported = launchers.export(session(), args.format, everything=args.everything, include=args.include)
            text = exported.text
            if exported.left_out and args.format in ("deepspeed", "ray"):  # formats without comments
                warnings.warn("; ".join(exported.notes()), launchers.NotCarriedWarning, stacklevel=2)
        else:
            text = envfile.export(session(), fmt=args.format, everything=args.everything)
        if args.file:
            from ..base._regular_files import write_text_file

            try:
                write_text_file(_file_path(args.file), text)
            except InvalidValueError as exc:
                raise UsageError(str(exc)) from None
            return f"wrote {len(text.splitlines())} lines to {args.file}"
        return Verbatim(text)  # shown as lines to paste, still a str for code

    @no_var_expand
    @magic_arguments()
    @argument("--force", action="store_true",
              help="also set misspelt-looking names, and variables that load code (LD_PRELOAD, PYTHONPATH, ...)")
    @argument("--env-only", action="store_true", dest="env_only", help="the environment only, not the live API")
    @argument("file", help="a dotenv file (python-dotenv's format) of at most 1 MiB")
    @line_magic
    def envload(self, line: str) -> SetReport:
        """Set the variables of a dotenv file (NAME=VALUE lines), validated, all or nothing. A file is data: a
        variable that can load code, or one outside the catalog whose value is not plainly data (a number, or letters,
        digits and _ - + , : = @ %), is set only with --force."""
        args = _parse_args(self.envload, line)
        try:
            pairs = envfile.read_dotenv(_file_path(args.file))
        except InvalidValueError as exc:
            raise UsageError(str(exc)) from None
        return self._run(lambda: session().set(pairs, source="file", force=args.force, live=not args.env_only))

    @no_var_expand
    @magic_arguments()
    @argument("--interval", type=float, default=0.1, help="seconds between samples (default 0.1, i.e. 10 Hz)")
    @argument("--title", default=None, help="the chart's title")
    @line_magic
    def memchart(self, line: str) -> Any:
        """A live chart of this kernel's GPU memory (host memory where no GPU is visible): %memchart [--interval S]

        Set MGENV_SIMULATE_GPU=<preset or scenario file> in the kernel's environment to chart a simulated GPU.
        The chart's `.history` is the data as a DataFrame; `.per_cell()` gives the peak and delta per cell.
        """
        from ..protocol import checked_interval
        from ..widgets import MemoryChart
        from ..widgets._memory_chart import FrontEndMissing

        args = _parse_args(self.memchart, line)
        interval = self._run(lambda: checked_interval(args.interval))
        try:
            return MemoryChart(interval=interval, title=args.title, shell=self.shell)
        except FrontEndMissing as exc:
            raise UsageError(str(exc)) from None

    @no_var_expand
    @magic_arguments()
    @line_magic
    def oom(self, line: str) -> Any:
        """Show the last out-of-memory report again (its `.report` is the data; `mgenv_jupyter.last_oom()` too)."""
        from ..oom._report import last_report
        from ..presentation.oom import OomView

        _parse_args(self.oom, line)
        report = last_report()
        if report is None:
            raise UsageError("no cell has run out of memory since mgenv_jupyter was loaded")
        return OomView(report)

    @no_var_expand
    @magic_arguments()
    @argument("language", nargs="?", choices=("zh", "en", "auto"),
              help="auto: from MGENV_LANG, else the language of the JupyterLab whose sidebar or chart connected, "
              "else the locale")
    @line_magic
    def envlang(self, line: str) -> str:
        """Show or choose the language of descriptions, statuses and messages."""
        choice = _parse_args(self.envlang, line).language
        if choice:
            self._run(lambda: set_language(None if choice == "auto" else choice))
        return current_language()


def complete(ipython: Any, event: Any) -> list[str]:
    """Names after the magic, and allowed values after `NAME=`."""
    from ..catalog import catalog

    text = event.text_until_cursor if hasattr(event, "text_until_cursor") else event.line
    word = text.split()[-1] if text and not text[-1].isspace() else ""
    known = catalog()
    if "=" in word:
        name, _, partial = word.partition("=")
        entry = known.get(name)
        if entry is None:
            return []
        values = [v for v in entry.type.choices() if v.startswith(partial)]
        # IPython splits the token at "=", so the symbol may or may not include the name.
        return values if "=" not in event.symbol else [f"{name}={v}" for v in values]
    suffix = "" if event.command.startswith("%envget") or event.command.startswith("%envunset") else "="
    if event.command.startswith("%envlist"):
        return [f for f in FRAMEWORKS if f.startswith(word)]
    return [name + suffix for name in known.names() if name.startswith(word)]


MAGICS = ("envset", "envget", "envunset", "envlist", "envdiff", "envexport", "envload", "envlang", "memchart", "oom",
          "memfree", "memholders", "memtrace")


# `%load_ext` done, so loading twice installs nothing twice.
_LOADED: Slot[bool] = Slot("%load_ext done")


def loaded() -> bool:
    """Whether `%load_ext` has installed what `register` installs (and `%unload_ext` has not removed it)."""
    return bool(_LOADED.get())


def register(ipython: Any) -> None:
    """What `%load_ext` installs: the magics, the completers, the comm target, the import watcher and the
    out-of-memory hook with its recorder."""
    if _LOADED.get():
        return
    watcher().install()  # imports from here on are seen (again, after an unload); the first magic makes the session
    ipython.register_magics(EnvMagics)
    from ..oom import _hook as hook

    hook.install(ipython, show_oom_report)
    _comm_target(ipython, on=True)
    from ..comms import _cells as cell_comm

    cell_comm.start(ipython)
    for magic in _COMPLETED_MAGICS:
        ipython.set_hook("complete_command", complete, str_key=magic)
    _LOADED.set(True)


def unregister(ipython: Any) -> None:
    """Remove everything `register` installed (the session and its history stay: they are the kernel's)."""
    manager = ipython.magics_manager
    for kind in ("line", "cell"):
        for name in MAGICS:
            manager.magics[kind].pop(name, None)
    dispatcher = getattr(ipython, "strdispatchers", {}).get("complete_command")
    chains = dispatcher.strs if dispatcher is not None else {}
    for magic in _COMPLETED_MAGICS:
        chain = chains.get(magic)
        if chain is not None:
            # set_hook binds the function to the shell: compare what it wraps
            chain.chain = [(priority, hook) for priority, hook in chain.chain
                           if getattr(hook, "__func__", hook) is not complete]
            if not chain.chain:
                del chains[magic]
    _comm_target(ipython, on=False)
    from ..comms import _cells as cell_comm

    cell_comm.stop(ipython)
    from ..memory._memtrace import existing_memtrace

    memtrace = existing_memtrace(ipython)
    if memtrace is not None and memtrace.on:
        memtrace.switch(ipython, False)
    from ..oom import _hook as hook

    hook.uninstall(ipython)
    from ..memory._shared import stop_marking_cells

    stop_marking_cells()  # with the rest, nothing of ours follows cells now but the widgets still shown
    watcher().uninstall()
    _LOADED.set(None)


def show_oom_report(report: OomReport) -> None:
    """The out-of-memory hook's display: the report under the failing cell, as every result shows (base/_display.py)."""
    from IPython.display import display

    display(report)


def _comm_target(ipython: Any, on: bool) -> None:
    """Register (or remove) the sidebar's comm target; its handler, and all it imports, load when a sidebar connects.
    A plain IPython shell has no comms, and that is fine."""
    if getattr(ipython, "kernel", None) is None:
        return
    try:
        from comm import get_comm_manager

        manager = get_comm_manager()
    except ImportError:  # older ipykernel: the manager lives on the kernel
        manager = ipython.kernel.comm_manager
    from ..protocol import COMM_TARGET

    if on:
        manager.register_target(COMM_TARGET, _open_sidebar)
    elif COMM_TARGET in manager.targets:
        manager.unregister_target(COMM_TARGET, _open_sidebar)


def _open_sidebar(comm: Any, open_msg: Any) -> None:
    from ..comms._requests import SidebarComm

    SidebarComm(comm, session())
