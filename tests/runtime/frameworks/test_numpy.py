"""NumPy's arrays as the holders walk sizes them (runtime/frameworks/_numpy.py), with the real NumPy: an array that
owns its memory is its own storage, a view shares its owner's, an array over another object's buffer counts its own
part, an object array holds references only, and only exact ndarrays are declared (a memmap is a subclass)."""

from __future__ import annotations

import sys

import numpy as np

from mgenv_jupyter.runtime.frameworks import _numpy


def size(array):
    (kind,) = _numpy.tensor_kinds().tensors
    return kind.size(array)


def test_owner_views_buffers_and_object_arrays():
    base = np.ones(1000, dtype=np.uint8)
    owner, view = size(base), size(base[10:20])
    assert owner.owner and owner.bytes == 1000
    assert view.key == owner.key and not view.owner and view.bytes == 1000  # the owner's block, counted once
    over = size(np.frombuffer(b"x" * 64, dtype=np.uint8))
    assert not over.owner and over.bytes == 64
    assert size(np.array([object(), object()])) is None


def test_only_the_exact_ndarray_type_is_declared_and_nothing_until_numpy_is_imported(monkeypatch, tmp_path):
    (kind,) = _numpy.tensor_kinds().tensors
    assert kind.type is np.ndarray and kind.name == "numpy.ndarray"
    mapped = np.memmap(tmp_path / "m", dtype=np.uint8, mode="w+", shape=(8,))
    assert type(mapped) is not kind.type  # a subclass: the walk names it as not looked into
    monkeypatch.delitem(sys.modules, "numpy")
    assert _numpy.tensor_kinds() is None
