"""The framework adapters, each imported by name here, so go-to-definition and the layer test see every edge, and
listed by the framework's key (its top-level module). Imported with the first question to an adapter
(`adapters()` in __init__.py), never at `%load_ext`; the adapters import no framework.

The order is the order they are asked: the holders walk's (PyTorch first), which the out-of-memory recognition, the
caches given back and the memory sources follow too. CuPy and NumPy are no framework of the catalog, but their pools
are given back and their arrays sized. Ascend has none: its options are recorded for the user's own NPURunConfig call.
"""

from __future__ import annotations

from . import Adapter, _cupy, _jax, _megengine, _mxnet, _numpy, _paddle, _tensorflow, _torch

ADAPTERS: dict[str, Adapter] = {
    "torch": _torch.ADAPTER, "jax": _jax.ADAPTER, "paddle": _paddle.ADAPTER, "megengine": _megengine.ADAPTER,
    "mxnet": _mxnet.ADAPTER, "tensorflow": _tensorflow.ADAPTER, "cupy": _cupy.ADAPTER, "numpy": _numpy.ADAPTER,
}
# The adapters' modules, for the tests that read every text an adapter holds.
MODULES = (_torch, _jax, _paddle, _megengine, _mxnet, _tensorflow, _cupy, _numpy)
