"""The GPU tier: NVML and CUDA on real hardware. This machine and CI have no GPU, so these tests skip here, saying
why; they run where `nvidia-smi` answers (see the README's "Checked on a real GPU" for the last run and its results).

Every test in this directory is marked `gpu` and `slow` by tests/conftest.py."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: NVML and CUDA on a real NVIDIA GPU (tests/gpu; skipped without one)")


def real_gpu_count() -> int:
    """How many GPUs the real NVML library reports (0 without a driver, or where the fake one stands in)."""
    from mgenv_jupyter.memory.simulated._fake_nvml import installed

    if installed() is not None:
        return 0
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:
        return 0
    try:
        return pynvml.nvmlDeviceGetCount()
    finally:
        pynvml.nvmlShutdown()


@pytest.fixture(scope="session")
def real_gpu() -> int:
    count = real_gpu_count()
    if not count:
        pytest.skip("no NVIDIA GPU here: NVML does not answer (the GPU tier runs on a machine with one)")
    return count


@pytest.fixture(scope="session")
def cuda_python() -> str:
    """A Python with PyTorch built for CUDA, to start the processes that hold GPU memory."""
    import shutil
    import subprocess

    for python in ("python3", "python"):
        path = shutil.which(python)
        if path and subprocess.run([path, "-c", "import torch, sys; sys.exit(not torch.cuda.is_available())"],
                                   capture_output=True, timeout=120).returncode == 0:
            return path
    pytest.skip("no Python with a CUDA build of PyTorch on PATH")
