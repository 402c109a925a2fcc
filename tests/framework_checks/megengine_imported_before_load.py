"""MegEngine imported before the extension was loaded: detected and said so honestly."""

import megengine

from _shell import emit, envset, shell

ip = shell()
result = envset(ip, "--env-only MGE_DEFAULT_DEVICE=cpu0")
emit({"set": result, "default_device": megengine.get_default_device()})
