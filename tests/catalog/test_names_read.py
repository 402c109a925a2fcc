"""Names a framework reads are never refused as near misses (issue 29, point 13), in a real IPython shell: the five
PyTorch 2.14 reads that `%envset` refused without --force, and MegEngine's old MEGENGINE_CONV_EXECUTION_STRATEGY, which
it still reads. A misspelling is still caught; `%envunset` of one says it is not set, never "use --force to set"."""

from __future__ import annotations

import os

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter.catalog import _names_read, catalog

READ_BY_FRAMEWORKS = ("PYTORCH_HIP_ALLOC_CONF", "TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS",
                      "TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE", "CUDA_INC_PATH", "TORCHINDUCTOR_FX_GRAPH_CACHE_DEFAULT",
                      "MEGENGINE_CONV_EXECUTION_STRATEGY", "MXNET_GPU_WORKER_NSTREAMS")
VALUES = {"PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True", "TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS": "ATEN",
          "CUDA_INC_PATH": "/usr/local/cuda/include"}


# The *_CACHE* family is warned about as a possible code directory (catalog/_code_loading.py): a warning, not a refusal.
@pytest.mark.filterwarnings("ignore::mgenv_jupyter.base._errors.CodeLoadingWarning")
@pytest.mark.parametrize("name", READ_BY_FRAMEWORKS)
def test_a_name_a_framework_reads_is_set_without_force(ip, name):
    value = VALUES.get(name, "1")
    ip.run_line_magic("envset", f"{name}={value}")
    assert os.environ[name] == value
    assert catalog().near_miss(name) is None


def test_each_is_listed_with_where_its_framework_reads_it():
    listed = {name: where for read in _names_read.NAMES_READ.values() for name, where in read.items()}
    assert listed["TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE"].startswith("torch/_inductor/config.py:")
    assert listed["PYTORCH_HIP_ALLOC_CONF"].startswith("torch/include/c10/cuda/CUDAAllocatorConfig.h:")
    assert listed["MEGENGINE_CONV_EXECUTION_STRATEGY"].startswith("megengine/functional/debug_param.py:")


def test_a_misspelling_is_still_refused_and_unsetting_one_says_so(ip):
    with pytest.raises(UsageError, match="did you mean FLAGS_allocator_strategy"):
        ip.run_line_magic("envset", "FLAGS_alocator_strategy=auto_growth")
    with pytest.raises(UsageError) as unset:
        ip.run_line_magic("envunset", "FLAGS_alocator_strategy")
    assert str(unset.value) == "FLAGS_alocator_strategy is not set; did you mean FLAGS_allocator_strategy?"
    assert "--force" not in str(unset.value)
    os.environ["FLAGS_alocator_strategy"] = "x"  # set by someone else: unsetting it removes what is there
    ip.run_line_magic("envunset", "FLAGS_alocator_strategy")
    assert "FLAGS_alocator_strategy" not in os.environ
