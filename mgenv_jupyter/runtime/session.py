"""`EnvSession`: the one object every front end goes through to read and change the kernel's variables.

validate (all of a batch, before anything changes) → set `os.environ` (or record an NPURunConfig option) → apply live
through the framework's own API where it is loaded → decide the outcome and warn → record history → notify observers.
If a framework rejects a live change, everything in the batch is put back and nothing is recorded.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..catalog import Catalog, Entry, Parsed, ReadWhen, catalog
from ..catalog.secrets import is_secret
from ..catalog.values import FreeText, quoted
from ..errors import AlreadyReadWarning, CodeLoadingWarning, EnvironmentSizeWarning, InvalidValueError
from . import environ_limits, policy
from .frameworks import live_api
from .import_watcher import ImportRecord, ImportWatcher, process_start_environ
from .outcome import Change, Outcome, SetReport, now, shown

if TYPE_CHECKING:
    import pandas

log = logging.getLogger(__name__)
warnings.filterwarnings("always", category=AlreadyReadWarning)  # every set must warn, not only the first
warnings.filterwarnings("always", category=CodeLoadingWarning)

SOURCES = policy.SOURCES
HISTORY_LIMIT = 10_000  # changes kept; older ones are dropped (the sidebar asks for a window of them)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FREE_TEXT = FreeText()

Observer = Callable[[SetReport], None]


@dataclass(frozen=True)
class _Plan:
    """One validated assignment, ready to apply. `parsed` is None for an unset."""

    name: str
    entry: Entry | None
    parsed: Parsed | None
    old: str | None


@dataclass(frozen=True)
class VariableState:
    """What a variable is now and what that means for the running kernel."""

    name: str
    value: str | None  # masked for secrets
    entry: Entry | None
    status: str
    message: str
    read: ImportRecord | None

    def lines(self, language: str | None = None) -> list[str]:
        value = "(unset)" if self.value is None else quoted(self.value)
        result = [f"{self.name}={value}: {self.status} — {self.message}"]
        entry = self.entry
        if entry is not None:
            result.append(f"  {entry.description.get(language)}")
            result.append(f"  default: {entry.default}; allowed: {entry.type.allowed()}")
            if entry.live_api_doc or entry.live_api:
                result.append(f"  live API: {entry.live_api_doc or entry.live_api}")
            result.extend(f"  caveat: {c.get(language)}" for c in entry.caveats)
        return result

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


class EnvSession:
    """Validates, sets, applies and records changes to the kernel's environment and framework options."""

    def __init__(
        self,
        watcher: ImportWatcher | None = None,
        environ: MutableMapping[str, str] | None = None,
        known: Catalog | None = None,
    ) -> None:
        self.catalog = known if known is not None else catalog()
        self.watcher = watcher if watcher is not None else ImportWatcher(())
        self.environ = environ if environ is not None else os.environ
        self.start_environ = process_start_environ() if environ is None else dict(self.environ)
        self.options: dict[str, Any] = {}  # NPURunConfig keyword arguments chosen so far
        self._history: deque[Change] = deque(maxlen=HISTORY_LIMIT)
        self._sequence = itertools.count(1)  # numbers every change, so a window of the history can be asked for
        self._observers: list[Observer] = []
        self._applied_live: dict[str, str] = {}  # name -> env text whose value was pushed through a live API
        # One lock covers reading the old value, writing, and recording, so concurrent batches never interleave.
        self._lock = threading.RLock()
        # Reports wait here in the order their batches took effect; whoever holds the delivery lock hands them to the
        # observers, oldest first, so observers see changes in order without being called under the main lock.
        self._outbox: deque[SetReport] = deque()
        self._delivery = threading.RLock()

    # ---- reading -------------------------------------------------------------------------------------------------

    def get(self, name: str) -> str | None:
        """The current value (environment, or NPURunConfig option), unmasked; None when unset."""
        entry = self.catalog.get(name)
        if entry is not None and not entry.is_env:
            return None if name not in self.options else _option_text(self.options[name])
        return self.environ.get(name)

    def state(self, name: str) -> VariableState:
        """The variable's value and what it means now (in effect, pending import, already read, ...)."""
        entry = self.catalog.get(name)
        value = self.get(name)
        if entry is None:
            message = "set; not a catalog variable" if value is not None else "not set"
            return VariableState(name, shown(name, value), None, "effective now" if value else "unset", message, None)
        read = self.watcher.first_reader(entry.readers)
        status, message = self._status(entry, value, read)
        return VariableState(name, shown(name, value), entry, status, message, read)

    def _status(self, entry: Entry, value: str | None, read: ImportRecord | None) -> tuple[str, str]:
        if entry.when is ReadWhen.NOT_READ:
            return Outcome.NO_EFFECT.value, _dead_message(entry)
        if entry.when is ReadWhen.OPTION:
            return Outcome.OPTION.value, "passed to NPURunConfig(**session().npu_run_config_kwargs())"
        if entry.when in (ReadWhen.EVERY_CALL, ReadWhen.PER_OBJECT) or read is None:
            if entry.when in (ReadWhen.EVERY_CALL, ReadWhen.PER_OBJECT):
                return Outcome.EFFECTIVE.value, _dynamic_message(entry)
            if entry.when is ReadWhen.IMPORT:
                return "pending import", f"read when `import {entry.readers[0]}` runs"
            return "pending first use", f"read at {_first_use(entry)}"
        if self._applied_live.get(entry.name) == value and value is not None:
            applied = f"applied through {entry.live_api_doc or entry.live_api}"
            if entry.when is ReadWhen.FIRST_USE or entry.first_use is not None:  # as _outcome says when it is set
                return Outcome.MAY_BE_LATCHED.value, f"{applied}; but {_latched_message(entry, read)}"
            return Outcome.APPLIED_LIVE.value, applied
        seen = read.value(entry.name)
        if seen == value:
            return "in effect", f"read by {read.module} {read.when_text()} with this value"
        if entry.when is ReadWhen.FIRST_USE:
            return Outcome.MAY_BE_LATCHED.value, _latched_message(entry, read)
        return Outcome.ALREADY_READ.value, f"{read.module} read {_quote(entry.name, seen)} {read.when_text()}"

    @property
    def history(self) -> list[Change]:
        """The recorded changes, oldest first (at most HISTORY_LIMIT: older ones are dropped)."""
        with self._lock:
            return list(self._history)

    def history_window(self, before: int | None = None, limit: int = 100) -> tuple[list[Change], int]:
        """At most `limit` changes numbered below `before` (the newest ones when None), oldest first, and how many
        changes this kernel has recorded in all."""
        with self._lock:
            total = self._history[-1].seq if self._history else 0
            chosen = [c for c in self._history if before is None or c.seq < before]
        return chosen[-limit:] if limit > 0 else [], total

    def history_frame(self) -> pandas.DataFrame:
        import pandas

        frame = pandas.DataFrame([c.as_row() for c in self.history],
                                 columns=["seq", "time", "name", "old", "new", "source", "outcome", "effective",
                                          "message", "secret"])
        frame["time"] = pandas.to_datetime(frame["time"], unit="s")
        return frame

    def diff(self) -> pandas.DataFrame:
        """Variables whose value differs from the kernel's start, with the source and time of their last change."""
        import pandas

        last: dict[str, Change] = {c.name: c for c in self.history}
        changes = {name: values for name, values in self.environ_changes().items() if not self._is_option(name)}
        changes.update({name: (None, self.get(name)) for name in self.options})
        rows = []
        for name, (before, after) in sorted(changes.items()):
            change = last.get(name)
            rows.append({
                "name": name,
                "at_start": shown(name, before),
                "now": shown(name, after),
                "source": change.source if change else "outside mgenv_jupyter",
                "changed": pandas.to_datetime(change.time, unit="s") if change else pandas.NaT,
                "status": self.state(name).status,
            })
        return pandas.DataFrame(rows, columns=["name", "at_start", "now", "source", "changed", "status"])

    def environ_changes(self) -> dict[str, tuple[str | None, str | None]]:
        """Environment variables whose value differs from the kernel's start: name → (at start, now), unmasked."""
        changed = {}
        for name in sorted(set(self.start_environ) | set(self.environ)):
            before, after = self.start_environ.get(name), self.environ.get(name)
            if before != after:
                changed[name] = (before, after)
        return changed

    def _is_option(self, name: str) -> bool:
        entry = self.catalog.get(name)
        return entry is not None and not entry.is_env

    def npu_run_config_kwargs(self) -> dict[str, Any]:
        """The NPURunConfig options chosen so far, as keyword arguments: `NPURunConfig(**kwargs)`."""
        with self._lock:
            return dict(self.options)

    # ---- observers -----------------------------------------------------------------------------------------------

    def observe(self, observer: Observer) -> None:
        """Call `observer(report)` after every successful change, whoever made it."""
        with self._lock:
            if observer not in self._observers:
                self._observers.append(observer)

    def unobserve(self, observer: Observer) -> None:
        with self._lock:
            if observer in self._observers:
                self._observers.remove(observer)

    def _deliver(self) -> None:
        """Hand every waiting report to the observers, oldest first."""
        with self._delivery:
            while True:
                with self._lock:
                    if not self._outbox:
                        return
                    report = self._outbox.popleft()
                    observers = list(self._observers)
                for observer in observers:
                    try:
                        observer(report)
                    except Exception:  # an observer's failure must never undo a change or reach the user's cell
                        log.exception("mgenv_jupyter observer %r failed", observer)

    # ---- changing ------------------------------------------------------------------------------------------------

    def set(
        self,
        assignments: Mapping[str, object] | Iterable[tuple[str, object]],
        *,
        source: str = "api",
        force: bool = False,
        live: bool = True,
    ) -> SetReport:
        """Validate and set a batch of variables: all of them, or (on any error) none.

        Raises `InvalidValueError` naming what was wrong and what is allowed (never quoting a secret). `force` accepts
        a name that looks like a misspelt catalog name, and a code-loading variable from a file or the sidebar.
        `live=False` only sets the environment (for processes started from here) and leaves the running framework
        alone even where it has a live API.
        """
        pairs = list(assignments.items()) if isinstance(assignments, Mapping) else list(assignments)
        return self._change(pairs, source, force, live)

    def unset(
        self, names: Iterable[str], *, source: str = "api", force: bool = False, live: bool = True
    ) -> SetReport:
        """Remove variables (or NPURunConfig options); a live framework goes back to the default. Unknown names that
        are not set are an error."""
        return self._change([(name, None) for name in names], source, force, live)

    def _change(self, pairs: list[tuple[str, object]], source: str, force: bool, live: bool) -> SetReport:
        with self._lock:
            plans = self._plan(pairs, source=source, force=force)
            report = self._execute(plans, source, live)
            self._outbox.append(report)
        self._deliver()
        return report

    def _plan(self, pairs: list[tuple[str, object]], *, source: str, force: bool) -> list[_Plan]:
        """Check the whole batch before anything is written: names, values, who may set them, and what the
        environment can hold. Called with the lock held, so `old` is the value the write replaces."""
        if source not in SOURCES:
            raise InvalidValueError(f"unknown source {source!r}: use one of {', '.join(SOURCES)}")
        if not pairs:
            raise InvalidValueError("nothing to set: give at least one NAME=VALUE")
        seen: set[str] = set()
        plans = []
        errors = []
        for name, value in pairs:
            try:
                plans.append(self._plan_one(name, value, source, force))
            except InvalidValueError as exc:
                errors.append(str(exc))
            if isinstance(name, str) and name in seen:
                errors.append(f"{name} is given twice: give each variable once")
            seen.add(name if isinstance(name, str) else "")
        if not errors:
            errors = self._environment_size_errors(plans)
        if errors:
            raise InvalidValueError("; ".join(errors) + ("" if len(pairs) == 1 else " (nothing was changed)"))
        return plans

    def _plan_one(self, name: object, value: object, source: str, force: bool) -> _Plan:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            shown_name = repr(name) if isinstance(name, str) and len(name) <= 60 else "the name"
            raise InvalidValueError(
                f"{shown_name} is not a valid variable name: use letters, digits and underscores, not starting with "
                "a digit"
            )
        entry = self.catalog.get(name)
        if entry is None and not force and source != "profile":
            meant = self.catalog.near_miss(name)
            if meant is not None:
                raise InvalidValueError(
                    f"{name} is not a known variable; did you mean {meant}? (use --force to set {name} anyway)"
                )
        text = value if isinstance(value, str) else None
        refused = policy.refusal(name, entry, text, source, force)
        if refused is not None:
            raise InvalidValueError(refused)
        old = self.get(name)
        if value is None:
            if old is None and entry is None:
                raise InvalidValueError(f"{name} is not set")
            return _Plan(name, entry, None, old)
        value_type = entry.type if entry is not None else _FREE_TEXT
        try:
            parsed = value_type.parse(value)
        except InvalidValueError as exc:
            if isinstance(value, str) and is_secret(name, value):  # the type's message quotes the value
                raise InvalidValueError(f"{name}: the value (not shown: it looks like a secret) is not allowed: "
                                        f"expected {value_type.allowed()}") from None
            raise InvalidValueError(f"{name}: {exc}") from None
        if entry is None or entry.is_env:
            environ_limits.check_variable(name, parsed.text)
        return _Plan(name, entry, parsed, old)

    def _environment_size_errors(self, plans: list[_Plan]) -> list[str]:
        """Refuse a batch after which no program could be started from the kernel; warn when it gets close."""
        growth = 0
        for plan in plans:
            if plan.entry is not None and not plan.entry.is_env:
                continue
            if plan.old is not None:
                growth -= environ_limits.variable_bytes(plan.name, plan.old)
            if plan.parsed is not None:
                growth += environ_limits.variable_bytes(plan.name, plan.parsed.text)
        if growth <= 0:
            return []
        projected = environ_limits.environment_bytes(self.environ) + growth
        warn_at, limit = environ_limits.environment_budget()
        if projected > limit:
            return [f"the environment would grow to {projected // 1024:,} KiB, past the {limit // 1024:,} KiB at which "
                    "programs can no longer be started from this kernel (ARG_MAX, less room for their arguments); "
                    "unset large variables first"]
        if projected > warn_at:
            warnings.warn(f"the environment holds {projected // 1024:,} KiB; at {limit // 1024:,} KiB no program "
                          "could be started from this kernel (!cmd, subprocess)", EnvironmentSizeWarning,
                          stacklevel=5)
        return []

    def _execute(self, plans: list[_Plan], source: str, live: bool) -> SetReport:
        applied: list[tuple[_Plan, Any]] = []  # (plan, live api) pushed live so far, for rollback
        options_before = dict(self.options)
        try:
            self._write(plans)
            effective: dict[str, str] = {}
            for plan in plans:
                api = live_api(plan.entry) if plan.entry is not None and live else None
                if api is None or plan.entry is None:
                    continue
                value = plan.parsed if plan.parsed is not None else _default_parsed(plan.entry)
                if value is None:
                    continue
                try:
                    api.apply(plan.entry, value.value)
                except Exception as exc:
                    raise InvalidValueError(
                        f"{plan.name}: {api.module} rejected {shown(plan.name, value.text)!r}: {exc} "
                        "(nothing was changed)"
                    ) from None
                applied.append((plan, api))
                effective[plan.name] = api.read(plan.entry)
        except BaseException:
            self._rollback(plans, options_before, applied)
            raise
        changes = tuple(self._record(plan, source, effective.get(plan.name), plan.name in effective)
                        for plan in plans)
        self._history.extend(changes)
        return SetReport(changes)

    def _write(self, plans: list[_Plan]) -> None:
        for plan in plans:
            entry = plan.entry
            if entry is not None and not entry.is_env:
                if plan.parsed is None:
                    self.options.pop(plan.name, None)
                else:
                    self.options[plan.name] = plan.parsed.value
                continue
            try:
                if plan.parsed is None:
                    self.environ.pop(plan.name, None)
                else:
                    self.environ[plan.name] = plan.parsed.text
            except (OSError, ValueError) as exc:  # the checks should have caught it; the OS has the last word
                raise InvalidValueError(f"{plan.name}: the operating system refused the value "
                                        f"({type(exc).__name__}); nothing was changed") from None

    def _rollback(self, plans: list[_Plan], options: dict[str, Any], applied: list[tuple[_Plan, Any]]) -> None:
        self.options = options
        for plan in plans:
            if plan.entry is not None and not plan.entry.is_env:
                continue
            try:
                if plan.old is None:
                    self.environ.pop(plan.name, None)
                else:
                    self.environ[plan.name] = plan.old
            except (OSError, ValueError):
                log.exception("could not restore %s after a failed batch", plan.name)
        for plan, api in reversed(applied):
            previous = plan.entry.type.parse(plan.old) if plan.old is not None else _default_parsed(plan.entry)
            if previous is not None:
                try:
                    api.apply(plan.entry, previous.value)
                except Exception:
                    log.exception("could not restore %s after a failed batch", plan.name)

    def _record(self, plan: _Plan, source: str, effective: str | None, live: bool) -> Change:
        entry, name = plan.entry, plan.name
        new = plan.parsed.text if plan.parsed is not None else None
        notes = plan.parsed.notes if plan.parsed is not None else ()
        outcome, message = self._outcome(plan, effective, live)
        if live and new is not None:
            self._applied_live[name] = new
        else:
            self._applied_live.pop(name, None)
        if outcome is Outcome.ALREADY_READ and entry is not None:
            warnings.warn(self._already_read_text(entry, new), AlreadyReadWarning, stacklevel=5)
        danger = policy.warning(name) if new is not None else None
        if danger is not None:
            warnings.warn(danger, CodeLoadingWarning, stacklevel=5)
            notes = (*notes, danger)
        secret = any(value is not None and is_secret(name, value) for value in (plan.old, new, effective))
        return Change(now(), name, shown(name, plan.old), shown(name, new), source, outcome, message, notes,
                      shown(name, effective), seq=next(self._sequence), secret=secret)

    def _outcome(self, plan: _Plan, effective: str | None, live: bool) -> tuple[Outcome, str]:
        entry = plan.entry
        unset = plan.parsed is None
        if entry is None:
            text = "removed from this process's environment" if unset else (
                "set for this process and the processes it starts; not a catalog variable")
            return (Outcome.UNSET if unset else Outcome.EFFECTIVE), text
        if entry.when is ReadWhen.NOT_READ:
            return Outcome.NO_EFFECT, _dead_message(entry)
        if entry.when is ReadWhen.OPTION:
            if plan.parsed is None:
                return Outcome.UNSET, "removed from the NPURunConfig options"
            return Outcome.OPTION, (f"recorded: NPURunConfig({entry.name}={plan.parsed.value!r}, ...) via "
                                    "mgenv_jupyter.session().npu_run_config_kwargs()")
        if entry.when in (ReadWhen.EVERY_CALL, ReadWhen.PER_OBJECT):
            return (Outcome.UNSET if unset else Outcome.EFFECTIVE), _dynamic_message(entry)
        read = self.watcher.first_reader(entry.readers)
        if read is None:
            if entry.when is ReadWhen.IMPORT:
                return (Outcome.UNSET if unset else Outcome.PENDING_IMPORT), (
                    f"{entry.readers[0]} is not imported yet: it reads this when `import {entry.readers[0]}` runs")
            return (Outcome.UNSET if unset else Outcome.PENDING_FIRST_USE), (
                f"read at {_first_use(entry)}, which has not happened in this kernel")
        live_text = f"applied through {entry.live_api_doc or entry.live_api}; {read.module} now reports {effective!r}"
        latched = _latched_message(entry, read)
        if entry.when is ReadWhen.FIRST_USE:
            return Outcome.MAY_BE_LATCHED, (f"{live_text}; but {latched}" if live else latched)
        if live:  # read at import, changed live; some such values still only matter until a first use
            if entry.first_use is not None:
                return Outcome.MAY_BE_LATCHED, f"{live_text}; but {latched}"
            return Outcome.APPLIED_LIVE, live_text
        return Outcome.ALREADY_READ, (
            f"{read.module} read {_quote(entry.name, read.value(entry.name))} {read.when_text()} and keeps it; "
            "restart the kernel to apply")

    def _already_read_text(self, entry: Entry, new: str | None) -> str:
        read = self.watcher.first_reader(entry.readers)
        assert read is not None
        seen = _quote(entry.name, read.value(entry.name))
        target = "unset" if new is None else f"set to {shown(entry.name, new)!r}"
        if read.before_load:
            moment = (f"{read.module} was imported before mgenv_jupyter was loaded and read {entry.name} then; "
                      f"at kernel start it was {seen}")
        else:
            moment = f"{read.module} already read {entry.name} {read.when_text()}, when it was {seen}"
        way_out = "restart the kernel with it set (the Framework Env sidebar's 'Restart and apply' does this)"
        if entry.live_api_doc:
            way_out += f", or change it live with {entry.live_api_doc}"
        return (f"{moment}. It is now {target} in os.environ (processes started from here inherit it), "
                f"but the running {read.module} will not see it. Way out: {way_out}.")


def _option_text(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _quote(name: str, value: str | None) -> str:
    return "unset" if value is None else repr(shown(name, value))


def _default_parsed(entry: Entry) -> Parsed | None:
    if entry.default is None:
        return None
    try:
        return entry.type.parse(entry.default)
    except InvalidValueError:
        return None


def _first_use(entry: Entry) -> str:
    return entry.first_use.get("en") if entry.first_use else f"its first use in {entry.readers[0]}"


def _dead_message(entry: Entry) -> str:
    instead = f"; use {entry.replaced_by} instead" if entry.replaced_by else ""
    return f"no code in {entry.readers[0]} reads {entry.name} any more, so it has no effect{instead}"


def _dynamic_message(entry: Entry) -> str:
    if entry.when is ReadWhen.EVERY_CALL:
        return f"{entry.readers[0]} reads it on every use: effective now"
    return f"{entry.readers[0]} reads it each time the object is created: effective for new ones from now on"


def _latched_message(entry: Entry, read: ImportRecord) -> str:
    return (f"{read.module} was imported {read.when_text()}; if {_first_use(entry)} has happened since, "
            "the value then is latched until the kernel restarts")
