"""What a variable's value means for the running kernel: one decision table, for "what is it now" and for "what did
this change do" alike, with the reason as a bilingual message.

Front ends show `Status` codes through one table of labels (presentation layer); the message says why, naming the
module, the moment it read the variable and the value it read.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..base._dotenv_line import line_value
from ..base._quoting import quoted
from ..base._text import Message, Text, message
from ..catalog import Entry, ReadWhen
from ..catalog._options import keyword_options
from ..catalog._secrets import shown
from ._import_watcher import ImportRecord


class Status(str, enum.Enum):
    """The distinct things a variable's value can mean for the running kernel."""

    EFFECTIVE = "effective"  # read on every use or for every new object, read with this very value, or not a catalog
    # variable
    PENDING_IMPORT = "pending_import"  # the framework is not imported yet; it will read this value
    PENDING_FIRST_USE = "pending_first_use"  # read at a first use that has not happened
    ALREADY_READ = "already_read"  # read at import with another value: a restart is needed
    APPLIED_LIVE = "applied_live"  # changed through the framework's own API and read back
    MAY_BE_LATCHED = "may_be_latched"  # a first-use value after the framework was imported
    NO_LONGER_READ = "no_longer_read"  # documented, but no code reads it any more
    OPTION = "option"  # a keyword argument of the user's own call (catalog/_options.py), passed by the user's code
    UNSET = "unset"  # removed, or a non-catalog variable that is not set

    @property
    def label(self) -> Text:
        """What every front end calls this status (the one bilingual table)."""
        return LABELS[self]

    @property
    def needs_restart(self) -> bool:
        """The value reaches the framework only in a new kernel process: read at import, or fixed at a first use that
        has happened (or maybe so). The one rule the report's remedies and every front end's "restart" follow."""
        return self in _NEEDS_RESTART


_NEEDS_RESTART = (Status.ALREADY_READ, Status.MAY_BE_LATCHED)
# Of a batch's statuses, the one that stands for the whole batch is the furthest from taking effect now.
_FURTHEST = (Status.ALREADY_READ, Status.MAY_BE_LATCHED, Status.PENDING_IMPORT, Status.PENDING_FIRST_USE,
             Status.APPLIED_LIVE, Status.EFFECTIVE)


def furthest(statuses: Iterable[Status]) -> Status | None:
    """The status standing for a batch of changes (a remedy's variables, a set request): of `statuses`, the one
    furthest from taking effect now; any other status (no longer read, option, unset) only when there is nothing
    else, the first of them; None for no statuses."""
    found = list(statuses)
    return next((status for status in _FURTHEST if status in found), found[0] if found else None)


LABELS: dict[Status, Text] = {
    Status.EFFECTIVE: Text("effective", "已生效"),
    Status.PENDING_IMPORT: Text("takes effect at import", "导入时生效"),
    Status.PENDING_FIRST_USE: Text("takes effect at first use", "首次使用时生效"),
    Status.ALREADY_READ: Text("already read, restart needed", "已被读取,需重启"),
    Status.APPLIED_LIVE: Text("applied live", "已实时应用"),
    Status.MAY_BE_LATCHED: Text("may already be latched", "可能已被锁定"),
    Status.NO_LONGER_READ: Text("no longer read", "已不再读取"),
    Status.OPTION: keyword_options().label,
    Status.UNSET: Text("not set", "未设置"),
}


@dataclass(frozen=True)
class Applied:
    """A change that was just pushed through the framework's live API: the call made, what it now reports, and
    whether the change reaches the framework even after the variable's first use (`lasting`)."""

    call: str
    effective: str | None
    lasting: bool = False


