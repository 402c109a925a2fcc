"""The security model, enforced by the kernel's session: who may set what (mgenv_jupyter/runtime/_policy.py)."""

from __future__ import annotations

import os

import pytest

from mgenv_jupyter.base._errors import CodeLoadingWarning, InvalidValueError

# Each of these ran code or hijacked a tool when a downloaded notebook's profile set it.
ATTACKS = {
    "LD_PRELOAD": "/tmp/evil.so",
    "PYTHONPATH": "/tmp/evil",
    "BASH_ENV": "/tmp/evil.sh",
    "SHELL": "/tmp/evil-shell",
    "GIT_EXTERNAL_DIFF": "/tmp/evil-diff",
    "PIP_INDEX_URL": "https://evil.example/simple",
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_profile_never_sets_a_code_loading_variable(fresh_session, name):
    before = dict(os.environ)
    with pytest.raises(InvalidValueError, match="notebook profile"):
        fresh_session.set({name: ATTACKS[name]}, source="profile")
    with pytest.raises(InvalidValueError, match="notebook profile"):
        fresh_session.set({name: ATTACKS[name]}, source="profile", force=True)  # force does not lift it
    assert dict(os.environ) == before


def test_a_profile_holds_catalog_variables_only_and_no_secrets(fresh_session):
    with pytest.raises(InvalidValueError, match="not a catalog variable"):
        fresh_session.set({"MY_SETTING": "1"}, source="profile")
    with pytest.raises(InvalidValueError, match="holds a secret"):
        fresh_session.set({"MGE_DEFAULT_DEVICE": "ghp_" + "a" * 36}, source="profile")
    fresh_session.set({"MGE_DEFAULT_DEVICE": "cpu0"}, source="profile")
    assert os.environ["MGE_DEFAULT_DEVICE"] == "cpu0"


@pytest.mark.parametrize("source,how", [("file", "--force"), ("sidebar", '"force": true')])
def test_files_and_sidebar_messages_need_force_for_code_loading(fresh_session, source, how):
    before = dict(os.environ)
    with pytest.raises(InvalidValueError) as err:
        fresh_session.set({"LD_PRELOAD": "/tmp/evil.so", "MGE_DEFAULT_DEVICE": "cpu0"}, source=source)
    assert how in str(err.value) and "dynamic loader" in str(err.value)
    assert dict(os.environ) == before  # the batch is refused whole
    with pytest.warns(CodeLoadingWarning):
        fresh_session.set({"LD_PRELOAD": "/tmp/wanted.so"}, source=source, force=True)
    assert os.environ["LD_PRELOAD"] == "/tmp/wanted.so"


def test_the_users_own_envset_warns_what_the_variable_can_do(ip):
    with pytest.warns(CodeLoadingWarning, match="PYTHONPATH changes where Python finds modules"):
        report = ip.run_line_magic("envset", "PYTHONPATH=/opt/mine")
    assert os.environ["PYTHONPATH"] == "/opt/mine"
    assert any("Python finds modules" in note for note in report["PYTHONPATH"].notes)


@pytest.mark.parametrize(("language", "profile_words", "warning_words"), [
    ("en", "it is never taken from a notebook profile", "Unset it with %envunset LD_PRELOAD"),
    ("zh", "它从不取自笔记本配置", "请用 %envunset LD_PRELOAD 取消"),
])
def test_refusals_and_warnings_speak_the_users_language(language, profile_words, warning_words):
    from mgenv_jupyter.base._text import set_language
    from mgenv_jupyter.runtime._policy import refusal, warning

    set_language(language)
    try:
        refused = refusal("LD_PRELOAD", None, "/tmp/evil.so", "profile", force=False)
        warned = warning("LD_PRELOAD")
        forced = refusal("LD_PRELOAD", None, "/tmp/evil.so", "file", force=False)
    finally:
        set_language(None)
    assert refused is not None and refused.endswith(profile_words)
    assert warned is not None and warning_words in warned
    assert forced is not None and "--force" in forced and "/tmp/evil.so" not in forced


# ---- issue 19: the rule by construction -----------------------------------------------------------------------------

# Each was accepted without force from a file, the sidebar and an out-of-memory report's button at the last landing.
MISSED = {"OPENSSL_CONF": "/tmp/evil.cnf", "OPENSSL_MODULES": "/tmp/mods", "CUDA_INJECTION64_PATH": "/tmp/inj.so",
          "NVTX_INJECTION64_PATH": "/tmp/nvtx.so", "MXNET_LIBRARY_PATH": "/tmp/libmxnet.so",
          "PJRT_NAMES_AND_LIBRARY_PATHS": "cuda:/tmp/pjrt.so", "OMP_TOOL_LIBRARIES": "/tmp/tool.so",
          "LUA_INIT": "@/tmp/init.lua", "SLURM_PROLOG": "/tmp/prolog.sh", "SLURM_TASK_PROLOG": "/tmp/task.sh",
          "TRITON_PTXAS_PATH": "/tmp/ptxas", "CC": "/tmp/cc", "CXX": "/tmp/cxx",
          "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}


@pytest.mark.parametrize("name", sorted(MISSED))
def test_the_missed_variables_need_force_from_a_file_and_the_sidebar_and_never_come_from_a_report(fresh_session, name,
                                                                                                  ip, tmp_path):
    from IPython.core.error import UsageError

    before = dict(os.environ)
    dotenv = tmp_path / "downloaded.env"
    dotenv.write_text(f"{name}={MISSED[name]}\nMGE_DEFAULT_DEVICE=cpu0\n")
    with pytest.raises(UsageError, match="--force"):
        ip.run_line_magic("envload", str(dotenv))
    with pytest.raises(InvalidValueError, match='"force": true'):
        fresh_session.set({name: MISSED[name]}, source="sidebar")
    with pytest.raises(InvalidValueError, match="report's button"):
        fresh_session.set({name: MISSED[name]}, source="oom_report")
    with pytest.raises(InvalidValueError, match="notebook profile"):
        fresh_session.set({name: MISSED[name]}, source="profile", force=True)
    assert dict(os.environ) == before
    with pytest.warns(CodeLoadingWarning):
        ip.run_line_magic("envload", f"--force {dotenv}")
    assert os.environ[name] == MISSED[name]


def test_torchrun_export_does_not_carry_a_code_loading_variable_without_include(ip, tmp_path):
    """The reproduction of finding 1: OPENSSL_CONF from a downloaded .env went to every worker."""
    dotenv = tmp_path / "downloaded.env"
    dotenv.write_text("OPENSSL_CONF=/tmp/evil.cnf\nMGE_DEFAULT_DEVICE=cpu0\n")
    with pytest.warns(CodeLoadingWarning):
        ip.run_line_magic("envload", f"--force {dotenv}")
    command = ip.run_line_magic("envexport", "--format torchrun")
    text = command if isinstance(command, str) else str(command)
    assert "/tmp/evil.cnf" not in text and "OPENSSL_CONF is not exported" in text
    assert "MGE_DEFAULT_DEVICE=cpu0" in text
    included = ip.run_line_magic("envexport", "--format torchrun --include OPENSSL_CONF")
    assert "OPENSSL_CONF=/tmp/evil.cnf" in (included if isinstance(included, str) else str(included))


@pytest.mark.parametrize("source", ["file", "sidebar", "profile", "oom_report"])
def test_an_xla_flag_that_names_a_program_directory_needs_force_or_is_refused(fresh_session, source):
    before = dict(os.environ)
    hostile = "--xla_force_host_platform_device_count=2 --xla_gpu_cuda_data_dir=/shared/cuda"
    with pytest.raises(InvalidValueError, match="xla_gpu_cuda_data_dir"):
        fresh_session.set({"XLA_FLAGS": hostile}, source=source)
    assert dict(os.environ) == before
    fresh_session.set({"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}, source=source)  # data: no force
    assert os.environ["XLA_FLAGS"] == "--xla_force_host_platform_device_count=2"
    for outside in ("TF_XLA_FLAGS", "LIBTPU_INIT_ARGS"):
        if source in ("file", "sidebar"):
            with pytest.raises(InvalidValueError, match="xla_dump_to"):
                fresh_session.set({outside: "--xla_dump_to=xla_dumps"}, source=source)


def test_a_name_outside_the_catalog_is_plain_data_or_needs_force(fresh_session):
    fresh_session.set({"MY_WORLD_SIZE": "8", "MY_MODE": "fast", "MY_RATIO": "0.5"}, source="file")
    for value in ("/opt/tools/run", "evil.cnf", "a b", "$(id)", "~/x"):
        with pytest.raises(InvalidValueError, match="not plainly data"):
            fresh_session.set({"MY_SETTING": value}, source="sidebar")
        fresh_session.set({"MY_SETTING": value}, source="sidebar", force=True)
    assert os.environ["MY_SETTING"] == "~/x"
