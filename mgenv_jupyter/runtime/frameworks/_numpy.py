"""What NumPy's arrays hold (host memory): NumPy is no framework of the catalog, but its arrays are what a notebook
holds most often, and what the frameworks' host tensors are converted to."""

from __future__ import annotations

from typing import Any

from ...base._imported import imported
from . import Adapter
from ._tensors import HOST, FrameworkTensors, Storage, TensorKind

_BASE_CHAIN = 64  # views of views followed to the array that owns the memory


def _storage(array: Any, ndarray: type) -> Storage | None:
    root = array
    for _ in range(_BASE_CHAIN):
        base = root.base
        if type(base) is not ndarray:  # the owner, or a view over another object's buffer (bytes, mmap, a tensor)
            break
        root = base
    if root.dtype.hasobject:
        return None  # an object array holds references, not the memory of what they point to
    if root.base is None:  # root owns its memory, alone: it is its identity (it outlives the walk: we hold it)
        return Storage(("numpy", id(root)), HOST, int(root.nbytes), root is array)
    # over another object's buffer: its own part, at its address (another array may view the same buffer)
    pointer = root.__array_interface__["data"][0]
    return Storage(("host", pointer, array.nbytes), HOST, int(array.nbytes), False)


def tensor_kinds() -> FrameworkTensors | None:
    """`numpy.ndarray` (exactly: `numpy.memmap` and `numpy.matrix` are subclasses); None until numpy is imported."""
    numpy = imported("numpy")
    if numpy is None:
        return None
    ndarray = numpy.ndarray
    return FrameworkTensors("numpy", (TensorKind(ndarray, "numpy.ndarray", lambda array: _storage(array, ndarray)),))


# What this adapter offers the rest of the product (runtime/frameworks/__init__.py, Adapter).
ADAPTER = Adapter(tensor_kinds=tensor_kinds)
