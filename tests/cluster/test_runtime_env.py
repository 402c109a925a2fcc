"""The runtime_env built from the session: Ray's dict shape, the normalised values, what is left out with a warning
naming it (never its value), secrets only when named, and a runtime_env of the caller's kept."""

from __future__ import annotations

import warnings

import pytest

from mgenv_jupyter.cluster import NotCarriedWarning, runtime_env
from mgenv_jupyter.runtime import EnvSession


def session_with(values: dict[str, str]) -> EnvSession:
    session = EnvSession(environ={"TERM": "xterm"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session.set(values, force=True)
    return session


def test_runtime_env_carries_the_sessions_normalised_values():
    session = session_with({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB", "FLAGS_eager_delete_tensor_gb": "0"})
    session.environ["CLICOLOR"] = "1"  # not through the session: not carried
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = runtime_env(session)
    assert env == {"env_vars": {"MEGENGINE_DTR_EVICTION_THRESHOLD": "5368709120",
                                "FLAGS_eager_delete_tensor_gb": "0"}}


def test_secrets_are_carried_only_when_named_and_never_shown_in_the_warning():
    session = session_with({"HF_TOKEN": "hf_" + "a" * 30, "PLAIN": "1"})
    with pytest.warns(NotCarriedWarning, match=r"HF_TOKEN \(it is a secret: it is carried only when asked for by name"
                      ) as caught:
        assert runtime_env(session) == {"env_vars": {"PLAIN": "1"}}
    assert all("hf_" not in str(w.message) for w in caught)
    assert runtime_env(session, include=["HF_TOKEN"])["env_vars"]["HF_TOKEN"] == "hf_" + "a" * 30


def test_values_ray_would_expand_and_code_loading_variables_are_left_out():
    session = session_with({"A": "$HOME/x", "B": "${X}", "C": "$(HOME) $$", "D": "$1", "LD_PRELOAD": "/x.so"})
    with pytest.warns(NotCarriedWarning) as caught:
        env = runtime_env(session)
    assert env == {"env_vars": {"C": "$(HOME) $$"}}  # $1 is the worker's variable 1 where one is set (real Ray 2.60)
    message = str(caught[0].message)
    assert "A (its value holds '$' before a name" in message and "LD_PRELOAD (it makes the dynamic loader" in message
    assert "/x.so" not in message and "$HOME/x" not in message


def test_base_runtime_env_is_kept_and_the_sessions_variables_win():
    session = session_with({"FLAGS_eager_delete_tensor_gb": "0"})
    base = {"pip": ["numpy"], "env_vars": {"FLAGS_eager_delete_tensor_gb": "1", "OTHER": "x"}}
    assert runtime_env(session, base=base) == {"pip": ["numpy"], "env_vars": {"FLAGS_eager_delete_tensor_gb": "0",
                                                                              "OTHER": "x"}}
    assert base["env_vars"]["FLAGS_eager_delete_tensor_gb"] == "1"  # the caller's dict is not changed


def test_the_kernels_session_is_the_default(fresh_session: EnvSession):
    fresh_session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "1GB"})
    assert runtime_env()["env_vars"]["MEGENGINE_DTR_EVICTION_THRESHOLD"] == str(1 << 30)
