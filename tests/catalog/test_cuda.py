"""The CUDA variables every GPU framework reads at its first CUDA initialisation (catalog/_cuda.py): a change after
that is ignored until restart, and the values are what the CUDA driver accepts."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.catalog import ReadWhen, catalog
from mgenv_jupyter.catalog import _cuda as cuda
from mgenv_jupyter.runtime import Status


def test_read_once_at_the_first_cuda_initialisation_by_any_framework():
    frameworks = set(catalog().frameworks()) - {"ascend", "cuda"}
    for entry in cuda.ENTRIES:
        assert entry.when is ReadWhen.FIRST_USE and entry.first_use is not None, entry.name
        assert "first CUDA initialisation" in entry.first_use.en and "CUDA" in entry.first_use.zh
        assert any("until restart" in caveat.en for caveat in entry.caveats), entry.name
        assert frameworks <= set(entry.readers), entry.name  # the import watcher follows every catalog framework


def test_visible_devices_are_indices_or_uuids_each_once():
    devices = catalog().get("CUDA_VISIBLE_DEVICES")
    assert devices is not None
    assert devices.type.parse("0, 1").text == "0,1"
    assert devices.type.parse("GPU-5157a7ed-1b4c,MIG-GPU-5157a7ed/1/0").value == ["GPU-5157a7ed-1b4c",
                                                                              "MIG-GPU-5157a7ed/1/0"]
    assert devices.type.parse("").value == []  # hides every device
    for bad in ("gpu0", "0;1", "-1"):
        with pytest.raises(InvalidValueError, match="comma-separated device indices"):
            devices.type.parse(bad)
    with pytest.raises(InvalidValueError, match="names a device twice"):
        devices.type.parse("1,1")


def test_device_order_is_one_of_the_drivers_two():
    order = catalog().get("CUDA_DEVICE_ORDER")
    assert order is not None and order.type.choices() == ("FASTEST_FIRST", "PCI_BUS_ID")
    assert order.type.parse(order.default).text == "FASTEST_FIRST"


def test_set_in_a_fresh_kernel_it_waits_for_the_first_cuda_initialisation(fresh_session):
    report = fresh_session.set({"CUDA_VISIBLE_DEVICES": "1"})
    assert report["CUDA_VISIBLE_DEVICES"].outcome is Status.PENDING_FIRST_USE
    assert "the first CUDA initialisation in this process" in report["CUDA_VISIBLE_DEVICES"].message
