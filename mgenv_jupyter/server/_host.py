"""Which machine this server runs on (protocol/_gpus.py GpuHost): what a hub's page groups its servers' GPUs by.

The machine id (`/etc/machine-id`, systemd's; D-Bus's copy where systemd's is missing) identifies the machine for as
long as it is installed, and is meant to stay on it: systemd's documentation asks that it not be shown to others, and
derives an id per application instead (sd_id128_get_machine_app_specific: HMAC-SHA256 of a fixed application id keyed
by the machine id). This is that derivation, with this package's own application id: the same on every server of the
machine, and nothing about the machine id can be learnt from it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import socket
import uuid
from pathlib import Path

from ..protocol._gpus import GpuHost

# This package's application id (a random UUID, fixed once: changing it changes every node's id).
APPLICATION_ID = uuid.UUID("3c0f7a52-9d1e-4b6a-8f25-6e0d2b9c41a7")
MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
_MACHINE_ID = re.compile(r"[0-9a-f]{32}")
_MAX_HOSTNAME = 255


def this_host(files: tuple[Path, ...] = MACHINE_ID_FILES) -> GpuHost:
    """This machine's host name and application-specific id (None: no machine id is readable)."""
    return GpuHost(hostname=socket.gethostname()[:_MAX_HOSTNAME], id=app_specific_id(_machine_id(files)))


def app_specific_id(machine_id: bytes | None) -> str | None:
    """sd_id128_get_machine_app_specific's derivation (a version 4 UUID) of APPLICATION_ID from `machine_id`."""
    if machine_id is None:
        return None
    digest = bytearray(hmac.new(machine_id, APPLICATION_ID.bytes, hashlib.sha256).digest()[:16])
    digest[6] = digest[6] & 0x0F | 0x40  # as systemd's id128_make_v4_uuid
    digest[8] = digest[8] & 0x3F | 0x80
    return str(uuid.UUID(bytes=bytes(digest)))


def _machine_id(files: tuple[Path, ...]) -> bytes | None:
    for path in files:
        try:
            with open(path, "rb") as file:
                text = file.read(64).strip().decode("ascii", "replace")
        except OSError:
            continue
        if _MACHINE_ID.fullmatch(text):
            return bytes.fromhex(text)
    return None