@dataclass(frozen=True)
class Situation:
    """Everything the decision needs about one variable. `applied` is set when the value was (or, for a change, has
    just been) pushed live; `unset` when the change being assessed removed the variable; `latched` is the adapter's
    probe (runtime/frameworks `latched`): has the first use that fixes the value happened (True), not yet (False),
    or cannot it tell (None); `set_before_first_use` when this very value was set while the probe said the first use
    had not happened (so that first use read it)."""

    name: str
    entry: Entry | None
    value: str | None
    read: ImportRecord | None
    applied: Applied | None = None
    change: bool = False
    unset: bool = False
    option_value: object = field(default=None, compare=False)
    latched: bool | None = None
    set_before_first_use: bool = False


# ---- the sentences -----------------------------------------------------------------------------------------------
_T = Text
NOT_SET_DEFAULT = _T("{reader} uses its default, {default}", "{reader} 使用默认值 {default}")
NOT_SET_NO_DEFAULT = _T("{reader} goes without it", "{reader} 不使用该变量")
NOT_CATALOG_SET = _T("set; not a catalog variable", "已设置;不是目录中的变量")
NOT_CATALOG_NOT_SET = _T("not set", "未设置")
NOT_CATALOG_CHANGED = _T("set for this process and the processes it starts; not a catalog variable",
                         "已为本进程及其启动的进程设置;不是目录中的变量")
NOT_CATALOG_REMOVED = _T("removed from this process's environment", "已从本进程的环境变量中移除")
DEAD = _T("no code in {reader} reads {name} any more, so it has no effect{instead}",
          "{reader} 的代码已不再读取 {name},设置它没有任何效果{instead}")
DEAD_INSTEAD = _T("; use {replacement} instead", ";请改用 {replacement}")
EVERY_CALL = _T("{reader} reads it on every use: effective now", "{reader} 每次使用时都会读取:立即生效")
PER_OBJECT = _T("{reader} reads it each time the object is created: effective for new ones from now on",
                "{reader} 每次创建对象时读取:对此后新建的对象生效")
PENDING_IMPORT = _T("{reader} is not imported yet: it reads this when `import {reader}` runs",
                    "{reader} 尚未导入:执行 `import {reader}` 时读取")
PENDING_FIRST_USE = _T("read at {first_use}, which has not happened in this kernel",
                       "在{first_use}读取,本内核中尚未发生")
READ_WITH_THIS_VALUE = _T("read by {module} {when} with this value", "{module} 已于{when}按此值读取")
APPLIED = _T("applied through {call}; {module} now reports {effective}",
             "已通过 {call} 应用;{module} 现在报告 {effective}")
LATCHED = _T("{module} was imported {when}; if {first_use} has happened since, the value then is latched until the "
             "kernel restarts",
             "{module} 已于{when}导入;若此后已发生{first_use},当时的值会一直沿用到内核重启")
APPLIED_BUT_LATCHED = _T("{applied}; but {latched}", "{applied};但{latched}")
READ_AT_FIRST_USE = _T("read by {module} at {first_use} with this value", "{module} 已在{first_use}按此值读取")
# What applies a value a framework keeps: a new kernel that gets it, which a plain restart is not (it starts from the
# server's environment); said the way the AlreadyReadWarning's way out says it.
NEW_KERNEL = _T("this value applies in a new kernel: 'Restart and apply' carries it over, or set it again after a "
                "restart (a plain restart loses it)",
                "此值要在新内核中才能生效:“重启并应用”会把它带过去,或在重启后重新设置(直接重启会丢失该值)")
FIXED = _T("{module} fixed it at {first_use}, which has already happened in this kernel; {new_kernel}",
           "{module} 已在{first_use}将其固定,本内核中这一时刻已经过去;{new_kernel}")
APPLIED_BUT_FIXED = _T("{applied}; but {module} fixed it at {first_use}, which has already happened, and keeps the "
                       "value it read until the kernel restarts",
                       "{applied};但 {module} 已在{first_use}将其固定(这一时刻已经过去),"
                       "在内核重启前一直沿用当时读到的值")
WARNING_FIXED = _T("{module} read {name} at {first_use}, which has already happened in this kernel",
                   "{module} 已在{first_use}读取 {name},本内核中这一时刻已经过去")
