"""The memory package's face (memory/__init__.py): its names are imported on first use, so importing it stays
cheap."""

from __future__ import annotations

import subprocess
import sys
import time


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, mgenv_jupyter, mgenv_jupyter.memory; "
            "print(sorted(m for m in ('numpy', 'pandas', 'pynvml', 'psutil') if m in sys.modules))")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stdout
    assert time.perf_counter() - started < 10
