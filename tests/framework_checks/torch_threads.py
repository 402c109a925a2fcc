"""OMP_NUM_THREADS is read when `import torch` loads the OpenMP runtime: set before, torch.get_num_threads() reports
it; set after, only the environment changes (a warning says so) unless it is applied live with torch.set_num_threads.
Usage: torch_threads.py before_import | after_import"""

import os
import sys

from _shell import emit, envset, shell

ip = shell()
result = {"cores": os.cpu_count()}
if sys.argv[1] == "before_import":
    result["set"] = envset(ip, "OMP_NUM_THREADS=1")
    import torch

    result["threads"] = torch.get_num_threads()
else:
    import torch

    result["baseline"] = torch.get_num_threads()
    result["env_only"] = envset(ip, "--env-only OMP_NUM_THREADS=1")
    result["after_env_only"] = torch.get_num_threads()
    result["live"] = envset(ip, "OMP_NUM_THREADS=1")
    result["threads"] = torch.get_num_threads()
emit(result)