WARNING_MAY_BE_LATCHED = _T("{latched}: if that moment has passed, the running {module} will not see it {target} "
                            "(os.environ holds it now, and processes started from here inherit it).\nWay out: "
                            "{way_out}.",
                            "{latched}:若这一时刻已经过去,正在运行的 {module} 看不到它{target}"
                            "(os.environ 中已是新值,从这里启动的进程会继承它)。\n解决办法:{way_out}。")
ALREADY_READ = _T("{module} read it {when}, when it was {seen}, and keeps what it read; {new_kernel}",
                  "{module} 已于{when}读取它,当时为 {seen},并一直沿用读到的值;{new_kernel}")
ALREADY_READ_UNSET = _T("{module} read it {when}, when it was not set, and keeps that; {new_kernel}",
                        "{module} 已于{when}读取它,当时未设置,并一直沿用;{new_kernel}")
WARNING = _T("{moment}, and keeps what it read: the running {module} will not see it {target} (os.environ holds it "
             "now, and processes started from here inherit it).\nWay out: {way_out}.",
             "{moment},并一直沿用当时读到的值:正在运行的 {module} 看不到它{target}(os.environ 中已是新值,"
             "从这里启动的进程会继承它)。\n解决办法:{way_out}。")
WARNING_BEFORE_LOAD = _T("{module} was imported before mgenv_jupyter was loaded and read {name} then; at kernel start "
                         "it was {seen}",
                         "{module} 在加载 mgenv_jupyter 之前就已导入并读取了 {name};内核启动时它是 {seen}")
WARNING_READ = _T("{module} already read {name} {when}, when it was {seen}",
                  "{module} 已于{when}读取 {name},当时为 {seen}")
TARGET_UNSET = _T("unset", "被取消设置")
TARGET_SET = _T("set to {value}", "被设为 {value}")
# The way out, to be followed as it reads: with the sidebar, its "Restart and apply" carries the session's values that
# frameworks read at start across the restart (runtime/_carry.py); without it, the line to run in the new kernel.
WAY_OUT = _T("a new kernel. With the Framework Env sidebar open, its 'Restart and apply' restarts the kernel and "
             "carries this value over, with the others this session set that a framework reads at start; without the "
             "sidebar, restart the kernel, then run `%load_ext mgenv_jupyter` and `{line}` before {package} is "
             "imported",
             "换一个新内核。打开框架环境变量侧边栏时,点“重启并应用”即可重启内核并把这个值带过去,"
             "本会话设置的其他在框架启动时读取的值也会一并带过去;"
             "不用侧边栏时,重启内核后,在导入 {package} 之前运行 `%load_ext mgenv_jupyter` 和 `{line}`")
WAY_OUT_UNSET = _T("a new kernel: restart the kernel, then run `%load_ext mgenv_jupyter` and `{line}` before {package} "
                   "is imported",
                   "换一个新内核:重启内核后,在导入 {package} 之前运行 `%load_ext mgenv_jupyter` 和 `{line}`")
WAY_OUT_LIVE = _T("{way_out}; or change it live now with {call}", "{way_out};或者现在就用 {call} 实时修改")
YOUR_VALUE = _T("<your value>", "<你的值>")
BEFORE_LOAD = _T("before mgenv_jupyter was loaded", "在加载 mgenv_jupyter 之前")
AT_TIME = _T("at {time}", "{time} ")
UNSET_WORD = _T("unset", "未设置")
NOT_SET_WORD = _T("not set", "未设置")  # a value a module read: "when it was not set" (the status line says it so too)


def when_read(read: ImportRecord) -> Text:
    """"at 12:01:02" or "before mgenv_jupyter was loaded", in both languages."""
    if read.time is None:
        return BEFORE_LOAD
    clock = time.strftime("%H:%M:%S", time.localtime(read.time))
    return Text(AT_TIME.en.format(time=clock), AT_TIME.zh.format(time=clock))


def seen_value(entry: Entry, value: str | None) -> str | Text:
    return NOT_SET_WORD if value is None else said_value(entry, value)


