"""A single-user server's GPU view (protocol/_gpus.py GpuServerView) read as data, field by field: what the hub's page
shows of it, nothing more. The server is another user's process, so its answer is anything at all: every field is
checked for its type, strings are cut to a length and lists to a count, and an answer whose required fields are not
of their type is refused as a whole (`ViewError` with the field's path), never half shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..base._bounded_json import loads
from ..protocol._gpus import GPUS_VERSION

MAX_DEPTH = 6  # {"devices": [{"shares": [{...}]}]}: four levels; two more for a field a later server may add
MAX_KERNELS = 256
MAX_DEVICES = 64
MAX_NOTEBOOKS = 16
_MAX_TEXT = 256
_MAX_PATH = 1024
_MAX_SECONDS = 100 * 365 * 86400.0
_MAX_BYTES = 2**63 - 1


class ViewError(ValueError):
    """The answer is not a GPU view of this version: `field` is the path of the first field that is not."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


@dataclass(frozen=True)
class Kernel:
    id: str
    name: str
    notebooks: tuple[str, ...]
    idle_seconds: float | None
    running_cell: bool
    cull_at: str | None


@dataclass(frozen=True)
class Share:
    """A kernel's bytes on a device, and where the figure comes from (protocol/_gpus.py FigureSource: "nvml", or
    "kernel_report" where NVML's pids are the host's and the server's are a container's)."""

    kernel_id: str
    used: int | None
    figure: str = "nvml"


@dataclass(frozen=True)
class Device:
    index: int
    label: str
    name: str
    total: int
    used: int
    shares: tuple[Share, ...]


@dataclass(frozen=True)
class Host:
    """The machine a server runs on (protocol/_gpus.py GpuHost): its host name and application-specific id."""

    hostname: str
    id: str | None


@dataclass(frozen=True)
class ServerView:
    """What one single-user server answered: its state code (protocol/_gpus.py GpuViewState), its kernels and
    devices, whether the GPU is the simulated one, and its machine (None: a server that does not say)."""

    state: str
    simulated: bool
    kernels: tuple[Kernel, ...]
    devices: tuple[Device, ...]
    host: Host | None = None


def read_view(body: bytes) -> ServerView:
    """The view in `body` (UTF-8 JSON of at most MAX_DEPTH levels); ViewError (a ValueError) for anything else."""
    try:
        data = loads(body, MAX_DEPTH)
    except (ValueError, UnicodeDecodeError) as error:
        raise ViewError("(not JSON)") from error
    view = _object(data, "view")
    if view.get("v") != GPUS_VERSION:
        raise ViewError("v")
    state = _text(view.get("state"), "state", 16)
    kernels = tuple(_kernel(item, f"kernels[{i}]") for i, item in enumerate(_list(view, "kernels", MAX_KERNELS)))
    devices = tuple(_device(item, f"devices[{i}]") for i, item in enumerate(_list(view, "devices", MAX_DEVICES)))
    return ServerView(state, view.get("simulated") is True, kernels, devices, _host(view.get("host")))


def _host(data: object) -> Host | None:
    if data is None:  # a server of a version before the field: its node is not known
        return None
    host = _object(data, "host")
    id_ = host.get("id")
    return Host(_text(host.get("hostname"), "host.hostname", _MAX_TEXT),
                None if id_ is None else _text(id_, "host.id", 64))


def _kernel(data: object, where: str) -> Kernel:
    kernel = _object(data, where)
    notebooks = _list(kernel, "notebooks", MAX_NOTEBOOKS, where)
    return Kernel(
        id=_text(kernel.get("id"), f"{where}.id", 64),
        name=_text(kernel.get("name"), f"{where}.name", _MAX_TEXT),
        notebooks=tuple(_text(n, f"{where}.notebooks[{i}]", _MAX_PATH) for i, n in enumerate(notebooks)),
        idle_seconds=_seconds(kernel.get("idle_seconds"), f"{where}.idle_seconds"),
        running_cell=kernel.get("running_cell") is True,
        cull_at=None if kernel.get("cull_at") is None else _text(kernel.get("cull_at"), f"{where}.cull_at", 40))


def _device(data: object, where: str) -> Device:
    device = _object(data, where)
    shares = []
    for i, item in enumerate(_list(device, "shares", MAX_KERNELS, where)):
        share = _object(item, f"{where}.shares[{i}]")
        used = share.get("used")
        shares.append(Share(_text(share.get("kernel_id"), f"{where}.shares[{i}].kernel_id", 64),
                            None if used is None else _bytes(used, f"{where}.shares[{i}].used"),
                            _text(share.get("figure", "nvml"), f"{where}.shares[{i}].figure", 16)))
    return Device(index=_bytes(device.get("index"), f"{where}.index"),
                  label=_text(device.get("label"), f"{where}.label", _MAX_TEXT),
                  name=_text(device.get("name"), f"{where}.name", _MAX_TEXT),
                  total=_bytes(device.get("total"), f"{where}.total"),
                  used=_bytes(device.get("used"), f"{where}.used"),
                  shares=tuple(shares))


def _object(data: object, where: str) -> dict[str, object]:
    if not isinstance(data, dict):
        raise ViewError(where)
    return data


def _list(data: dict[str, object], key: str, limit: int, where: str = "") -> list[object]:
    value = data.get(key)
    if not isinstance(value, list) or len(value) > limit:
        raise ViewError(f"{where}.{key}" if where else key)
    return value


def _text(value: object, where: str, limit: int) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise ViewError(where)
    return value


def _bytes(value: object, where: str) -> int:
    if type(value) is not int or not 0 <= value <= _MAX_BYTES:
        raise ViewError(where)
    return value


def _seconds(value: object, where: str) -> float | None:
    if value is None:
        return None
    if not (type(value) in (int, float) and isinstance(value, (int, float))  # bool is not a number of seconds
            and math.isfinite(value) and 0 <= value <= _MAX_SECONDS):
        raise ViewError(where)
    return float(value)
