"""Which notebook profiles the user approved (runtime/profile_trust.py): kept outside the notebook, under a key only
this machine has, and for this kernel only when the store cannot be written."""

from __future__ import annotations

import sqlite3
import stat

from mgenv_jupyter.runtime.profile_trust import ProfileTrust

HOSTILE = {"LD_PRELOAD": "/tmp/evil.so", "MGE_DEFAULT_DEVICE": "cpu0"}


def test_the_trust_store_lives_outside_the_notebook_with_a_private_key(data_dir):
    trust = ProfileTrust()
    digest = trust.digest(HOSTILE)
    assert trust.approve(digest) and trust.is_approved(digest)
    key = data_dir / "mgenv_jupyter" / "profile_secret"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    rows = sqlite3.connect(data_dir / "mgenv_jupyter" / "approved_profiles.db").execute(
        "SELECT digest FROM approved").fetchall()
    assert rows == [(digest,)]
    # The digest is keyed: a notebook cannot compute, and so cannot pre-approve, another machine's digest.
    other = ProfileTrust(data_dir / "elsewhere")
    assert other.digest(HOSTILE) != digest and not other.is_approved(digest)


def test_an_unwritable_store_keeps_the_approval_for_this_kernel_only(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    trust = ProfileTrust(blocker / "mgenv_jupyter")
    digest = trust.digest({"MGE_DEFAULT_DEVICE": "cpu0"})
    assert trust.approve(digest) is False and trust.is_approved(digest)
    assert not ProfileTrust(blocker / "mgenv_jupyter").is_approved(digest)
