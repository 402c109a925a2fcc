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