def said_value(entry: Entry, value: str) -> str:
    """A value inside a sentence: a size in the one notation of sizes (5 GiB), anything else quoted as it is ('cpu0'),
    a secret masked."""
    masked = shown(entry.name, value)
    written = entry.type.shown(value) if masked == value else value
    return written if written != value else quoted(masked)


def first_use_text(entry: Entry) -> Text:
    reader = entry.readers[0] if entry.readers else "the framework"
    return entry.first_use or Text(f"its first use in {reader}", f"{reader} 第一次使用它时")


# The decision runs on every change: it compares against module constants, as looking a member up on its enum class
# costs several times more (Python 3.11 does not specialise class attributes).
_NOT_READ, _OPTION, _IMPORT, _FIRST_USE, _EVERY_CALL = (ReadWhen.NOT_READ, ReadWhen.OPTION, ReadWhen.IMPORT,
                                                        ReadWhen.FIRST_USE, ReadWhen.EVERY_CALL)
_READ_EACH_TIME = (ReadWhen.EVERY_CALL, ReadWhen.PER_OBJECT)


def assess(s: Situation) -> tuple[Status, Message]:
    """The one decision table."""
    entry = s.entry
    if entry is None:
        if s.change:
            return (Status.UNSET, message(NOT_CATALOG_REMOVED)) if s.unset else (
                Status.EFFECTIVE, message(NOT_CATALOG_CHANGED))
        return (Status.EFFECTIVE, message(NOT_CATALOG_SET)) if s.value is not None else (
            Status.UNSET, message(NOT_CATALOG_NOT_SET))
    reader = entry.readers[0] if entry.readers else "the framework"
    when = entry.when
    if when is _NOT_READ:
        instead = message(DEAD_INSTEAD, replacement=entry.replaced_by) if entry.replaced_by else None
        return Status.NO_LONGER_READ, message(DEAD, reader=reader, name=entry.name,
                                              instead=_as_text(instead) if instead else "")
    if when is _OPTION:
        words = keyword_options()
        if not s.change:
            return Status.OPTION, message(words.passed)
        if s.unset:
            return Status.UNSET, message(words.removed)
        return Status.OPTION, message(words.recorded, name=entry.name, value=repr(s.option_value))
    removed = s.change and s.unset
    read = s.read
    if s.value is None and not s.change and (read is None or when in _READ_EACH_TIME):
        # Nothing set and nothing read yet (or read afresh on every use): the default is what will apply.
        # A size's default is said as every size is ("1 MiB", not 1048576).
        default = message(NOT_SET_DEFAULT, reader=reader, default=entry.type.shown(entry.default)) if (
            entry.default is not None) else message(NOT_SET_NO_DEFAULT, reader=reader)
        return Status.UNSET, default
    if when in _READ_EACH_TIME:
        why = message(EVERY_CALL if when is _EVERY_CALL else PER_OBJECT, reader=reader)
        return (Status.UNSET if removed else Status.EFFECTIVE), why
    if read is None:
        if when is _IMPORT:
            return (Status.UNSET if removed else Status.PENDING_IMPORT), message(PENDING_IMPORT, reader=reader)
        return (Status.UNSET if removed else Status.PENDING_FIRST_USE), message(
            PENDING_FIRST_USE, first_use=first_use_text(entry))
    latched = message(LATCHED, module=read.module, when=when_read(read), first_use=first_use_text(entry))
    fixed_at_first_use = when is _FIRST_USE or entry.first_use is not None
    if s.applied is not None:
        applied = message(APPLIED, call=s.applied.call, module=read.module,
                          effective=UNSET_WORD if s.applied.effective is None else
                          said_value(entry, s.applied.effective))
        if not fixed_at_first_use or s.applied.lasting or s.latched is False:
            return Status.APPLIED_LIVE, applied
        if s.latched:
            return Status.ALREADY_READ, message(APPLIED_BUT_FIXED, applied=_as_text(applied), module=read.module,
                                                first_use=first_use_text(entry))
        return Status.MAY_BE_LATCHED, message(APPLIED_BUT_LATCHED, applied=_as_text(applied),
                                              latched=_as_text(latched))
    if read.value(entry.name) == s.value:
        return Status.EFFECTIVE, message(READ_WITH_THIS_VALUE, module=read.module, when=when_read(read))
    if when is _FIRST_USE:
        if s.latched is False:
            return (Status.UNSET if removed else Status.PENDING_FIRST_USE), message(
                PENDING_FIRST_USE, first_use=first_use_text(entry))
        if s.latched and s.set_before_first_use and not s.change:
            return Status.EFFECTIVE, message(READ_AT_FIRST_USE, module=read.module, first_use=first_use_text(entry))
        if s.latched:
            return Status.ALREADY_READ, message(FIXED, module=read.module, first_use=first_use_text(entry),
                                                new_kernel=NEW_KERNEL)
        return Status.MAY_BE_LATCHED, latched
    seen = read.value(entry.name)
    if seen is None:
        return Status.ALREADY_READ, message(ALREADY_READ_UNSET, module=read.module, when=when_read(read),
                                            new_kernel=NEW_KERNEL)
    return Status.ALREADY_READ, message(ALREADY_READ, module=read.module, when=when_read(read),
                                        seen=said_value(entry, seen), new_kernel=NEW_KERNEL)


