"""OMP_NUM_THREADS is read when `import torch` loads the OpenMP runtime: set before, torch.get_num_threads() reports
it; set after, only the environment changes (a warning says so) unless it is applied live with torch.set_num_threads.
above_cores: more threads than CPUs before import (`asked`) are capped at the core count by MKL (MKL_DYNAMIC; its count
of cores is torch's default, which is physical cores where os.cpu_count() counts two per core), while
torch.set_num_threads takes them as given.
Usage: torch_threads.py before_import | after_import | above_cores"""

import os
import sys

from _shell import emit, envset, shell

ip = shell()
result: dict = {}
if sys.argv[1] == "before_import":
    result["set"] = envset(ip, "OMP_NUM_THREADS=1")
    import torch

    result["threads"] = torch.get_num_threads()
elif sys.argv[1] == "above_cores":
    above = result["asked"] = os.cpu_count() + 1
    result["set"] = envset(ip, f"OMP_NUM_THREADS={above}")
    import torch

    result["threads"] = torch.get_num_threads()
    torch.set_num_threads(above)
    result["live"] = torch.get_num_threads()
    result["mkl"] = torch.backends.mkl.is_available()
else:
    import torch

    result["baseline"] = torch.get_num_threads()
    result["env_only"] = envset(ip, "--env-only OMP_NUM_THREADS=1")
    result["after_env_only"] = torch.get_num_threads()
    result["live"] = envset(ip, "OMP_NUM_THREADS=1")
    result["threads"] = torch.get_num_threads()
emit(result)
