"""Options that are keyword arguments of the user's own call rather than environment variables (Ascend's entries are
`NPURunConfig(...)` keywords): the session records them for the user's code to pass, and every front end words them
as the framework's home declares (`KEYWORD_OPTIONS`, listed in _homes.py). The registry names the call
(`KEYWORD_CALLS`), so a front end that only needs its name imports no home."""

from __future__ import annotations

from functools import lru_cache

from ._frameworks import KEYWORD_CALLS
from ._keyword_options import KeywordOptions


@lru_cache(maxsize=1)
def keyword_options() -> KeywordOptions:
    """The words of the one framework whose entries are keyword options (tests/catalog/test_options.py checks there
    is one)."""
    from ._homes import facts

    (framework,) = KEYWORD_CALLS
    found = facts(framework).keyword_options
    if found is None:
        raise LookupError(f"{framework} has keyword options but its home declares no words for them")
    return found
