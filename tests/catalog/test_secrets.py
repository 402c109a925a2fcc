"""Secrets are recognised by name and by value, masked wherever a value is shown, and redacted from messages."""

from __future__ import annotations

import time

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._secrets import MASK, is_secret, is_secret_name, is_secret_value, redact, shown

TOKENS = {
    "url with password": "postgres://user:hunter2@db.example.com:5432/app",
    "github classic": "ghp_" + "A1b2C3d4E5" * 4,
    "github fine-grained": "github_pat_" + "11AAAAAAA0" * 3,
    "openai": "sk-proj-" + "x" * 40,
    "anthropic": "sk-ant-api03-" + "y" * 40,
    "hugging face": "hf_" + "Q" * 34,
    "aws key id": "AKIAIOSFODNN7EXAMPLE",
    "slack": "xoxb-1234567890-abcdefghij",
    "gitlab": "glpat-" + "z" * 20,
    "google": "AIza" + "S" * 35,
    "stripe": "sk_live_" + "4" * 24,
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "pem": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
}


@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_well_known_credential_shapes_are_secrets_by_value(kind):
    value = TOKENS[kind]
    assert is_secret_value(value) and is_secret("INNOCENT_LOOKING_NAME", value)
    assert shown("INNOCENT_LOOKING_NAME", value) == MASK
    assert MASK in redact(f"could not use {value} here") and value not in redact(f"could not use {value} here")


@pytest.mark.parametrize("value", [
    "https://user@host/path",  # a user name is not a password
    "http://host:8080/path@x",  # a port is not a password
    "gpu0", "5368709120", "naive_best_fit", "/home/me/.cache", "sk-short", "AKIA-not-a-key", "hf_short",
])
def test_ordinary_values_are_not_secrets(value):
    assert not is_secret_value(value)


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "HF_TOKEN", "DB_PASSWORD", "DB_PASSWD", "AWS_SECRET_ACCESS_KEY",
                                  "GITHUB_PAT", "GH_PAT", "SENTRY_DSN", "BASIC_AUTH", "MYKEY", "GOOGLE_CREDENTIALS",
                                  "SSH_PRIVATE_KEY_FILE"])
def test_secret_names(name):
    assert is_secret_name(name) and shown(name, "anything") == MASK


@pytest.mark.parametrize("name", ["GIT_AUTHOR_NAME", "PATH", "PWD", "PATCH_LEVEL", "enable_scope_fusion_passes"])
def test_innocent_names(name):
    assert not is_secret_name(name)


def test_no_catalog_variable_is_mistaken_for_a_secret():
    assert [entry.name for entry in catalog() if is_secret_name(entry.name)] == []


def test_recognising_is_linear_in_the_value_length():
    """The value patterns are searched in every message and history record: a long value must not cost quadratic
    time (a pasted 100 KB value once took seconds)."""
    def cost(text: str) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            is_secret_value(text)
            best = min(best, time.perf_counter() - start)
        return best

    for unit in ("x", "a://", "a://b:c ", "gh" + "p_"):
        small, large = cost(unit * 2_000), cost(unit * 16_000)
        assert large < 8 * small * 4, (unit, small, large)  # 8× the input, room for load: half the 64× of quadratic


@pytest.mark.parametrize(("kind", "value"), [
    ("url password with a slash", "postgres://app:pa55/w0rd@db.example:5432/app"),
    ("url password over 256 characters", "https://u:" + "p" * 300 + "@host/x"),
    ("azure connection string",
     "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zm9vYmFy+/==;EndpointSuffix=x"),
    ("azure sas signature", "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=abcDEF%2B123%3D&se=2030"),
    ("slack webhook", "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx"),
])
def test_the_shapes_issue_19_found_unrecognised_are_secrets(kind, value):
    assert is_secret_value(value), kind
    assert redact(f"using {value} now").startswith("using ") and MASK in redact(value)


@pytest.mark.parametrize("name", ["MYSQL_PWD", "DB_PWD", "AZURE_STORAGE_CONNECTION_STRING", "SLACK_WEBHOOK_URL"])
def test_the_names_issue_19_found_unrecognised_hide_their_values(name):
    assert is_secret_name(name) and shown(name, "plain-looking-value") == MASK


def test_a_value_of_jwt_like_runs_costs_linear_time():
    """Issue 19, finding 3: the JWT pattern took 4.2 s on one 100 K value of `eyJ-` runs; a profile is reviewed when
    a kernel starts, so a downloaded notebook could hold the kernel before its dialog appeared."""
    def cost(text: str) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            is_secret_value(text)
            redact(text)
            best = min(best, time.perf_counter() - start)
        return best

    for unit in ("eyJ-", "eyJaaaaaaaa.", "eyJaaaaaaaa.eyJ-"):
        small, large = cost(unit * 2_000), cost(unit * 16_000)
        assert large < 8 * small * 4, (unit, small, large)  # 8× the input: half the 64× of quadratic
