"""Inside a container's own pid namespace (the simulated "container" GPU: NVML lists pids that exist nowhere here),
a real `jupyter server` cannot find its kernels in NVML's list. A real kernel with the extension loaded and a framework
allocator holding memory (PyTorch's stand-in, tests/framework_stand_ins.py: no GPU here) reports what it holds, and
the server's view shows that figure as the kernel's own report; a kernel that reports nothing shows unknown, not 0."""

from __future__ import annotations

import json
import time
from pathlib import Path

from server_kernels import api, kernel_client

from mgenv_jupyter.protocol._gpus import GPUS_PATH

from lab_server import ROOT, running_lab

GiB = 1024**3
CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}


def test_in_a_container_the_view_shows_each_kernels_own_report(tmp_path: Path):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": "container"}, app="server") as lab:
        ids = {}
        for name in ("torch.ipynb", "quiet.ipynb"):
            ids[name] = api(lab, "POST", "api/sessions", {"path": name, "type": "notebook", "name": name,
                                                          "kernel": {"name": "python3"}})["kernel"]["id"]
        kc = kernel_client(lab, ids["torch.ipynb"])
        for code in (f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
                     "from framework_stand_ins import TorchGpu, torch_modules\n"
                     f"sys.modules.update(torch_modules(TorchGpu(devices=[({2 * GiB}, {3 * GiB}, {3 * GiB})], "
                     "cuda_initialised=True)))\nimport torch",
                     "%load_ext mgenv_jupyter", "x = 1", "y = 2"):
            kc.execute_interactive(code, timeout=120)
        deadline, view = time.time() + 30, None
        while time.time() < deadline:
            view = api(lab, "GET", GPUS_PATH)
            shares = {s["kernel_id"]: s for s in view["devices"][0]["shares"]}
            if shares.get(ids["torch.ipynb"], {}).get("figure") == "kernel_report":
                break
            time.sleep(0.5)
        kc.stop_channels()
    assert view is not None and view["namespace"] == "foreign", view
    shares = {s["kernel_id"]: s for s in view["devices"][0]["shares"]}
    assert shares[ids["torch.ipynb"]] == {"kernel_id": ids["torch.ipynb"], "used": 3 * GiB, "figure": "kernel_report"}
    assert shares[ids["quiet.ipynb"]] == {"kernel_id": ids["quiet.ipynb"], "used": None, "figure": "unknown"}
