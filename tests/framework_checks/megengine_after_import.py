"""Set after `import megengine`: env-only changes warn and change nothing; live changes really change MegEngine."""

from _shell import emit, envset, shell

ip = shell()
import megengine  # noqa: E402
from megengine.core._imperative_rt.core2 import get_option  # noqa: E402

env_only = envset(ip, "--env-only MGE_DEFAULT_DEVICE=cpu1 MEGENGINE_DTR_EVICTION_THRESHOLD=2GB")
after_env_only = {"default_device": megengine.get_default_device(),
                  "dtr_eviction_threshold": get_option("dtr_eviction_threshold")}
no_live_api = envset(ip, "MEGENGINE_ASYNC_QUEUE_SIZE=100")
live = envset(ip, "MGE_DEFAULT_DEVICE=cpu0 MEGENGINE_DTR_EVICTION_THRESHOLD=3GB MEGENGINE_INTERP_ASYNC_LEVEL=1 "
                  "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE=2MB")
emit({
    "env_only": env_only,
    "after_env_only": after_env_only,
    "no_live_api": no_live_api,
    "live": live,
    "after_live": {"default_device": megengine.get_default_device(),
                   "dtr_eviction_threshold": get_option("dtr_eviction_threshold"),
                   "dtr_evictee_minimum_size": get_option("dtr_evictee_minimum_size"),
                   "async_level": megengine.config.async_level},
})
