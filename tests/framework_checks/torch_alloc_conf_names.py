"""Which of PyTorch's three names for the allocator config a fresh process reads (the catalog's PYTORCH_HIP_ALLOC_CONF
entry and its conflicts): each name alone, and each pair, in a new process, as torch reads the environment once."""

import itertools
import os
import subprocess
import sys

from _shell import emit

NAMES = {"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128", "PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True",
         "PYTORCH_ALLOC_CONF": "garbage_collection_threshold:0.5"}
READ = "import torch; print(torch._C._accelerator_getAllocatorSettings())"


def read_with(names):
    env = {k: v for k, v in os.environ.items() if k not in NAMES} | {name: NAMES[name] for name in names}
    done = subprocess.run([sys.executable, "-c", READ], capture_output=True, text=True, env=env, timeout=300)
    settings = done.stdout.strip()
    return next((name for name, value in NAMES.items() if value == settings), settings)


emit({"+".join(names): read_with(names)
      for names in [*itertools.combinations(NAMES, 1), *itertools.combinations(NAMES, 2)]})