def already_read_warning(entry: Entry, read: ImportRecord, new: str | None, live_call: str | None,
                         at_first_use: bool = False) -> Message:
    """The AlreadyReadWarning: the module, the moment, the value it read, and the way out. `at_first_use`: the
    moment was the variable's first use (a probe said it has passed), not the import."""
    seen = seen_value(entry, read.value(entry.name))
    if at_first_use:
        moment = message(WARNING_FIXED, module=read.module, name=entry.name, first_use=first_use_text(entry))
    elif read.before_load:
        moment = message(WARNING_BEFORE_LOAD, module=read.module, name=entry.name, seen=seen)
    else:
        moment = message(WARNING_READ, module=read.module, name=entry.name, when=when_read(read), seen=seen)
    return message(WARNING, moment=_as_text(moment), target=_target(entry, new), module=read.module,
                   way_out=_way_out(entry, read, new, live_call))


def may_be_latched_warning(entry: Entry, read: ImportRecord, new: str | None, live_call: str | None) -> Message:
    """The MayBeLatchedWarning: the framework is loaded and nothing tells whether the first use has happened."""
    latched = message(LATCHED, module=read.module, when=when_read(read), first_use=first_use_text(entry))
    return message(WARNING_MAY_BE_LATCHED, latched=_as_text(latched), target=_target(entry, new), module=read.module,
                   way_out=_way_out(entry, read, new, live_call))


def _target(entry: Entry, new: str | None) -> Text:
    return _as_text(message(TARGET_UNSET) if new is None else message(TARGET_SET, value=said_value(entry, new)))


def _way_out(entry: Entry, read: ImportRecord, new: str | None, live_call: str | None) -> Text:
    """What to do, written to be followed as it reads: the magic line that sets the value in a new kernel (a secret's
    value left for the user to type)."""
    if new is None:
        line: str | Text = f"%envunset {entry.name}"
    elif shown(entry.name, new) != new:
        line = Text(f"%envset {entry.name}={YOUR_VALUE.en}", f"%envset {entry.name}={YOUR_VALUE.zh}")
    else:
        line = f"%envset {entry.name}={line_value(new)}"
    way_out = message(WAY_OUT_UNSET if new is None else WAY_OUT, line=line, package=read.module.partition(".")[0])
    return _as_text(message(WAY_OUT_LIVE, way_out=_as_text(way_out), call=live_call) if live_call else way_out)


def _as_text(part: Message) -> Text:
    """A filled-in message as a `Text`, to nest it in another message."""
    return Text(part.get("en"), part.get("zh"))

