"""One memory reading and what every source promises (memory/_sample.py): a sample names each quantity it knows as a
series "<device> <quantity>", and every source of the package is a `MemorySource`."""

from __future__ import annotations

import pytest

from mgenv_jupyter.memory._framework_sources import framework_sources
from mgenv_jupyter.memory._host_source import HostSource
from mgenv_jupyter.memory._nvml_source import NvmlSource
from mgenv_jupyter.memory._sample import QUANTITIES, DeviceId, MemorySource, Sample, series_key
from mgenv_jupyter.memory._sources import UnavailableSource

GiB = 1024**3


def test_a_sample_gives_a_series_for_each_quantity_it_knows_in_the_front_ends_order():
    sample = Sample(1.0, "megengine", "megengine gpu0", peak=3 * GiB, allocated=GiB, reserved=2 * GiB)
    assert list(sample.values()) == [("megengine gpu0 allocated", GiB), ("megengine gpu0 reserved", 2 * GiB),
                                     ("megengine gpu0 peak", 3 * GiB)]
    assert list(Sample(1.0, "nvml", "gpu0").values()) == []  # None means unknown, not zero
    assert list(Sample(1.0, "nvml", "gpu0", used=0).values()) == [("gpu0 used", 0)]


@pytest.mark.parametrize("device", [DeviceId("gpu0"), DeviceId("gpu0", "megengine"), DeviceId("gpu1", simulated=True),
                                    DeviceId("host"), DeviceId("gpu0", "my alloc", "gpu1")])
@pytest.mark.parametrize("quantity", QUANTITIES)
def test_a_series_names_its_device_and_quantity_and_its_fields_give_them_back(device, quantity):
    """The key is a name for people ("<device> <quantity>"); the fields it was written from are what code reads."""
    info = device.series(quantity, "test")
    assert info["key"] == series_key(device.label, quantity) == f"{device.label} {quantity}"
    assert DeviceId.of(info) == device and info["quantity"] == quantity


def test_a_gpus_index_is_read_from_its_device_field_alone():
    assert [DeviceId(name).gpu for name in ("gpu0", "gpu12", "host", "cpu0", "gpu", "gpu²", "gpu0 x", "gpu12345")] == [
        0, 12, None, None, None, None, None, None]
    assert DeviceId("gpu1", framework="gpu0", node="gpu2").gpu == 1  # the framework's and node's names are not read


def test_every_source_of_the_package_keeps_the_promise():
    gpus = NvmlSource()
    sources = [gpus, HostSource(), HostSource(gpus=gpus), UnavailableSource("nvml (simulated)", "not started"),
               *framework_sources()]
    try:
        assert [s for s in sources if not isinstance(s, MemorySource)] == []
    finally:
        gpus.close()
    assert not isinstance(object(), MemorySource)
