"""A single-user server's answer read field by field: a real view's fields come through; a field of the wrong type,
a number out of bounds, NaN, a version not ours or too many kernels refuse the whole answer and name the field."""

from __future__ import annotations

import copy
import json

import pytest
from hub_server import GOOD_VIEW

from mgenv_jupyter.hub._reading import MAX_KERNELS, ViewError, read_view


def test_a_view_is_read_with_its_kernels_devices_and_shares() -> None:
    view = read_view(json.dumps(GOOD_VIEW).encode())
    assert view.state == "ok" and view.simulated
    assert (view.kernels[0].id, view.kernels[0].idle_seconds, view.kernels[0].cull_at) == ("k1", 75.0, None)
    assert (view.devices[0].total, view.devices[0].shares[0].kernel_id) == (80 << 30, "k1")
    assert view.host is not None and (view.host.hostname, view.host.id) == (GOOD_VIEW["host"]["hostname"],
                                                                            GOOD_VIEW["host"]["id"])
    assert read_view(bad(("host",), None)).host is None  # a server from before the field: no node named


def bad(path: tuple[object, ...], value: object) -> bytes:
    data = copy.deepcopy(GOOD_VIEW)
    target: object = data
    for key in path[:-1]:
        target = target[key]  # type: ignore[index]
    target[path[-1]] = value  # type: ignore[index]
    return json.dumps(data).encode()


@pytest.mark.parametrize(("path", "value", "field"), [
    (("v",), 2, "v"),
    (("kernels", 0, "notebooks"), "train.ipynb", "kernels[0].notebooks"),
    (("kernels", 0, "idle_seconds"), -1, "kernels[0].idle_seconds"),
    (("kernels", 0, "id"), "k" * 65, "kernels[0].id"),
    (("devices", 0, "used"), True, "devices[0].used"),
    (("devices", 0, "shares", 0, "used"), 2**63, "devices[0].shares[0].used"),
    (("kernels",), [GOOD_VIEW["kernels"][0]] * (MAX_KERNELS + 1), "kernels"),
    (("host",), "gpu-node-1", "host"),
    (("host", "hostname"), 7, "host.hostname"),
    (("host", "id"), "x" * 65, "host.id"),
])
def test_a_field_of_the_wrong_kind_refuses_the_answer(path: tuple[object, ...], value: object, field: str) -> None:
    with pytest.raises(ViewError) as refused:
        read_view(bad(path, value))
    assert refused.value.field == field


@pytest.mark.parametrize("body", [b"NaN", b'{"v": 1e999}', b"\xff", b"[]", b"1" * 30, b"[" * 20 + b"]" * 20])
def test_what_is_not_a_view_is_refused(body: bytes) -> None:
    with pytest.raises(ViewError):
        read_view(body)
