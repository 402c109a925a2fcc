"""The parameters of the real framework's APIs that the GPU-only stand-ins imitate (tests/framework_stand_ins.py):
argv[1] is the framework's module, the rest dotted paths to resolve in it ("torch.cuda.memory_reserved",
"jax.Device.memory_stats"). Submodules are imported as the path needs them."""

import importlib
import sys

from _signatures import parameters

from _shell import emit


def resolve(path: str) -> object:
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            found = getattr(found, name)
        return found
    raise ImportError(path)


importlib.import_module(sys.argv[1])
emit({path: parameters(resolve(path)) for path in sys.argv[2:]})
