"""Each cell's memory record as a Jupyter front end receives it, from a real kernel (jupyter_client, ipykernel): the
execute requests carry the cell's id as JupyterLab sends it (`metadata.cellId`), and the records are the cells'
comm messages on IOPub, which the front end writes into that cell's metadata (labextension/src/cellmemory/).

Only the user's cells are recorded (mgenv_jupyter/memory/_cell_events.py): the culling notice's "Keep the kernel"
(an empty, non-silent request, labextension/src/culling/notices.ts) is no run of the cell before it, and a cell that
runs an earlier one again (`%rerun`) is one run of its own, recorded under its own id."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

MiB = 1 << 20
GROW = "keep.append(np.ones(64 << 20, dtype=np.uint8))"  # 64 MiB a run, written (so resident)


class Kernel:
    def __init__(self, client: Any) -> None:
        self.client = client

    def execute(self, code: str, cell_id: str | None = None, *, store_history: bool = True) -> list[dict[str, Any]]:
        """Run `code` as a front end's execute request; the cells' memory records sent for it, once it is idle."""
        content = {"code": code, "silent": False, "store_history": store_history, "user_expressions": {},
                   "allow_stdin": False, "stop_on_error": True}
        message = self.client.session.msg("execute_request", content,
                                          metadata={"cellId": cell_id} if cell_id is not None else {})
        self.client.shell_channel.send(message)
        records, errors = [], []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                got = self.client.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            kind, data = got["msg_type"], got["content"].get("data")
            if kind == "comm_msg" and isinstance(data, dict) and data.get("type") == "cell_memory":
                records.append(data)  # a record goes out while its request runs, before the kernel is idle
            if got["parent_header"].get("msg_id") != message["header"]["msg_id"]:
                continue
            if kind == "error":
                errors.append(got["content"]["ename"])
            if kind == "status" and got["content"]["execution_state"] == "idle":
                assert not errors, f"{code!r} failed: {errors}"
                return records
        raise AssertionError(f"{code!r} did not finish within 60 s")


def host_kept(notice: dict[str, Any]) -> int | None:
    (host,) = [device for device in notice["record"]["devices"] if device["device"] == "host"]
    return host["kept"]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path_factory.mktemp("cells")))
    try:
        kernel = Kernel(client)
        kernel.execute("%load_ext mgenv_jupyter", "load")
        kernel.execute("import numpy as np\nkeep = []", "setup")
        yield kernel
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_keep_the_kernel_is_no_run_of_the_cell_before_it(kernel):
    (grown,) = kernel.execute(GROW, "grow")
    assert grown["cell_id"] == "grow" and 60 * MiB <= host_kept(grown) <= 80 * MiB
    # The culling notice's button, exactly as it asks: before, the kernel sent the cell "grow" a second record, with
    # nothing kept and running since "grow" began, which the front end wrote over the cell's real run.
    assert kernel.execute("", store_history=False) == []


def test_a_cell_that_runs_another_again_is_one_run_under_its_own_id(kernel):
    (grown,) = kernel.execute(GROW, "grow again")
    number = grown["record"]["execution_count"]
    # Before: the run inside it was recorded as a cell without an id, and the cell itself without its id or what
    # it kept, so its badge said nothing of the 64 MiB it kept.
    records = kernel.execute(f"%rerun {number}", "rerun")
    assert [record["cell_id"] for record in records] == ["rerun"]
    assert records[0]["record"]["execution_count"] == number + 1
    assert 60 * MiB <= host_kept(records[0]) <= 80 * MiB
