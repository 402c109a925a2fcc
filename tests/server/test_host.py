"""The machine a server says it runs on (server/_host.py): the id is systemd's application-specific derivation of the
machine id, the same in every process of the machine, and neither the machine id nor anything without one."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from mgenv_jupyter.server._host import APPLICATION_ID, MACHINE_ID_FILES, app_specific_id, this_host

MACHINE_ID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def test_the_id_is_derived_from_the_machine_id_and_does_not_show_it(tmp_path: Path) -> None:
    (tmp_path / "machine-id").write_text(MACHINE_ID + "\n")
    host = this_host((tmp_path / "missing", tmp_path / "machine-id"))
    assert host["id"] == app_specific_id(bytes.fromhex(MACHINE_ID)) and host["id"] is not None
    assert MACHINE_ID not in host["id"].replace("-", "") and host["id"][14] == "4"  # a version 4 UUID, as systemd's
    (tmp_path / "other").write_text("f" * 32)
    assert this_host((tmp_path / "other",))["id"] != host["id"]


@pytest.mark.parametrize("text", ["", "not hex at all", MACHINE_ID[:-1], MACHINE_ID.upper() + "00"])
def test_no_readable_machine_id_is_no_id_and_the_host_name_stays(tmp_path: Path, text: str) -> None:
    (tmp_path / "machine-id").write_text(text)
    host = this_host((tmp_path / "machine-id", tmp_path / "missing"))
    assert host["id"] is None and host["hostname"]


@pytest.mark.skipif(shutil.which("systemd-id128") is None or not MACHINE_ID_FILES[0].exists(),
                    reason="systemd-id128 and /etc/machine-id tell what systemd derives")
def test_it_is_what_systemd_derives_for_this_application() -> None:
    derived = subprocess.run(["systemd-id128", "machine-id", f"--app-specific={APPLICATION_ID}"], check=True,
                             capture_output=True, text=True, timeout=30).stdout.strip()
    assert this_host()["id"] == str(uuid.UUID(derived))
