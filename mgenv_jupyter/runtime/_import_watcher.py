"""Which framework modules this kernel has imported, when, and what the environment held at that moment.

A meta-path finder placed first on `sys.meta_path` sees every import of a module not yet loaded. For the few modules we
watch it snapshots the environment and then steps aside (returns None), so the normal finders do the import. Unwatched
imports cost one set lookup. A snapshot only counts once the module really is in `sys.modules` (a failed import does
not read anything we can rely on).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from types import ModuleType


@dataclass(frozen=True)
class ImportRecord:
    """The moment a watched module was imported and the environment it saw.

    `before_load` is True for modules that were imported before mgenv_jupyter was loaded: their import time is unknown
    and `environ` then holds the environment the kernel process started with (what it read, unless something changed
    it in between — which we cannot know).
    """

    module: str
    time: float | None
    environ: Mapping[str, str]
    before_load: bool = False

    def value(self, name: str) -> str | None:
        return self.environ.get(name)

    def when_text(self) -> str:
        if self.time is None:
            return "before mgenv_jupyter was loaded"
        return "at " + time.strftime("%H:%M:%S", time.localtime(self.time))


def process_start_environ() -> dict[str, str]:
    """The environment this process started with (Linux keeps it in /proc/self/environ); the current one elsewhere."""
    try:
        with open("/proc/self/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return dict(os.environ)
    result: dict[str, str] = {}
    for item in raw.split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep:
            result[name.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
    return result


class ImportWatcher:
    """Records imports of `modules` (top-level names). Install once per process; `uninstall` restores
    `sys.meta_path`."""

    def __init__(self, modules: Iterable[str]) -> None:
        self._watched = frozenset(modules)
        self._records: dict[str, ImportRecord] = {}
        self._installed = False

    # The finder protocol: only `find_spec` is needed.
    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname in self._watched:
            self._records[fullname] = ImportRecord(fullname, time.time(), dict(os.environ))
        return None

    def install(self) -> None:
        if self._installed:
            return
        start_environ: dict[str, str] | None = None
        for module in self._watched:
            if module in sys.modules and module not in self._records:
                start_environ = start_environ if start_environ is not None else process_start_environ()
                self._records[module] = ImportRecord(module, None, start_environ, before_load=True)
        sys.meta_path.insert(0, self)  # type: ignore[arg-type]
        self._installed = True

    def uninstall(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)  # type: ignore[arg-type]
        self._installed = False

    @property
    def watched(self) -> frozenset[str]:
        return self._watched

    def record(self, module: str) -> ImportRecord | None:
        """The import of `module` if it succeeded (the module is loaded), else None."""
        found = self._records.get(module)
        if found is None or module not in sys.modules:
            return None
        return found

    def first_reader(self, modules: Iterable[str]) -> ImportRecord | None:
        """The earliest successful import among `modules` (a variable several modules read is read by the first)."""
        first, first_time = None, 0.0
        for module in modules:  # a plain loop: asked on every change, for one or two modules
            found = self.record(module)
            if found is None:
                continue
            found_time = -1.0 if found.time is None else found.time  # loaded before the watcher: earliest of all
            if first is None or found_time < first_time:
                first, first_time = found, found_time
        return first

    def imported(self) -> list[ImportRecord]:
        return [r for r in (self.record(m) for m in self._records) if r is not None]
