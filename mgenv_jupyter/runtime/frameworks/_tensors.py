"""What a framework's objects hold, as its adapter declares it: the exact tensor types it has and how to size one, and
its module type and how to list a module's parameters, buffers and submodules. The holders walk
(memory/_holders.py) asks each loaded framework's declaration (`frameworks.tensor_kinds()`) and knows no framework.

Two rules keep the walk from running a user's code:
- A tensor is sized only when its type is exactly one the framework declares: a subclass may override what sizing
  reads (a PyTorch subclass's `__torch_function__` runs on every attribute), so the walk names it and leaves it.
- A module is very often the user's own subclass, so it is never asked (`parameters()` may be overridden): its
  registries are read from the instance's own dict, the way the interpreter stores them (mgenv_jupyter/base/_static.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ...base._static import dict_accessor, instance_dict

HOST = "host"

# What a module's registry entry is to the walk.
PARAMETER = "parameter"
BUFFER = "buffer"
CHILD = "module"


class Storage(NamedTuple):
    """One block of memory a tensor uses: its identity (two views of one block have the same `key`), where it is
    ("host", "gpu0"), its size in bytes as the framework reports it, and whether the tensor owns it (not a view).
    A named tuple: one is made for every tensor of a model."""

    key: tuple[Any, ...]
    device: str
    bytes: int
    owner: bool


@dataclass(frozen=True)
class TensorKind:
    """One exact tensor type: its name as users read it ("torch.Tensor") and how to size one (None: it holds no
    memory, e.g. on PyTorch's meta device, or a deleted JAX array)."""

    type: type
    name: str
    size: Callable[[Any], Storage | None]


@dataclass(frozen=True)
class ModuleKind:
    """A framework's module class (a subclass of it is a module too) and how to list what one registers, from the
    module's own attributes (its instance dict, which the walk reads): (role, value) pairs, role PARAMETER or BUFFER
    for a tensor, CHILD for a submodule."""

    type: type
    framework: str
    contents: Callable[[dict[str, Any]], Iterable[tuple[str, Any]]]


@dataclass(frozen=True)
class FrameworkTensors:
    """A loaded framework's declaration."""

    framework: str
    tensors: tuple[TensorKind, ...]
    module: ModuleKind | None = None


def device_name(kind: str, index: int | None) -> str:
    """"host" for a CPU, "gpu<n>" for a GPU (the framework's ordinal), or the framework's own name."""
    if kind in ("cpu", "cpu_pinned", "cpu_shared"):
        return HOST
    if kind in ("cuda", "gpu"):
        return f"gpu{index or 0}"
    return f"{kind}{index if index is not None else ''}"


def attributes(value: Any) -> dict[str, Any]:
    """An object's own attributes as the interpreter stores them (empty when it hides them)."""
    return instance_dict(value, dict_accessor(type(value))) or {}


def registries(attributes: dict[str, Any], names: tuple[tuple[str, str], ...]) -> list[tuple[str, Any]]:
    """(role, entry) for the entries of the registries `names` ((attribute, role) pairs) that an instance's
    attributes hold: each an exact dict or OrderedDict read through dict's own methods (one a user replaced with
    something else is left alone), None entries left out. Called once per module of a model: kept plain."""
    found = []
    for name, role in names:
        registry = dict.get(attributes, name)
        if registry and (type(registry) is dict or type(registry) is OrderedDict):
            for value in dict.values(registry):
                if value is not None:
                    found.append((role, value))
    return found
