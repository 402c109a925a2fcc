"""TORCHINDUCTOR_* variables are read when torch._inductor.config is imported (by torch.compile, not by `import torch`):
set before that they are in the config; set after, they apply live through the config module."""

import sys

from _shell import emit, envset, shell

ip = shell()
import torch  # noqa: E402, F401

result = {"loaded_with_torch": "torch._inductor.config" in sys.modules}
result["before"] = envset(ip, "TORCHINDUCTOR_MAX_AUTOTUNE=1 TORCHINDUCTOR_FX_GRAPH_CACHE=0")
import torch._inductor.config as inductor_config  # noqa: E402

result["config_before"] = {"max_autotune": inductor_config.max_autotune,
                           "fx_graph_cache": inductor_config.fx_graph_cache}
result["after"] = envset(ip, "TORCHINDUCTOR_MAX_AUTOTUNE=0")
result["config_after"] = {"max_autotune": inductor_config.max_autotune}
emit(result)
