"""The sidebar recognises a secret's name exactly as the kernel does: the name rule and its markers are defined once
(catalog/_secrets.py) and generated into labextension/src/schema.ts; jest runs the front end's real `isSecret`
(profile.ts) over a table of names whose verdicts come from `is_secret_name` (labextension/tests/secretNames.test.ts),
and both sides must say the same for every name. A secret by value is the kernel's alone and is not in the table."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog._secrets import NAME_SEPARATOR, NAME_SUBSTRINGS, NAME_WORDS, is_secret_name

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
NAMES = (
    "OPENAI_API_KEY", "HF_TOKEN", "DB_PASSWORD", "DB_PASSWD", "AWS_SECRET_ACCESS_KEY", "GITHUB_PAT", "GH_PAT",
    "SENTRY_DSN", "BASIC_AUTH", "MYKEY", "GOOGLE_CREDENTIALS", "SSH_PRIVATE_KEY_FILE", "session_cookie",
    "GIT_AUTHOR_NAME", "PATH", "PWD", "PATCH_LEVEL", "enable_scope_fusion_passes", "BYPASS_CACHE", "COMPASS_DIR",
    "AUTHORITY", "DSNAME", "MONKEY", "keyboard_layout", "api_key", "Bearer", "x__pat__y", "_PAT", "PAT_",
    "PAT-TOKEN", "PAT.X", "", "_", "__", "straße_pass", "ünïcode_secret", "ǅ_auth", "ﬁle_key",
)


def table() -> dict[str, bool]:
    """Names and the kernel's verdict: fixed cases, every marker in and around a name, and every catalog name."""
    names = list(NAMES)
    for marker in NAME_SUBSTRINGS:
        names += [marker, marker.lower(), f"MY_{marker}S", f"X{marker.lower()}Y"]
    for word in NAME_WORDS:
        names += [word, word.lower(), f"A{NAME_SEPARATOR}{word}", f"{word}{NAME_SEPARATOR}B", f"A{word}", f"{word}X",
                  f"A{NAME_SEPARATOR}{word.capitalize()}{NAME_SEPARATOR}B", f"A-{word}"]
    names += [entry.name for entry in catalog()]
    return {name: is_secret_name(name) for name in dict.fromkeys(names)}


@pytest.mark.slow
def test_the_sidebar_and_the_kernel_call_the_same_names_secret(tmp_path):
    expected = table()
    assert any(expected.values()) and not all(expected.values())
    fixture, out = tmp_path / "names.json", tmp_path / "said.json"
    fixture.write_text(json.dumps(expected, ensure_ascii=False), encoding="utf-8")
    done = subprocess.run(["npx", "jest", "--silent", "tests/secretNames.test.ts"], cwd=LABEXTENSION,
                          env={**os.environ, "MGENV_SECRET_NAMES_FIXTURE": str(fixture),
                               "MGENV_SECRET_NAMES_OUT": str(out)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    said = json.loads(out.read_text(encoding="utf-8"))  # written only when jest ran the fixture's test
    assert said == expected
