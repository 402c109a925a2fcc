"""What CUDA frameworks really do on a GPU, captured as data: the out-of-memory errors they raise (type and text, for
the out-of-memory forensics' recognisers) and when PyTorch's caching allocator reads its settings.

Run on a machine with a GPU: `python tests/gpu/cuda_facts.py OUT.json`. Each case runs in a fresh process (a CUDA
context, JAX's preallocation and PyTorch's allocator are per process). The JSON it writes is checked in under
tests/data/ with the GPU, driver and versions it was captured with; tests that use it say so.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import textwrap

# Each case prints one JSON object on its last line.
CASES = {
    "torch: one allocation larger than the GPU": """
        import torch
        try:
            torch.empty(1 << 40, dtype=torch.uint8, device="cuda")
        except Exception as exc:
            report(exc)
    """,
    "torch: the GPU filled by many allocations": """
        import torch
        held = []
        try:
            while True:
                held.append(torch.empty(1 << 32, dtype=torch.uint8, device="cuda"))
        except Exception as exc:
            report(exc, held=len(held))
    """,
    "torch: the GPU filled with 256 MiB blocks, every other one freed, then 1 GiB asked for": """
        import torch
        held = []
        try:
            while True:
                held.append(torch.empty(1 << 28, dtype=torch.uint8, device="cuda"))
        except Exception:
            pass
        del held[::2]
        try:
            torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
            report(None, succeeded=True, blocks=len(held))
        except Exception as exc:
            report(exc, blocks=len(held), stats={k: v for k, v in torch.cuda.memory_stats().items()
                                                 if k in ("reserved_bytes.all.current", "allocated_bytes.all.current")})
    """,
    "torch: past the per-process memory fraction": """
        import torch
        torch.cuda.set_per_process_memory_fraction(0.05)
        try:
            torch.empty(8 << 30, dtype=torch.uint8, device="cuda")
        except Exception as exc:
            report(exc)
    """,
    "torch: expandable segments": """
        import os
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
        import torch
        try:
            torch.empty(1 << 40, dtype=torch.uint8, device="cuda")
        except Exception as exc:
            report(exc)
    """,
    "jax: one allocation larger than the GPU": """
        import jax.numpy as jnp
        try:
            jnp.ones((1 << 38,), dtype=jnp.float32).block_until_ready()
        except Exception as exc:
            report(exc)
    """,
    "jax: past XLA_PYTHON_CLIENT_MEM_FRACTION": """
        import os
        os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = "0.05"
        import jax.numpy as jnp
        try:
            jnp.ones((3 << 30,), dtype=jnp.float32).block_until_ready()
        except Exception as exc:
            report(exc)
    """,
    "cupy: one allocation larger than the GPU": """
        import cupy
        try:
            cupy.empty(1 << 40, dtype=cupy.uint8)
        except Exception as exc:
            report(exc)
    """,
    # When the caching allocator reads PYTORCH_CUDA_ALLOC_CONF, seen in what it does: with max_split_size_mb:256 a
    # cached 1 GiB block (over the limit) is not split for a 20 MiB request, so the allocator reserves a new 20 MiB
    # segment (split() reports 1044 MiB reserved); without it the request is cut from the cached block (1024 MiB).
    # memory_stats()["max_split_size"] cannot tell: the allocator copies it once, when it is built.
    "torch allocator: default": """
        import torch
        report(None, **split(torch))
    """,
    "torch allocator: set before import": """
        import os
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:256"
        import torch
        report(None, **split(torch))
    """,
    "torch allocator: set after import, before the first CUDA use": """
        import os, torch
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:256"
        before = torch.cuda.is_initialized()
        report(None, initialized_before=before, **split(torch))
    """,
    "torch allocator: set after the first CUDA use": """
        import os, torch
        torch.empty(1, device="cuda")
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:256"
        report(None, initialized=torch.cuda.is_initialized(), **split(torch))
    """,
    "torch allocator: changed after the first CUDA use through the API": """
        import torch
        torch.empty(1, device="cuda")
        setter = (getattr(torch._C, "_accelerator_setAllocatorSettings", None)
                  or torch.cuda.memory._set_allocator_settings)
        setter("max_split_size_mb:256")
        report(None, setter=setter.__name__, getter=hasattr(torch._C, "_accelerator_getAllocatorSettings"),
               **split(torch))
    """,
    # The same through mgenv_jupyter's session: what it says at each moment against what the allocator reports.
    "mgenv: PYTORCH_CUDA_ALLOC_CONF through the session, before and after the first CUDA use": """
        import warnings
        import mgenv_jupyter
        session = mgenv_jupyter.session()
        import torch
        NAME = "PYTORCH_CUDA_ALLOC_CONF"
        def state():
            st = session.state(NAME)
            return [st.status.name, st.message.get("en")]
        seen = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            session.set({NAME: "max_split_size_mb:256"})
            seen["after import, before first use"] = state()
            seen["allocator with it"] = split(torch)
            seen["after first use"] = state()
            report_set = session.set({NAME: "max_split_size_mb:2048"})  # over 1 GiB: the cached block splits again
            seen["changed after first use"] = state()
            seen["allocator after the change"] = split(torch)
        seen["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
        seen["report"] = str(report_set)[:2000]
        report(None, **seen)
    """,
}

PRELUDE = """
import json, sys, traceback
def report(exc, **facts):
    if exc is not None:
        facts.update(type=f"{type(exc).__module__}.{type(exc).__qualname__}",
                     mro=[f"{c.__module__}.{c.__qualname__}" for c in type(exc).__mro__],
                     message=str(exc), traceback_tail=traceback.format_exception_only(exc)[-1])
    print(json.dumps(facts))
def split(torch):  # cache a 1 GiB block, ask for 20 MiB: the MiB reserved say whether the block was split
    torch.cuda.empty_cache()
    block = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    del block
    small = torch.empty(20 << 20, dtype=torch.uint8, device="cuda")
    reserved = torch.cuda.memory_reserved() >> 20
    del small
    return {"reserved_mib": reserved, "split": reserved == 1024}
"""


def versions() -> dict[str, str]:
    script = ("import json, importlib\nout = {}\nfor name in ('torch', 'jax', 'jaxlib', 'cupy'):\n"
              "    try: out[name] = importlib.import_module(name).__version__\n"
              "    except Exception as exc: out[name] = f'absent ({type(exc).__name__})'\n"
              "import pynvml; pynvml.nvmlInit(); h = pynvml.nvmlDeviceGetHandleByIndex(0)\n"
              "out['gpu'] = pynvml.nvmlDeviceGetName(h); out['driver'] = pynvml.nvmlSystemGetDriverVersion()\n"
              "out['gpu_total'] = pynvml.nvmlDeviceGetMemoryInfo(h).total\nprint(json.dumps(out))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {"error": done.stderr}


def main(out: str) -> None:
    results: dict[str, object] = {"python": platform.python_version(), **versions(), "cases": {}}
    for name, body in CASES.items():
        done = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], capture_output=True, text=True,
                              timeout=300)
        lines = done.stdout.strip().splitlines()
        try:
            results["cases"][name] = json.loads(lines[-1])  # type: ignore[index]
        except (IndexError, ValueError):
            results["cases"][name] = {"failed": done.returncode, "stderr": done.stderr[-3000:]}  # type: ignore[index]
        print(name, "->", json.dumps(results["cases"][name])[:300], flush=True)  # type: ignore[index]
    with open(out, "w", encoding="utf-8") as file:
        json.dump(results, file, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1])
