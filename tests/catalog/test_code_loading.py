"""Which variables make programs load or run code (catalog/_code_loading.py): the ones a hostile notebook profile
would set are all recognised; every catalog entry decides for itself; names outside the catalog are judged by named
variables and families; flag strings flag by flag; and "plainly data" is what it says."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._code_loading import code_effect, is_code_loading, is_plain_data, loading_flags
from mgenv_jupyter.catalog._entry import EntryFactory, ReadWhen
from mgenv_jupyter.catalog._values import Switch

# Each of these ran code or hijacked a tool when a downloaded notebook's profile set it.
ATTACKS = {
    "LD_PRELOAD": "/tmp/evil.so",
    "PYTHONPATH": "/tmp/evil",
    "BASH_ENV": "/tmp/evil.sh",
    "SHELL": "/tmp/evil-shell",
    "GIT_EXTERNAL_DIFF": "/tmp/evil-diff",
    "PIP_INDEX_URL": "https://evil.example/simple",
}


@pytest.mark.parametrize("name", sorted(ATTACKS) + ["DYLD_INSERT_LIBRARIES", "PATH", "NODE_OPTIONS", "PERL5LIB",
                                                    "HTTPS_PROXY", "https_proxy", "ENV", "PYTHONSTARTUP",
                                                    "LD_LIBRARY_PATH", "BASH_FUNC_ls%%", "JAVA_TOOL_OPTIONS"])
def test_code_loading_variables_are_recognised(name):
    assert is_code_loading(name)


# Issue 19's finding 1: each of these was accepted without force from a file, the sidebar and a report's button.
MISSED_BEFORE = ("OPENSSL_CONF", "OPENSSL_MODULES", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
                 "MXNET_LIBRARY_PATH", "PJRT_NAMES_AND_LIBRARY_PATHS", "OMP_TOOL_LIBRARIES", "LUA_INIT", "SLURM_PROLOG",
                 "SLURM_TASK_PROLOG", "TRITON_PTXAS_PATH", "CC", "CXX", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
# The next ones, by family rather than by name: none of these names is written anywhere in the package.
FAMILY_MEMBERS = ("ROCPROFILER_PRELOAD", "HSA_TOOLS_INJECTION_PATH", "NEWLIB_LIBRARY_PATHS", "GST_PLUGIN_PATH",
                  "FOO_PLUGIN_DIR", "XYZ_PTXAS_PATH", "MY_COMPILER", "HIP_CLANG_PATH", "KRB5_CONFIG",
                  "LIBVA_DRIVERS_PATH", "VK_ICD_FILENAMES", "SLURM_EPILOG", "SOMETOOL_CMD", "ALLOW_PICKLE",
                  "FOO_CACHE_DIR", "MY_CONF", "TPU_LIBRARY_PATH", "X" * 300)
# Catalog entries that load code, each decided in its own entry.
CODE_LOADING_ENTRIES = {"CUDA_BIN_PATH", "MGB_JIT_WORKDIR", "debug_dir", "dump_config", "profiling_config", "work_path",
                        "op_compiler_cache_dir"}
# Catalog entries whose names fall in a family but whose entry decided they are data, and why: a key:value allocator
# setting; a switch; a file read as configuration that selects among built-in behaviours; a mode word.
DATA_DESPITE_FAMILY = {"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF",
                       "TORCHINDUCTOR_FX_GRAPH_CACHE", "aoe_config_file", "op_compiler_cache_mode",
                       "compress_weight_conf"}


@pytest.mark.parametrize("name", MISSED_BEFORE + FAMILY_MEMBERS)
def test_the_missed_variables_and_their_families_load_code(name):
    assert is_code_loading(name)
    assert code_effect(name, None, "x") is not None


def test_every_catalog_entry_decides_and_the_decisions_are_the_reviewed_ones():
    assert {entry.name for entry in catalog() if entry.code_effect is not None} == CODE_LOADING_ENTRIES
    in_a_family = {entry.name for entry in catalog() if is_code_loading(entry.name)}
    assert in_a_family - CODE_LOADING_ENTRIES == DATA_DESPITE_FAMILY


def test_an_entry_cannot_be_declared_without_deciding():
    variable = EntryFactory("probe", readers=("probe",), read_at="probe.c", when=ReadWhen.IMPORT)
    with pytest.raises(TypeError, match="loads_code"):
        variable("PROBE_LIBRARY", category=Text("c", "c"), type=Switch(), default="0", description=Text("d", "d"))
    decided = variable("PROBE_LIBRARY", category=Text("c", "c"), type=Switch(), default="0",
                       description=Text("d", "d"), loads_code=None)
    assert decided.code_effect is None


@pytest.mark.parametrize(("flags", "loading"), [
    ("--xla_gpu_cuda_data_dir=/shared/cuda", ("xla_gpu_cuda_data_dir",)),
    ("--xla_force_host_platform_device_count=4 --xla_dump_to=/tmp/xla", ("xla_dump_to",)),
    ("--xla_gpu_cuda_data_dir=cuda", ("xla_gpu_cuda_data_dir",)),  # a relative directory is a directory too
    ("--xla_gpu_per_fusion_autotune_cache_dir=x --xla_gpu_kernel_cache_file=y", (
        "xla_gpu_per_fusion_autotune_cache_dir", "xla_gpu_kernel_cache_file")),
    ("--xla_gpu_load_autotune_results_from=/x/r.txt", ("xla_gpu_load_autotune_results_from",)),
    ("--some_new_flag=~/somewhere", ("some_new_flag",)),  # a path in the value, whatever the name
    ("-tf_xla_flagfile=f", ("tf_xla_flagfile",)),
    ("--xla_force_host_platform_device_count=4 --xla_gpu_enable_command_buffer= --tf_xla_auto_jit=2", ()),
])
def test_flag_strings_are_judged_flag_by_flag(flags, loading):
    assert loading_flags(flags) == loading
    xla_flags = catalog().get("XLA_FLAGS")
    assert (code_effect("XLA_FLAGS", xla_flags, flags) is not None) == bool(loading)
    for outside in ("TF_XLA_FLAGS", "LIBTPU_INIT_ARGS"):  # not catalog variables: judged the same way
        assert (code_effect(outside, None, flags) is not None) == bool(loading)


@pytest.mark.parametrize(("value", "plain"), [
    ("1", True), ("0.5", True), ("1e-3", True), ("1.13.0", True), ("", True), ("INFO", True), ("cuda:0", True),
    ("expandable_segments:True,max_split_size_mb:128", True), ("a=b,c=d", True), ("x" * 256, True),
    ("x" * 257, False), ("/tmp/evil.so", False), ("evil.cnf", False), ("~", False), ("a b", False), ("$HOME", False),
    ("'quoted'", False), ("..", False), ("C:\\x", False), ("a;b", False),
])
def test_plainly_data_is_numbers_and_words_that_cannot_spell_a_path(value, plain):
    assert is_plain_data(value) is plain
