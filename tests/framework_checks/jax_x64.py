"""JAX_ENABLE_X64 is read into jax.config at `import jax`; afterwards it applies live through jax.config.update.
Usage: jax_x64.py before_import | after_import"""

import sys

from _shell import emit, envset, shell

ip = shell()
if sys.argv[1] == "before_import":
    result = envset(ip, "JAX_ENABLE_X64=1")
    import jax
else:
    import jax

    result = envset(ip, "JAX_ENABLE_X64=1")
result["dtype"] = str(jax.numpy.ones(2).dtype)
result["config"] = bool(jax.config.jax_enable_x64)
emit(result)
