"""A package's names imported on first use (PEP 562's module `__getattr__`), so importing the package stays cheap:
`import mgenv_jupyter` loads no ipywidgets, `import mgenv_jupyter.memory` no numpy, pandas or NVML."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, exports: Mapping[str, str], namespace: dict[str, Any]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package` (its `__name__`) whose `exports` map each name to the submodule
    defining it; a name is imported when first asked for, then kept in the package's `namespace` (its globals())."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
