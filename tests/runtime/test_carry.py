"""What "Restart and apply" carries over (runtime/_carry.py): the values this session set since the kernel started
that a framework reads at start, whoever set them; never a secret, never a variable that can load code. Issue 29,
point 1: a restart used to bring only the sidebar's own profile, and what a cell had set was silently lost."""

from __future__ import annotations

import os

import pytest

from mgenv_jupyter.base._errors import CodeLoadingWarning
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen
from mgenv_jupyter.catalog._values import FileSystemPath, FreeText
from mgenv_jupyter.runtime import EnvSession, ImportWatcher
from mgenv_jupyter.runtime._carry import carried, carry_code

T = Text("probe", "探针")


def test_what_the_session_set_that_a_framework_reads_at_start_is_carried_whoever_set_it(fresh_session, monkeypatch):
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    monkeypatch.delenv("PYTORCH_CUDA_ALLOC_CONF", raising=False)
    fresh_session.set({"TF_CPP_MIN_LOG_LEVEL": "2"}, source="magic")  # read at `import tensorflow`
    fresh_session.set({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, source="widget")  # at a first use
    fresh_session.set({"RUNTIME_OVERRIDE_LOG_LEVEL": "1"}, source="api")  # read on every use: a later cell is in time
    assert carried(fresh_session) == {"TF_CPP_MIN_LOG_LEVEL": "carry", "PYTORCH_CUDA_ALLOC_CONF": "carry"}


def test_a_value_back_at_the_kernels_start_or_unset_is_not_carried(fresh_session, monkeypatch):
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    fresh_session.set({"TF_CPP_MIN_LOG_LEVEL": "2"}, source="magic")
    fresh_session.unset(["TF_CPP_MIN_LOG_LEVEL"], source="magic")
    assert carry_code(fresh_session, "TF_CPP_MIN_LOG_LEVEL") is None
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # written by other code, not through the session: not the session's
    assert carry_code(fresh_session, "TF_ENABLE_ONEDNN_OPTS") is None


def entry(name: str, **kw) -> Entry:
    return Entry(name=name, framework="probe", category=T, default=None, when=ReadWhen.IMPORT, readers=("probe",),
                 read_at="probe", description=T, **kw)


@pytest.fixture
def probe_session(monkeypatch):
    for name in ("PROBE_TEXT", "PROBE_DIR"):
        monkeypatch.delenv(name, raising=False)
    known = Catalog((entry("PROBE_TEXT", type=FreeText(), loads_code=None),
                     entry("PROBE_DIR", type=FileSystemPath(),
                           loads_code=Text("names a directory the probe loads code from", "探针"))))
    return EnvSession(ImportWatcher(()), known=known)


def test_a_secret_and_a_variable_that_can_load_code_are_never_carried(probe_session, tmp_path):
    with pytest.warns(CodeLoadingWarning):
        probe_session.set({"PROBE_TEXT": "ghp_" + "a" * 36, "PROBE_DIR": str(tmp_path)}, source="magic")
    assert carried(probe_session) == {"PROBE_TEXT": "secret", "PROBE_DIR": "loads_code"}
    probe_session.set({"PROBE_TEXT": "plain"}, source="magic")
    assert carry_code(probe_session, "PROBE_TEXT") == "carry"


def test_the_sidebar_is_told_with_every_variable(fresh_session, monkeypatch):
    from mgenv_jupyter.presentation._wire import state_reply

    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    fresh_session.set({"TF_CPP_MIN_LOG_LEVEL": "2"}, source="magic")
    variables = state_reply(fresh_session, "en", "r1", 10, None)["variables"]
    assert variables["TF_CPP_MIN_LOG_LEVEL"]["carry"] == "carry"
    assert variables["MGE_DEFAULT_DEVICE"]["carry"] is None


def test_the_new_kernel_takes_carried_values_as_the_sidebars_and_refuses_code_loading_ones(fresh_session):
    from mgenv_jupyter.comms._requests import RequestHandler

    handler = RequestHandler(fresh_session)
    [ok] = handler.handle({"v": 1, "id": "1", "type": "set", "assignments": {"TF_CPP_MIN_LOG_LEVEL": "2"},
                           "source": "restart"})
    assert ok["type"] == "result" and fresh_session.history[-1].source == "restart"
    [refused] = handler.handle({"v": 1, "id": "2", "type": "set", "assignments": {"CUDA_BIN_PATH": "/tmp"},
                                "source": "restart"})
    assert refused["type"] == "error" and "restart's carry-over" in refused["message"]


def test_a_carried_value_the_new_kernel_already_holds_is_not_set_again(fresh_session, monkeypatch):
    from mgenv_jupyter.comms._requests import RequestHandler

    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    fresh_session.set({"TF_CPP_MIN_LOG_LEVEL": "2"}, source="profile")  # the profile, applied as the kernel started
    [reply] = RequestHandler(fresh_session).handle({"v": 1, "id": "1", "type": "set", "source": "restart",
                                                    "assignments": {"TF_CPP_MIN_LOG_LEVEL": "2"}})
    assert reply["type"] == "result" and reply["changes"] == []
    assert [c.source for c in fresh_session.history] == ["profile"]
