"""XLA_FLAGS is read at JAX's backend initialisation (the first operation), not at import: set after `import jax`
but before the first operation it gives 4 CPU devices; set after the first operation it warns and nothing changes.
Usage: jax_xla_flags.py before_first_op | after_first_op"""

import sys

from _shell import emit, envset, shell

ip = shell()
import jax  # noqa: E402

from mgenv_jupyter import session  # noqa: E402

if sys.argv[1] == "after_first_op":
    jax.numpy.ones(2).block_until_ready()
result = envset(ip, "XLA_FLAGS=--xla_force_host_platform_device_count=4")
result["devices"] = len(jax.devices())
result["status_now"] = session().state("XLA_FLAGS").status.value
emit(result)
