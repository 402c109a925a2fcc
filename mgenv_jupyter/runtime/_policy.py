"""Who may set what: the security model, enforced in the kernel whatever a front end shows.

- A notebook profile (`source="profile"`) arrives with a file someone else may have written: it may hold catalog
  variables only, never one that can load code (by its entry, or by a flag of a flag string), never a secret.
- A file (`%envload`) or a sidebar message (`source="file"` / `"sidebar"`, or `"restart"` for the values "Restart and
  apply" carries over from the kernel before) may set, without an explicit force
  (`--force`, `"force": true`), only what cannot load code: a catalog variable whose entry says it loads none and whose
  flags name no program, directory or file, or a name outside the catalog that is in no code-loading family and whose
  value is plainly data (`code_loading.is_plain_data`).
- An out-of-memory report's button (`source="oom_report"`) names a remedy by the kernel's id, and the kernel sets that
  remedy of its own last report (comms/_requests.py): catalog variables only, never one that can load code, never with
  force.
- The user's own code (`%envset`, widgets, the API, a sweep's `.apply()`) may set anything; a code-loading variable
  is set with a `CodeLoadingWarning` that says what it can do.
"""

from __future__ import annotations

from ..base._text import Message, Text, message
from ..catalog import Entry
from ..catalog._code_loading import code_effect, needs_force_as_unknown
from ..catalog._secrets import is_secret

# "oom_report": a click on a remedy of an out-of-memory report, sent over the sidebar's comm (protocol/_oom.py).
# "restart": what the sidebar's "Restart and apply" carries over from the kernel before (runtime/_carry.py).
# "sweep": a sweep's `.apply()`, setting the values its best point ran with.
SOURCES = ("api", "magic", "widget", "sweep", "sidebar", "profile", "file", "oom_report", "restart")
# Sources whose content may come from someone else: a file on disk, a message over the comm.
NEEDS_FORCE = ("file", "sidebar", "oom_report", "restart")
# The user's own code: `%envset`, widgets, the API, a sweep's `.apply()`.
TRUSTED = ("api", "magic", "widget", "sweep")

NEVER_FROM_PROFILE = Text("{name} {effect}: it is never taken from a notebook profile",
                          "{name} {effect}:它从不取自笔记本配置")
NOT_IN_CATALOG = Text("{name} is not a catalog variable: a notebook profile holds catalog variables only",
                      "{name} 不是目录中的变量:笔记本配置只能包含目录中的变量")
SECRET_IN_PROFILE = Text("{name} holds a secret: secrets are never taken from a notebook profile",
                         "{name} 含有机密:机密从不取自笔记本配置")
NEEDS_FORCE_FROM = Text("{name} {effect}; from a {where} it is set only with {how}",
                        "{name} {effect};来自{where}时,只有加上 {how} 才会设置")
NOT_A_REMEDY = Text("{name} is not a catalog variable: an out-of-memory report's button sets catalog variables only",
                    "{name} 不是目录中的变量:内存不足报告的按钮只设置目录中的变量")
NEVER_FROM_REMEDY = Text("{name} {effect}: an out-of-memory report's button never sets it",
                         "{name} {effect}:内存不足报告的按钮从不设置它")
NO_FORCE_FROM_REMEDY = Text("an out-of-memory report's button never forces a change: set {name} yourself with %envset",
                            "内存不足报告的按钮从不强制修改:请自己用 %envset 设置 {name}")
WHERE = {"file": Text("file", "文件"), "sidebar": Text("sidebar message", "侧边栏消息"),
         "restart": Text("restart's carry-over", "重启时带过来的值"),
         "oom_report": Text("out-of-memory report's button", "内存不足报告的按钮")}
SET_WITH_WARNING = Text(
    "{name} {effect}; it is set for this kernel and every program started from it. "
    "Unset it with %envunset {name} if that was not intended.",
    "{name} {effect};它已为此内核及其启动的每个程序设置。如非本意,请用 %envunset {name} 取消。")


def refusal(name: str, entry: Entry | None, value: str | None, source: str, force: bool) -> str | None:
    """Why `source` may not set `name` to `value` (None: it may), in the user's language. Never quotes the value."""
    if source in TRUSTED:  # the user's own code may set anything: nothing to judge (asked on every %envset)
        return None
    effect = code_effect(name, entry, value)
    if source == "profile":
        if effect is not None:  # said first: what the variable could have done is what the user should hear
            return NEVER_FROM_PROFILE.get().format(name=name, effect=effect.get())
        if entry is None:
            return NOT_IN_CATALOG.get().format(name=name)
        if value is not None and is_secret(name, value):
            return SECRET_IN_PROFILE.get().format(name=name)
        return None
    if source == "oom_report":
        if force:
            return NO_FORCE_FROM_REMEDY.get().format(name=name)
        if effect is not None:
            return NEVER_FROM_REMEDY.get().format(name=name, effect=effect.get())
        if entry is None:
            return NOT_A_REMEDY.get().format(name=name)
        return None
    if source in NEEDS_FORCE and not force:
        effect = effect or needs_force_as_unknown(name, entry, value)
        if effect is not None:
            how = "--force" if source == "file" else '"force": true'
            return NEEDS_FORCE_FROM.get().format(name=name, effect=effect.get(), where=WHERE[source].get(), how=how)
    return None


def warning(name: str, entry: Entry | None = None, value: str | None = None) -> str | None:
    """What to tell the user who sets a code-loading variable themselves (None: nothing to tell)."""
    said = warning_note(name, entry, value)
    return None if said is None else said.get()


def warning_note(name: str, entry: Entry | None = None, value: str | None = None) -> Message | None:
    """The same warning kept as the change's note, said in the language of the moment it is shown."""
    effect = code_effect(name, entry, value)
    if effect is None:
        return None
    return message(SET_WITH_WARNING, name=name, effect=effect)
