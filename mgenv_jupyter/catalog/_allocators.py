"""A framework's allocator settings as the front ends group them (`ALLOCATOR` in its catalog home, asked by
`AllocatorWidget`): the group's title, its rows, when the framework reads them, and the variable that picks its
strategy. Data only: which rows matter with which values stays each entry's own rule (`applies_when`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..base._text import Text


@dataclass(frozen=True)
class Allocator:
    """`title` names the group; its rows are the variables `names` in that order, else the framework's entries of
    `category` (matched as `Catalog.select` does); `latching` says when the framework reads them and what a change
    does after that; `strategy` is the variable that picks the allocator (None: it has no such choice); `default`
    marks the framework a widget shows when none is named."""

    title: Text
    latching: Text
    names: tuple[str, ...] = ()
    category: str | None = None
    strategy: str | None = None
    default: bool = False
