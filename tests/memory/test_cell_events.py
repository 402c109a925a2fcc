"""A follower of a real IPython shell's cells: hooked once however often it registers, both events seen per cell,
and nothing left on the shell after unregistering (twice is harmless)."""

from __future__ import annotations

from typing import Any

from mgenv_jupyter.memory._cell_events import CellEvents


class Seen(CellEvents):
    def __init__(self) -> None:
        self.events: list[str] = []

    def _pre_run_cell(self, info: Any) -> None:
        self.events.append("pre")

    def _post_run_cell(self, result: Any) -> None:
        self.events.append("post" if result.success else "post-failed")


def hooks(shell: Any, seen: Seen) -> int:
    callbacks = shell.events.callbacks
    return sum(callback.__self__ is seen for event in ("pre_run_cell", "post_run_cell")
               for callback in callbacks[event] if hasattr(callback, "__self__"))


def test_registered_twice_it_sees_each_cell_once(ip):
    seen = Seen()
    try:
        assert seen._hook(ip) is True
        assert seen._hook(ip) is False  # already following this shell: nothing changed
        assert hooks(ip, seen) == 2
        ip.run_cell("x = 1")
        ip.run_cell("1 / 0")
        assert seen.events == ["pre", "post", "pre", "post-failed"]
    finally:
        seen.unregister()
    assert hooks(ip, seen) == 0
    ip.run_cell("x = 2")
    assert seen.events == ["pre", "post", "pre", "post-failed"]


def test_unregister_twice_and_after_someone_else_removed_the_hooks(ip):
    seen = Seen()
    seen._hook(ip)
    ip.events.unregister("pre_run_cell", seen._pre_run_cell)  # someone else took one hook away
    seen.unregister()
    seen.unregister()
    assert hooks(ip, seen) == 0
