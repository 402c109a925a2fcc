"""`CellEvents`: what follows a shell's cells through IPython's `pre_run_cell` and `post_run_cell` events, hooked on
one shell at a time. The cell markers (`_cells.py`) and each cell's records (`_cell_records.py`) both follow cells."""

from __future__ import annotations

from typing import Any


class CellEvents:
    """Hooks `_pre_run_cell` and `_post_run_cell` (a subclass's) on one shell. Registering again on the same shell does
    nothing; on another, it moves the hooks. `unregister()` removes them (or the shell keeps the follower alive)."""

    _shell: Any = None

    def _pre_run_cell(self, info: Any) -> None:
        raise NotImplementedError

    def _post_run_cell(self, result: Any) -> None:
        raise NotImplementedError

    def _hook(self, shell: Any) -> bool:
        """Hook `shell`; False when it was already followed (nothing changed)."""
        if self._shell is shell:
            return False
        self.unregister()
        shell.events.register("pre_run_cell", self._pre_run_cell)
        shell.events.register("post_run_cell", self._post_run_cell)
        self._shell = shell
        return True

    def unregister(self) -> None:
        shell, self._shell = self._shell, None
        if shell is None:
            return
        for event, callback in (("pre_run_cell", self._pre_run_cell), ("post_run_cell", self._post_run_cell)):
            try:
                shell.events.unregister(event, callback)
            except ValueError:  # already removed by someone else
                pass
