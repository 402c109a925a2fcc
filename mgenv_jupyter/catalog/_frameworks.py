"""The registry of the frameworks the catalog covers: how they are named to users, which source and wheel each
entry was traced and checked against (the source tag read, and the wheel the tests run), and which modules of the
catalog are each framework's home.

A framework's home (`_<key>.py`, with its parts `_<key>_<part>.py`) declares everything the product knows about it
as data: its entries, and under agreed names the facts other layers ask instead of restating, which _homes.py lists
per framework as one typed `FrameworkFacts`. Only this table and _homes.py's name the frameworks
(tests/quality/test_framework_homes.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base._text import Text


@dataclass(frozen=True)
class Framework:
    key: str
    label: Text
    source: str  # the source the catalog was traced from
    checked: str | None  # the wheel the real-framework tests run (None: none exists on PyPI for this machine)
    homes: tuple[str, ...] = ()  # its data modules in this package, its home first
    options: str | None = None  # the call its entries are keyword arguments of, where they are no variables


FRAMEWORKS = (
    Framework("megengine", Text("MegEngine", "MegEngine"), "MegEngine v1.13.4 (GitHub tag)",
              "megengine 1.13.0 (the newest wheel on PyPI; the 1.13.4 source reads the same variables)",
              ("_megengine", "_megengine_dtr")),
    Framework("mxnet", Text("MXNet", "MXNet"), "apache/mxnet 1.9.1", "mxnet 1.9.1", ("_mxnet",)),
    Framework("paddle", Text("PaddlePaddle", "飞桨 PaddlePaddle"), "PaddlePaddle 3.3.1 and develop C++ sources",
              "paddlepaddle 3.3.1", ("_paddle",)),
    Framework("torch", Text("PyTorch", "PyTorch"), "pytorch 2.13.0 (c10 headers and Python sources of the wheel; "
              "C++ files as stored from pytorch main)", "torch 2.13.0 (the +cpu build)", ("_torch",)),
    Framework("jax", Text("JAX", "JAX"), "jax and jaxlib 0.10.2 (Python sources of the wheels)",
              "jax 0.10.2 (with jaxlib 0.10.2, CPU)", ("_jax",)),
    Framework("tensorflow", Text("TensorFlow", "TensorFlow"), "tensorflow 2.21.0 (Python sources of the wheel; "
              "C++ file names from the TensorFlow source tree)", "tensorflow_cpu 2.21.0", ("_tensorflow",)),
    Framework("ascend", Text("Ascend (NPURunConfig)", "昇腾(NPURunConfig)"), "hicann/tensorflow master (2026-07)",
              None, ("_ascend",), options="NPURunConfig"),
    Framework("cuda", Text("CUDA", "CUDA"), "the CUDA driver's documented variables", None, ("_cuda",)),
)

BY_KEY = {framework.key: framework for framework in FRAMEWORKS}
# The frameworks whose entries are keyword arguments of a call in the user's code, and that call (catalog/_options.py).
KEYWORD_CALLS = {framework.key: framework.options for framework in FRAMEWORKS if framework.options is not None}
# Every data module of the catalog, in the order front ends list the frameworks.
DATA_MODULES = tuple(home for framework in FRAMEWORKS for home in framework.homes)

# The top-level Python modules of the libraries that use the GPU through CUDA: the frameworks above but Ascend's (its
# devices are NPUs), and CuPy, which reads the same CUDA variables. One list that the CUDA entries' readers, the
# out-of-memory recorder's pause, the memory sources' names and the cluster's reserved label words all ask.
GPU_MODULES = ("megengine", "paddle", "mxnet", "torch", "tensorflow", "jax", "cupy")

# Every module an entry names among its `readers`: the import watcher follows these from `%load_ext` on, before the
# catalog is built (the first magic builds it). tests/catalog/test_frameworks.py checks it against the entries.
READER_MODULES = frozenset((*GPU_MODULES, "npu_bridge", "torch._dynamo.config", "torch._inductor.config"))
