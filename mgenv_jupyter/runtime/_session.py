"""`EnvSession`: the one object every front end goes through to read and change the kernel's variables.

validate (all of a batch, before anything changes) → set `os.environ` (or record an NPURunConfig option) → apply live
through the framework's own API where it is loaded → decide the outcome and warn → record history → notify observers.
If a framework rejects a live change, everything in the batch is put back and nothing is recorded.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base._errors import (
    AlreadyReadWarning,
    CodeLoadingWarning,
    EnvironmentSizeWarning,
    InvalidValueError,
    MayBeLatchedWarning,
)
from ..base._text import Message, Text
from ..base._user_warning import warn_at_user
from ..catalog import Catalog, Entry, Group, Parsed, catalog
from ..catalog._secrets import MASK, is_secret, is_secret_name, is_secret_value, redact, redact_message
from ..catalog._values import FreeText
from . import _environ_limits as environ_limits
from . import _policy as policy
from ._import_watcher import ImportRecord, ImportWatcher, process_start_environ
from ._outcome import Change, SetReport, now, shown
from ._status import Applied, Situation, Status, already_read_warning, assess, may_be_latched_warning
from .frameworks import GroupApi, LiveApi, group_api, latched, live_api, live_call, outlasts_latch

if TYPE_CHECKING:
    import pandas

    from ..catalog._rules import Conflict

log = logging.getLogger(__name__)
warnings.filterwarnings("always", category=AlreadyReadWarning)  # every set must warn, not only the first
warnings.filterwarnings("always", category=MayBeLatchedWarning)
warnings.filterwarnings("always", category=CodeLoadingWarning)

SOURCES = policy.SOURCES
# %envdiff's words for where a change came from and whether %envexport carries it by default.
# Short: it fills the "source" column beside "magic", "widget", "sidebar"; %envdiff's help says the rest.
OUTSIDE = Text("kernel start-up or other code", "内核启动或其他代码")
EXPORTED = Text("yes", "是")
EXPORTED_WITH_ALL = Text("only with --all", "仅在 --all 时")
# Why a batch was refused, in the language of the moment (%envset's UsageError, the sidebar's reason under an edit).
NOTHING_CHANGED = Text(" (nothing was changed)", "(没有做任何改动)")
NOTHING_TO_SET = Text("nothing to set: give at least one NAME=VALUE", "没有要设置的变量:至少给出一个 NAME=VALUE")
GIVEN_TWICE = Text("{name} is given twice: give each variable once", "{name} 出现了两次:每个变量只能给一次")
BAD_NAME = Text("{name} is not a valid variable name: use letters, digits and underscores, not starting with a digit",
                "{name} 不是合法的变量名:只能用字母、数字和下划线,且不能以数字开头")
THE_NAME = Text("the name", "该名字")
NEAR_MISS = Text("{name} is not a known variable; did you mean {meant}? (use --force to set {name} anyway)",
                 "{name} 不是已知变量;是不是想写 {meant}?(确实要设置 {name} 请加 --force)")
NOT_SET = Text("{name} is not set", "{name} 未设置")
NOT_SET_MEANT = Text("{name} is not set; did you mean {meant}?", "{name} 未设置;是不是想写 {meant}?")
SECRET_REFUSED = Text("{name}: the value (not shown: it looks like a secret) is not allowed: expected {allowed}",
                      "{name}:不接受该取值(看起来是机密信息,不予显示):应为{allowed}")
CONFLICT = Text("{names} cannot both be set: {because} Unset one of them",
                "{names} 不能同时设置:{because}请取消其中一个")
AND = Text(" and ", " 与 ")
SWITCH_FAILED = Text("{group}: {call} failed: {error} (nothing was changed)",
                     "{group}:{call} 失败:{error}(没有做任何改动)")
OS_REFUSED = Text("{name}: the operating system refused the value ({error}); nothing was changed",
                  "{name}:操作系统拒绝了该取值({error});没有做任何改动")
TOO_BIG = Text("the environment would grow to {projected:,} KiB, past the {limit:,} KiB at which programs can no "
               "longer be started from this kernel (ARG_MAX, less room for their arguments); "
               "unset large variables first",
               "环境变量将增长到 {projected:,} KiB,超过 {limit:,} KiB 后本内核就再也无法启动程序(ARG_MAX,"
               "还要给程序参数留出空间);请先取消设置较大的变量")
HISTORY_LIMIT = 10_000  # changes kept; older ones are dropped (the sidebar asks for a window of them)
_FREE_TEXT = FreeText()

Observer = Callable[[SetReport], None]


@dataclass(frozen=True)
class _Plan:
    """One validated assignment, ready to apply. `parsed` is None for an unset. `in_environ` when it writes the
    environment (not an NPURunConfig option); `growth`: the bytes it adds to the environment (negative: frees)."""

    name: str
    entry: Entry | None
    parsed: Parsed | None
    old: str | None
    in_environ: bool
    growth: int


@dataclass(frozen=True)
class VariableState:
    """What a variable is now and what that means for the running kernel: the value (masked for secrets), the status
    code and the reason. The presentation layer turns it into what users see."""

    name: str
    value: str | None
    entry: Entry | None
    status: Status
    message: Message
    read: ImportRecord | None


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
        # Environment variables changed through the session, in the order first changed: kept apart from the history,
        # which drops old changes, because exports and workers get exactly these by default.
        self._changed_through_session: dict[str, None] = {}
        self._sequence = itertools.count(1)  # numbers every change, so a window of the history can be asked for
        self._observers: list[Observer] = []
        # name → (the env text whose value was pushed through a live API, how): while the variable still holds that
        # text, its status is "applied live"
        self._applied_live: dict[str, tuple[str, Applied]] = {}
        # name → the env text set while its framework's first use had not happened yet: that first use read it
        self._set_before_first_use: dict[str, str] = {}
        # One lock covers reading the old value, writing, and recording, so concurrent batches never interleave.
        self._lock = threading.RLock()
        # Reports wait here in the order their batches took effect; whoever holds the delivery lock hands them to the
        # observers, oldest first, so observers see changes in order without being called under the main lock.
        self._outbox: deque[SetReport] = deque()
        self._delivery = threading.RLock()

    # ---- reading -------------------------------------------------------------------------------------------------

    def get(self, name: str) -> str | None:
        """The current value (environment, or NPURunConfig option), unmasked; None when unset."""
        return self._value(name, self.catalog.get(name))

    def _value(self, name: str, entry: Entry | None) -> str | None:
        if entry is not None and not entry.is_env:
            return None if name not in self.options else _option_text(self.options[name])
        return self.environ.get(name)

    def state(self, name: str) -> VariableState:
        """The variable's value and what it means now (effective, pending import, already read, ...)."""
        entry = self.catalog.get(name)
        value = self.get(name)
        read = self.watcher.first_reader(entry.readers) if entry is not None else None
        with self._lock:
            pushed = self._applied_live.get(name)
            before_first_use = value is not None and self._set_before_first_use.get(name) == value
        applied = pushed[1] if pushed is not None and value is not None and pushed[0] == value else None
        status, reason = assess(Situation(name, entry, value, read, applied, latched=_probe(entry, read),
                                          set_before_first_use=before_first_use))
        return VariableState(name, shown(name, value), entry, status, reason, read)

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

    def diff(self, everything: bool = True) -> pandas.DataFrame:
        """Variables whose value differs from the kernel's start, with the source and time of their last change, and
        whether `%envexport` carries them by default (changed through the session) or only with `--all` (the
        kernel's own start-up variables and changes made outside mgenv_jupyter). `everything=False` keeps only the
        ones changed through the session, as `%envdiff` shows by default."""
        import pandas

        last: dict[str, Change] = {c.name: c for c in self.history}
        through_session = set(self.changed_through_session()) | set(self.options)
        changes = {name: values for name, values in self.environ_changes().items()
                   if not self._is_option(name) and (everything or name in through_session)}
        changes.update({name: (None, self.get(name)) for name in self.options})
        rows = []
        for name, (before, after) in sorted(changes.items()):
            change = last.get(name)
            rows.append({
                "name": name,
                "at_start": shown(name, before),
                "now": shown(name, after),
                "source": change.source if change else OUTSIDE.get(),
                "changed": pandas.to_datetime(change.time, unit="s") if change else pandas.NaT,
                "status": self.state(name).status.label.get(),
                "exported": (EXPORTED if name in through_session else EXPORTED_WITH_ALL).get(),
            })
        return pandas.DataFrame(rows, columns=["name", "at_start", "now", "source", "changed", "status", "exported"])

    def environ_changes(self) -> dict[str, tuple[str | None, str | None]]:
        """Environment variables whose value differs from the kernel's start: name → (at start, now), unmasked."""
        changed = {}
        for name in sorted(set(self.start_environ) | set(self.environ)):
            before, after = self.start_environ.get(name), self.environ.get(name)
            if before != after:
                changed[name] = (before, after)
        return changed

    def changed_through_session(self) -> list[str]:
        """The environment variables changed through the session (magics, widgets, sidebar, profile, files, the
        API), in the order first changed. The kernel's own start-up changes (ipykernel's MPLBACKEND, TERM, PAGER...)
        and writes to os.environ by other code are not among them: they break batch jobs when exported."""
        with self._lock:
            return list(self._changed_through_session)

    def changed_by_session(self, name: str) -> bool:
        """Whether `name` is among `changed_through_session()` (asked for every variable a sidebar is sent)."""
        with self._lock:
            return name in self._changed_through_session

    def _is_option(self, name: str) -> bool:
        entry = self.catalog.get(name)
        return entry is not None and not entry.is_env

    def chosen_options(self) -> dict[str, Any]:
        """The keyword options (catalog/_options.py) chosen so far, as keyword arguments."""
        with self._lock:
            return dict(self.options)

    def npu_run_config_kwargs(self) -> dict[str, Any]:
        """The NPURunConfig options chosen so far, as keyword arguments: `NPURunConfig(**kwargs)`."""
        return self.chosen_options()

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
            if self._observers:  # nobody listens (no widget, no sidebar): no notice to queue
                self._outbox.append(report)
        if self._outbox:
            self._deliver()
        return report

    def _plan(self, pairs: list[tuple[str, object]], *, source: str, force: bool) -> list[_Plan]:
        """Check the whole batch before anything is written: names, values, who may set them, and what the
        environment can hold. Called with the lock held, so `old` is the value the write replaces."""
        if source not in SOURCES:
            raise InvalidValueError(f"unknown source {source!r}: use one of {', '.join(SOURCES)}")
        if not pairs:
            raise InvalidValueError(NOTHING_TO_SET.get())
        seen: set[str] = set()
        plans = []
        errors: list[InvalidValueError] = []
        for name, value in pairs:
            try:
                plans.append(self._plan_one(name, value, source, force))
            except InvalidValueError as exc:
                errors.append(exc)
            if isinstance(name, str) and name in seen:
                errors.append(InvalidValueError(GIVEN_TWICE.get().format(name=name), field=name, code="given_twice"))
            seen.add(name if isinstance(name, str) else "")
        if not errors:
            errors = self._conflict_errors(plans) or self._environment_size_errors(plans, source)
        if errors:
            # Errors quote values (a path a type refused): they pass through the same redaction as values. The batch's
            # error is about the field of its first, and of that kind when it is the only one.
            first = errors[0]
            raise InvalidValueError(redact("; ".join(map(str, errors))) + ("" if len(pairs) == 1 else
                                                                           NOTHING_CHANGED.get()),
                                    field=first.field, code=first.code if len(errors) == 1 else "several")
        return plans

    def _plan_one(self, name: object, value: object, source: str, force: bool) -> _Plan:
        if not isinstance(name, str) or not environ_limits.is_variable_name(name):
            shown_name = repr(name) if isinstance(name, str) and len(name) <= 60 else THE_NAME.get()
            raise InvalidValueError(BAD_NAME.get().format(name=shown_name), code="bad_name")
        entry = self.catalog.get(name)
        if entry is None and not force and source != "profile" and (value is not None or name not in self.environ):
            # Setting a misspelt name is refused; unsetting one that is set removes what is there, as asked.
            meant = self.catalog.near_miss(name)
            if meant is not None:
                template = NEAR_MISS if value is not None else NOT_SET_MEANT
                raise InvalidValueError(template.get().format(name=name, meant=meant), field=name, code="near_miss")
        text = value if isinstance(value, str) else None
        refused = policy.refusal(name, entry, text, source, force)
        if refused is not None:
            raise InvalidValueError(refused, field=name, code="refused")
        in_environ = entry is None or entry.is_env
        old = self._value(name, entry)
        freed = environ_limits.variable_bytes(name, old) if in_environ and old is not None else 0
        if value is None:
            if old is None and entry is None:
                raise InvalidValueError(NOT_SET.get().format(name=name), field=name, code="not_set")
            return _Plan(name, entry, None, old, in_environ, -freed)
        value_type = entry.type if entry is not None else _FREE_TEXT
        try:
            parsed = value_type.parse(value)
        except InvalidValueError as exc:
            if isinstance(value, str) and is_secret(name, value):  # the type's message quotes the value
                raise InvalidValueError(SECRET_REFUSED.get().format(name=name, allowed=value_type.allowed()),
                                        field=name, code="bad_value") from None
            raise InvalidValueError(f"{name}: {exc}", field=name, code="bad_value") from None
        added = environ_limits.check_variable(name, parsed.text) if in_environ else 0
        return _Plan(name, entry, parsed, old, in_environ, added - freed)

    def _conflict_errors(self, plans: list[_Plan]) -> list[InvalidValueError]:
        """Refuse a batch that sets a variable the framework cannot take together with others that would then be set
        too. Two already set before (the kernel's start-up environment, say) are not refused in a batch that sets
        neither: that batch did not make the conflict, and unsetting one of them must stay possible."""
        touched: list[Conflict] = []  # the conflicts of the names this batch sets, once each
        for plan in plans:
            if plan.parsed is not None:
                for conflict in self.catalog.conflicts_of(plan.name):
                    if conflict not in touched:
                        touched.append(conflict)
        if not touched:
            return []
        changed = {plan.name: plan.parsed is not None for plan in plans}
        errors = []
        for conflict in touched:  # a name the batch does not touch is asked only when it matters
            if all(changed[name] if name in changed else self.get(name) is not None for name in conflict.names):
                errors.append(InvalidValueError(CONFLICT.get().format(names=AND.get().join(conflict.names),
                                                                      because=conflict.because.get()),
                                                field=conflict.names[0], code="conflict"))
        return errors

    def _environment_size_errors(self, plans: list[_Plan], source: str) -> list[InvalidValueError]:
        """Refuse a batch after which no program could be started from the kernel; warn when it gets close."""
        growth = sum([plan.growth for plan in plans])
        if growth <= 0:
            return []
        projected = environ_limits.environment_bytes(self.environ) + growth
        warn_at, limit = environ_limits.environment_budget()
        if projected > limit:
            return [InvalidValueError(TOO_BIG.get().format(projected=projected // 1024, limit=limit // 1024),
                                      code="environment_size")]
        if projected > warn_at:
            warn_at_user(f"the environment holds {projected // 1024:,} KiB; at {limit // 1024:,} KiB no program "
                         "could be started from this kernel (!cmd, subprocess)", EnvironmentSizeWarning, source)
        return []

    def _execute(self, plans: list[_Plan], source: str, live: bool) -> SetReport:
        applied: list[tuple[_Plan, Any]] = []  # (plan, live api) pushed live so far, for rollback
        options_before = dict(self.options)
        try:
            self._write(plans)
            effective: dict[str, Applied] = {}
            for plan, entry, api, value in self._live_calls(plans) if live else ():
                try:
                    api.apply(entry, value.value)
                except Exception as exc:
                    raise InvalidValueError(
                        f"{plan.name}: {api.module} rejected {shown(plan.name, value.text)!r}: {exc} "
                        "(nothing was changed)", field=plan.name, code="rejected_live"
                    ) from None
                applied.append((plan, api))
                effective[plan.name] = Applied(api.call(entry, value.value), _read_back(api, entry),
                                               api.survives_latch)
            if live:
                self._switch_groups(plans, effective)
        except BaseException:
            self._rollback(plans, options_before, applied)
            raise
        changes = tuple([self._record(plan, source, effective.get(plan.name)) for plan in plans])
        self._history.extend(changes)
        return SetReport(changes)

    def _live_calls(self, plans: list[_Plan]) -> Iterator[tuple[_Plan, Entry, LiveApi, Parsed]]:
        """The plans a live change pushes through the framework's API, with the value to push (the default for an
        unset), one at a time: whether a framework is past its first use is asked as each comes."""
        for plan in plans:
            entry = plan.entry
            if entry is None or entry.live_api is None:  # most variables: no live API to look for
                continue
            api = live_api(entry)
            if api is None:
                continue
            if not api.survives_latch and latched(entry) is True:
                continue  # past the first use the framework ignores (or, like TensorFlow, refuses) the call
            value = plan.parsed if plan.parsed is not None else _default_parsed(entry)
            if value is not None:
                yield plan, entry, api, value

    def _group_switches(self, plans: list[_Plan]) -> list[tuple[Group, GroupApi, bool]]:
        """The groups a batch turns wholly on or off, with the framework's switch for each and which way."""
        touched: list[Group] = []
        for plan in plans:
            touched.extend(self.catalog.groups_of(plan.name))
        if not touched:  # most batches touch no group: nothing more to ask
            return []
        texts = {plan.name: plan.parsed.text if plan.parsed is not None else None for plan in plans}
        switches = []
        for group in self.catalog.groups:
            if group not in touched or not all(name in texts for name in group.members):
                continue
            values = {texts[name] for name in group.members}
            if values not in ({group.on}, {group.off}):
                continue
            api = group_api(group.live_api)
            if api is not None:
                switches.append((group, api, values == {group.on}))
        return switches

    def _switch_groups(self, plans: list[_Plan], effective: dict[str, Applied]) -> None:
        """A batch that turns a whole group on or off (all of DTR's switches) goes through the framework's own switch
        too, which may do more than the members say (megengine.dtr.disable() clears the eviction candidates)."""
        for group, api, on in self._group_switches(plans):
            try:
                api.switch(on)
            except Exception as exc:
                raise InvalidValueError(SWITCH_FAILED.get().format(group=group.key, call=api.call(on),
                                                                   error=exc), code="switch_failed") from None
            for name in group.members:
                member = self.catalog.get(name)
                member_api = live_api(member) if member is not None else None
                read = member_api.read(member) if member_api is not None and member is not None else None
                effective[name] = Applied(api.call(on), read)

    def _write(self, plans: list[_Plan]) -> None:
        for plan in plans:
            if not plan.in_environ:
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
                raise InvalidValueError(OS_REFUSED.get().format(name=plan.name, error=type(exc).__name__),
                                        field=plan.name, code="os_refused") from None

    def _rollback(self, plans: list[_Plan], options: dict[str, Any], applied: list[tuple[_Plan, Any]]) -> None:
        self.options = options
        for plan in plans:
            if not plan.in_environ:
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

    def _situation(self, plan: _Plan, applied: Applied | None) -> Situation:
        """What the status decision is asked about a planned change (with the live call made for it, if any)."""
        new = plan.parsed.text if plan.parsed is not None else None
        read = self.watcher.first_reader(plan.entry.readers) if plan.entry is not None else None
        return Situation(plan.name, plan.entry, new, read, applied, change=True, unset=new is None,
                         option_value=plan.parsed.value if plan.parsed is not None else None,
                         latched=_probe(plan.entry, read))

    def check(
        self, assignments: Mapping[str, object] | Iterable[tuple[str, object]], *, source: str = "api",
        force: bool = False,
    ) -> dict[str, str | None]:
        """Each variable's text as `set` would write it (normalised: "5GB" → "5368709120" where the framework wants
        bytes; None for an unset), with every check `set` makes, the batch's conflicts and the environment's size
        included, and nothing changed. Raises `InvalidValueError` as `set` would. A sweep checks every point's batch
        with it before starting any kernel."""
        pairs = list(assignments.items()) if isinstance(assignments, Mapping) else list(assignments)
        with self._lock:
            plans = self._plan(pairs, source=source, force=force)
        return {plan.name: plan.parsed.text if plan.parsed is not None else None for plan in plans}

    def status_after(
        self, assignments: Mapping[str, object] | Iterable[tuple[str, object]], *, source: str = "api",
        force: bool = False,
    ) -> dict[str, Status]:
        """What the session would say of each variable if `assignments` were set now (live), without setting
        anything: the same checks, the same live calls (described, not made) and the one status decision that
        `set`, `%envdiff` and the sidebar use. Raises `InvalidValueError` as `set` would. The out-of-memory report
        asks it before offering a remedy, so the report never says "restart" where `%envdiff` would not."""
        pairs = list(assignments.items()) if isinstance(assignments, Mapping) else list(assignments)
        with self._lock:
            plans = self._plan(pairs, source=source, force=force)
            applied = {plan.name: Applied(api.call(entry, value.value), value.text, api.survives_latch)
                       for plan, entry, api, value in self._live_calls(plans)}
            for group, api, on in self._group_switches(plans):
                applied.update({name: Applied(api.call(on), None) for name in group.members})
            return {plan.name: assess(self._situation(plan, applied.get(plan.name)))[0] for plan in plans}

    def _record(self, plan: _Plan, source: str, applied: Applied | None) -> Change:
        entry, name = plan.entry, plan.name
        if plan.in_environ:
            self._changed_through_session.setdefault(name, None)
        new = plan.parsed.text if plan.parsed is not None else None
        notes = plan.parsed.notes if plan.parsed is not None else ()
        situation = self._situation(plan, applied)
        read, probe = situation.read, situation.latched
        status, reason = assess(situation)
        if applied is not None and new is not None:
            self._applied_live[name] = (new, applied)
        else:
            self._applied_live.pop(name, None)
        if read is not None and new is not None and status is Status.PENDING_FIRST_USE:
            self._set_before_first_use[name] = new
        else:
            self._set_before_first_use.pop(name, None)
        if read is not None and entry is not None and status.needs_restart:
            call = live_call(entry, plan.parsed.value) if plan.parsed is not None else None
            if probe is True and not outlasts_latch(entry):
                call = None  # past the first use the framework refuses or ignores it: only a restart helps
            if status is Status.ALREADY_READ:
                warning = already_read_warning(entry, read, new, call, at_first_use=probe is True)
                warn_at_user(warning.get(), AlreadyReadWarning, source)
            else:
                warn_at_user(may_be_latched_warning(entry, read, new, call).get(), MayBeLatchedWarning, source)
        danger = policy.warning_note(name, entry, new) if new is not None else None
        if danger is not None:
            warn_at_user(danger.get(), CodeLoadingWarning, source)
            notes = (*notes, danger)
        effective = applied.effective if applied is not None else None
        # Each value is judged once, as `shown` judges it: by the name, or by the value's own shape.
        by_name = is_secret_name(name)
        old, hide_old = _judged(plan.old, by_name)
        new_shown, hide_new = _judged(new, by_name)
        effective_shown, hide_effective = _judged(effective, by_name) if effective is not None else (None, False)
        secret = hide_old or hide_new or hide_effective
        if notes:  # notes quote the value (a path "expanded to" another): the same redaction as values
            notes = tuple(redact_message(note, (plan.old, new, effective) if secret else ()) for note in notes)
        # A size is shown in the one notation of sizes ("5 GiB"); the change keeps the text the environment holds.
        written = _written(entry, new) if not secret else None
        written_old = _written(entry, old) if not secret else None
        return Change(now(), name, old, new_shown, source, status, reason, notes, effective_shown,
                      seq=next(self._sequence), secret=secret, shown=written, shown_old=written_old)


def _written(entry: Entry | None, value: str | None) -> str | None:
    """`value` as a user reads it where that differs from the text itself (a size: "5 GiB"); None otherwise."""
    if entry is None or value is None:
        return None
    written = entry.type.shown(value)
    return written if written != value else None


def _judged(value: str | None, secret_name: bool) -> tuple[str | None, bool]:
    """The value as a record keeps it (masked when secret), and whether it was masked."""
    if value is not None and (secret_name or is_secret_value(value)):
        return MASK, True
    return value, False


def _probe(entry: Entry | None, read: ImportRecord | None) -> bool | None:
    """The latch probe, asked only once the variable's reader is imported (before that nothing is fixed yet)."""
    if entry is None or read is None or entry.latch is None:
        return None
    return latched(entry)


def _option_text(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _default_parsed(entry: Entry) -> Parsed | None:
    if entry.default is None:
        return None
    try:
        return entry.type.parse(entry.default)
    except InvalidValueError:
        return None


def _read_back(api: LiveApi, entry: Entry) -> str | None:
    """What the framework says it now uses, or None when asking fails: the change itself went through, and a
    framework that cannot say (an older build without the getter, a half-present module) must not undo it."""
    try:
        return api.read(entry)
    except Exception:  # noqa: BLE001 - any framework error means "cannot say", never a failed change
        return None
