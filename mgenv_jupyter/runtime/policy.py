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

SOURCES = ("api", "magic", "widget", "sidebar", "profile", "file")
# Sources whose content may come from someone else: a file on disk, a message over the comm.
NEEDS_FORCE = ("file", "sidebar")


def refusal(name: str, entry: Entry | None, value: str | None, source: str, force: bool) -> str | None:
    """Why `source` may not set `name` to `value` (None: it may). Never quotes the value."""
    rule = code_loading_rule(name)
    if source == "profile":
        if rule is not None:  # said first: what the variable could have done is what the user should hear
            return f"{name} {rule.effect.get()}: it is never taken from a notebook profile"
        if entry is None:
            return f"{name} is not a catalog variable: a notebook profile holds catalog variables only"
        if value is not None and is_secret(name, value):
            return f"{name} holds a secret: secrets are never taken from a notebook profile"
        return None
    if rule is not None and source in NEEDS_FORCE and not force:
        how = "--force" if source == "file" else '"force": true'
        return (f"{name} {rule.effect.get()}; from a {'file' if source == 'file' else 'sidebar message'} it is set "
                f"only with {how}")
    return None


def warning(name: str) -> str | None:
    """What to tell the user who sets a code-loading variable themselves (None: nothing to tell)."""
    rule = code_loading_rule(name)
    if rule is None:
        return None
    return (f"{name} {rule.effect.get()}; it is set for this kernel and every program started from it. "
            f"Unset it with %envunset {name} if that was not intended.")
