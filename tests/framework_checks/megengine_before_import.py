"""Set before `import megengine`: MegEngine must use exactly the normalised values."""

from _shell import emit, envset, shell

ip = shell()
set_result = envset(ip, "MGE_DEFAULT_DEVICE=cpu0 MEGENGINE_DTR_EVICTION_THRESHOLD=5GB "
                        "MEGENGINE_INTERP_ASYNC_LEVEL=0 MEGENGINE_HOST_COMPUTE=0")
import megengine  # noqa: E402
from megengine.core._imperative_rt.core2 import get_option  # noqa: E402

import mgenv_jupyter  # noqa: E402

emit({
    "set": set_result,
    "default_device": megengine.get_default_device(),
    "dtr_eviction_threshold": get_option("dtr_eviction_threshold"),
    "async_level": megengine.config.async_level,
    "enable_host_compute": get_option("enable_host_compute"),
    "status": {n: mgenv_jupyter.session().state(n).status.value
               for n in ("MGE_DEFAULT_DEVICE", "MEGENGINE_HOST_COMPUTE")},
})
