"""Who may set what: the security model, enforced in the kernel whatever a front end shows.

- A notebook profile (`source="profile"`) arrives with a file someone else may have written: it may hold catalog
  variables only, never a code-loading variable, never a secret.
- A file (`%envload`) or a sidebar message (`source="file"` / `"sidebar"`) may set a code-loading variable only with an
  explicit force (`--force`, `"force": true`).
- The user's own code (`%envset`, widgets, the API) may set anything; a code-loading variable is set with a
  `CodeLoadingWarning` that says what it can do.
"""

from __future__ import annotations

from ..catalog import Entry
from ..catalog.code_loading import code_loading_rule
from ..catalog.secrets import is_secret
from ..text import Text

# "oom_report": a click on a remedy of an out-of-memory report, sent over the sidebar's comm (protocol/oom.py).
SOURCES = ("api", "magic", "widget", "sidebar", "profile", "file", "oom_report")
# Sources whose content may come from someone else: a file on disk, a message over the comm.
NEEDS_FORCE = ("file", "sidebar", "oom_report")

NEVER_FROM_PROFILE = Text("{name} {effect}: it is never taken from a notebook profile",
                          "{name} {effect}:它从不取自笔记本配置")
NOT_IN_CATALOG = Text("{name} is not a catalog variable: a notebook profile holds catalog variables only",
                      "{name} 不是目录中的变量:笔记本配置只能包含目录中的变量")
SECRET_IN_PROFILE = Text("{name} holds a secret: secrets are never taken from a notebook profile",
                         "{name} 含有机密:机密从不取自笔记本配置")
NEEDS_FORCE_FROM = Text("{name} {effect}; from a {where} it is set only with {how}",
                        "{name} {effect};来自{where}时,只有加上 {how} 才会设置")
WHERE = {"file": Text("file", "文件"), "sidebar": Text("sidebar message", "侧边栏消息"),
         "oom_report": Text("out-of-memory report's button", "内存不足报告的按钮")}
SET_WITH_WARNING = Text(
    "{name} {effect}; it is set for this kernel and every program started from it. "
    "Unset it with %envunset {name} if that was not intended.",
    "{name} {effect};它已为此内核及其启动的每个程序设置。如非本意,请用 %envunset {name} 取消。")


def refusal(name: str, entry: Entry | None, value: str | None, source: str, force: bool) -> str | None:
    """Why `source` may not set `name` to `value` (None: it may), in the user's language. Never quotes the value."""
    rule = code_loading_rule(name)
    if source == "profile":
        if rule is not None:  # said first: what the variable could have done is what the user should hear
            return NEVER_FROM_PROFILE.get().format(name=name, effect=rule.effect.get())
        if entry is None:
            return NOT_IN_CATALOG.get().format(name=name)
        if value is not None and is_secret(name, value):
            return SECRET_IN_PROFILE.get().format(name=name)
        return None
    if rule is not None and source in NEEDS_FORCE and not force:
        how = "--force" if source == "file" else '"force": true'
        return NEEDS_FORCE_FROM.get().format(name=name, effect=rule.effect.get(), where=WHERE[source].get(), how=how)
    return None


def warning(name: str) -> str | None:
    """What to tell the user who sets a code-loading variable themselves (None: nothing to tell)."""
    rule = code_loading_rule(name)
    if rule is None:
        return None
    return SET_WITH_WARNING.get().format(name=name, effect=rule.effect.get())
