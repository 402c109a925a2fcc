"""Memory sources against a real framework wheel (CPU builds here): never import it, then say truthfully what it
exposes once imported, and (PyTorch, JAX, TensorFlow) that sampling before the first operation starts nothing that
operation would. argv[1] is the framework: megengine | paddle | mxnet | torch | jax | tensorflow."""

import os
import sys

from _shell import emit

framework = sys.argv[1]
if framework == "paddle":
    os.environ["FLAGS_allocator_strategy"] = "naive_best_fit"  # read at import: the cap overlay needs it

from mgenv_jupyter.memory import Sampler  # noqa: E402
from mgenv_jupyter.memory._framework_sources import framework_sources  # noqa: E402
from mgenv_jupyter.memory._overlays import overlays  # noqa: E402
from mgenv_jupyter.memory._sample import DeviceId  # noqa: E402
from mgenv_jupyter.memory._state_words import state_text  # noqa: E402
from mgenv_jupyter.runtime import session  # noqa: E402

sources = {s.name: s for s in framework_sources()}
source = sources[framework]
result = {"before": {"samples": len(source.sample()), "state": state_text(source.state, "en"),
                     "imported_by_sampling": framework in sys.modules}}

module = __import__(framework)
samples = source.sample()
result["after"] = {"samples": [s.__dict__ for s in samples], "state": state_text(source.state, "en")}



def first_operation() -> None:
    if framework == "torch":
        (module.ones(256, 256) @ module.ones(256, 256)).sum().item()
    elif framework == "jax":
        (module.numpy.ones((256, 256)) @ module.numpy.ones((256, 256))).block_until_ready()
    else:
        (module.ones((256, 256)) @ module.ones((256, 256))).numpy()


def started() -> bool:
    """What the first operation starts, asked the framework's own way without starting it."""
    if framework == "torch":
        return bool(module.cuda.is_initialized())
    if framework == "jax":
        return bool(sys.modules["jax._src.xla_bridge"].backends_are_initialized())
    context = sys.modules["tensorflow.python.eager.context"]._context
    return context is not None and bool(context._initialized)


if framework in ("torch", "jax", "tensorflow"):
    result["started_by_sampling"] = started()
    first_operation()
    samples = source.sample()
    result["after_first_operation"] = {"samples": [s.__dict__ for s in samples],
                                       "state": state_text(source.state, "en"),
                                       "started": started()}

if framework == "megengine":
    module.dtr.eviction_threshold = "3GB"
if framework == "mxnet":
    (module.nd.ones((256, 256)) + 1).wait_to_read()
GiB = 1024**3
result["overlays"] = [line.to_json() for line in overlays(session(), {}, {DeviceId("gpu0"): 16 * GiB})]

# The default sources with the framework loaded: nothing may break.
with Sampler(interval=0.02, session=session()) as sampler:
    for _ in range(5):
        sampler.sample_once()
    result["default_states"] = {s["name"]: s["text"] for s in sampler.states()}
    result["columns"] = sampler.history.series
emit(result)
