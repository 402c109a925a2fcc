"""The security model, enforced by the kernel's session: who may set what (mgenv_jupyter/runtime/policy.py)."""

from __future__ import annotations

import os

import pytest

from mgenv_jupyter.errors import CodeLoadingWarning, InvalidValueError

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
    from mgenv_jupyter.runtime.policy import refusal, warning
    from mgenv_jupyter.text import set_language

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
