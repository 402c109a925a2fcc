"""The session's shared JupyterLab servers (tests/lab_server.py's docstring says how tests use them): one server per
kind, handed to each test as a freshly started one looks."""

from __future__ import annotations

import json
import shutil
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path

from lab_server import SETTINGS, Lab, running_lab, shut_down_kernels, write_settings


class LabPool:
    """JupyterLab servers shared by a session's tests, one per kind, at most `limit` running at once (the one used
    least recently stops first); each test gets its server as a fresh one looks (the module docstring says how)."""

    def __init__(self, base: Path, limit: int = 3) -> None:
        self.base = base
        self.limit = limit
        self._servers: OrderedDict[str, tuple[Lab, ExitStack, dict[str, dict]]] = OrderedDict()
        self._in_use: set[str] = set()

    @contextmanager
    def lab(self, env: dict[str, str] | None = None, app: str = "lab", server_config: dict | None = None,
            settings: dict[str, dict] | None = None, jupyter: Path | None = None) -> Iterator[Lab]:
        """A server with this environment, server config (jupyter_server_config.json) and user settings ({plugin id:
        settings}, beside the test labs' own SETTINGS), reset for this test; `app="notebook"` for Notebook 7's
        pages."""
        key = json.dumps([env or {}, server_config, settings, str(jupyter)], sort_keys=True)
        # Handing a server to a second user while the first holds it would shut down the first one's kernels.
        assert key not in self._in_use, "this test (or its module) holds a lab of this kind already: use that one"
        if key in self._servers:
            self._servers.move_to_end(key)
            lab, _, user_settings = self._servers[key]
            try:
                self._reset(lab, user_settings)
            except OSError:  # the server has gone (killed, crashed): a new one of the same kind
                self._stop(key)
        if key not in self._servers:
            idle = [held for held in self._servers if held not in self._in_use]
            while len(self._servers) >= self.limit and idle:
                self._stop(idle.pop(0))
            self._start(key, env, server_config, settings, jupyter)
        lab = self._servers[key][0]
        self._in_use.add(key)
        try:
            yield replace(lab, app=app)
        finally:
            self._in_use.discard(key)
            shut_down_kernels(lab)  # nothing of this test's keeps running (a sampler at 10 Hz) while others run

    def close(self) -> None:
        while self._servers:
            self._stop(next(iter(self._servers)))

    def _start(self, key: str, env: dict[str, str] | None, server_config: dict | None,
               settings: dict[str, dict] | None, jupyter: Path | None) -> None:
        workdir = self.base / f"lab{len(list(self.base.iterdir()))}"
        (workdir / "config").mkdir(parents=True)
        if server_config is not None:
            (workdir / "config" / "jupyter_server_config.json").write_text(json.dumps(server_config))
        user_settings = {**SETTINGS, **(settings or {})}
        write_settings(workdir / "settings", user_settings)
        stack = ExitStack()
        # A session can outlive the per-test limit of running_lab; the limit only ends a server left behind by a
        # pytest that was killed.
        lab = stack.enter_context(running_lab(workdir, env=env, limit_s=6 * 3600, jupyter=jupyter))
        self._servers[key] = (lab, stack, user_settings)

    def _stop(self, key: str) -> None:
        _, stack, _ = self._servers.pop(key)
        stack.close()

    @staticmethod
    def _reset(lab: Lab, user_settings: dict[str, dict]) -> None:
        shut_down_kernels(lab)
        workdir = lab.root.parent
        for saved in (workdir / "workspaces").glob("*"):
            saved.unlink()
        shutil.rmtree(workdir / "settings")
        write_settings(workdir / "settings", user_settings)
        for remembered in ("mgenv_jupyter", "kernels"):  # approved profiles; kernel specs a test added
            shutil.rmtree(lab.data / remembered, ignore_errors=True)
        for entry in lab.root.iterdir():
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
