"""`KeywordOptions`: how a framework whose entries are keyword options of the user's own call words them (Ascend's
home declares them; catalog/_options.py explains the options)."""

from __future__ import annotations

from dataclasses import dataclass

from ..base._text import Text


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
