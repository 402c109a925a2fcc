"""A real device memory profile of JAX for tests/runtime/frameworks/test_pprof.py (run in .venvs/jax)."""

import jax
import jax.numpy as jnp


def make(n):
    return jnp.ones((n,), dtype="float32")  # line 8: 4 MiB, called from line 11


kept = make(1 << 20)
more = [jnp.zeros((256,), dtype="float32") for _ in range(3)]  # line 12: three of 1 KiB
with open(__file__.replace(".py", ".pb.gz"), "wb") as out:
    out.write(jax.profiler.device_memory_profile())
