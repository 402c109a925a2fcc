"""Control: the trap the catalog guards against. "5GB" written straight into the environment is read as 5 bytes."""

import os

from _shell import emit

os.environ["MEGENGINE_DTR_EVICTION_THRESHOLD"] = "5GB"
from megengine.core._imperative_rt.core2 import get_option  # noqa: E402

emit({"dtr_eviction_threshold": get_option("dtr_eviction_threshold")})
