"""Options that are keyword arguments of the user's own call rather than environment variables (Ascend's entries are
`NPURunConfig(...)` keywords): the session records them for the user's code to pass, and every front end words them
as the framework's home declares (`KEYWORD_OPTIONS`). The registry names the call (`KEYWORD_CALLS`), so a front end
that only needs its name imports no home."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .._text import Text
from ._frameworks import KEYWORD_CALLS, fact


@dataclass(frozen=True)
class KeywordOptions:
    """`export_key`: their key in a JSON export. `label`: the status of one ("NPURunConfig option"); `keyword`: what
    one is, in its details; `passed`, `recorded` ({name}, {value}) and `removed`: the status messages of one not set
    here, just set and just removed; `not_variable` ({name}): why a sweep, which sets environments, cannot set one."""

    export_key: str
    label: Text
    keyword: Text
    passed: Text
    recorded: Text
    removed: Text
    not_variable: Text


@lru_cache(maxsize=1)
def keyword_options() -> KeywordOptions:
    """The words of the one framework whose entries are keyword options (tests/catalog/test_options.py checks there
    is one)."""
    (framework,) = KEYWORD_CALLS
    found: KeywordOptions = fact(framework, "KEYWORD_OPTIONS")
    return found
