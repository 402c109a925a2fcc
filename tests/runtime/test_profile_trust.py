"""Which notebook profiles the user approved (runtime/_profile_trust.py): kept outside the notebook, under a key only
this machine has, and for this kernel only when the store cannot be written."""

from __future__ import annotations

import hashlib
import hmac
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap

import pytest

from mgenv_jupyter.runtime._profile_trust import ProfileTrust, canonical

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


# ---- the store checks what it trusts (issue 19) ---------------------------------------------------------------------

def _in_a_child(directory, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
    """A first review in a fresh process, with its memory capped at 1 GiB: what a kernel would do with this store."""
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from pathlib import Path
        from mgenv_jupyter.runtime._profile_trust import ProfileTrust
        trust = ProfileTrust(Path({str(directory)!r}))
        digest = trust.digest({{"MGE_DEFAULT_DEVICE": "cpu0"}})
        print("approved" if trust.is_approved(digest) else "asked", "|", trust.problem)
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout)


def test_a_pipe_or_a_device_as_the_key_neither_hangs_nor_exhausts_memory(tmp_path):
    fifo_store = tmp_path / "fifo"
    fifo_store.mkdir(mode=0o700)
    os.mkfifo(fifo_store / "profile_secret", 0o600)
    zero_store = tmp_path / "zero"
    zero_store.mkdir(mode=0o700)
    (zero_store / "profile_secret").symlink_to("/dev/zero")
    for store in (fifo_store, zero_store):
        try:
            child = _in_a_child(store, timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the first review hung on {store.name}")
        assert child.returncode == 0, child.stderr[-2000:]
        assert child.stdout.startswith("asked") and "not a regular file" in child.stdout, child.stdout


def test_an_empty_key_is_made_anew_and_a_wrong_size_is_refused(tmp_path):
    store = tmp_path / "store"
    store.mkdir(mode=0o700)
    key = store / "profile_secret"
    key.write_bytes(b"")
    key.chmod(0o600)
    trust = ProfileTrust(store)
    digest = trust.digest({"MGE_DEFAULT_DEVICE": "cpu0"})
    assert len(key.read_bytes()) == 32 and trust.problem is None
    assert digest != hmac.new(b"", canonical({"MGE_DEFAULT_DEVICE": "cpu0"}), hashlib.sha256).hexdigest()
    assert trust.approve(digest) and ProfileTrust(store).is_approved(digest)
    key.write_bytes(b"k" * 64)
    again = ProfileTrust(store)
    assert not again.is_approved(again.digest({"MGE_DEFAULT_DEVICE": "cpu0"}))
    assert again.problem is not None and "64 bytes, not the 32 of a key" in again.problem


def test_files_are_private_in_a_private_directory(data_dir):
    trust = ProfileTrust()
    assert trust.approve(trust.digest({"MGE_DEFAULT_DEVICE": "cpu0"}))
    store = data_dir / "mgenv_jupyter"
    assert stat.S_IMODE(store.stat().st_mode) == 0o700
    assert stat.S_IMODE((store / "profile_secret").stat().st_mode) == 0o600
    assert stat.S_IMODE((store / "approved_profiles.db").stat().st_mode) == 0o600


def test_approvals_in_a_directory_others_can_write_are_not_honoured(tmp_path):
    store = tmp_path / "store"
    trust = ProfileTrust(store)
    digest = trust.digest({"MGE_DEFAULT_DEVICE": "cpu0"})
    assert trust.approve(digest) and ProfileTrust(store).is_approved(digest)
    store.chmod(0o777)
    opened = ProfileTrust(store)
    assert not opened.is_approved(opened.digest({"MGE_DEFAULT_DEVICE": "cpu0"}))
    assert opened.problem is not None and "can be written by other users" in opened.problem
    assert "chmod go-w" in opened.problem
    # Behind a symbolic link to it: the same, the link's target is what is checked.
    link = tmp_path / "link"
    link.symlink_to(store)
    behind = ProfileTrust(link)
    assert not behind.is_approved(behind.digest({"MGE_DEFAULT_DEVICE": "cpu0"})) and behind.problem is not None
    # And a folder above the store that others can write (not root's sticky /tmp): the same.
    store.chmod(0o700)
    tmp_path.chmod(0o777)
    try:
        above = ProfileTrust(store)
        assert not above.is_approved(above.digest({"MGE_DEFAULT_DEVICE": "cpu0"})) and above.problem is not None
    finally:
        tmp_path.chmod(0o700)


def test_a_key_others_can_read_or_another_user_owns_is_refused_as_ssh_would(tmp_path):
    store = tmp_path / "store"
    trust = ProfileTrust(store)
    digest = trust.digest({"MGE_DEFAULT_DEVICE": "cpu0"})
    assert trust.approve(digest)
    key = store / "profile_secret"
    key.chmod(0o644)
    opened = ProfileTrust(store)
    assert not opened.is_approved(opened.digest({"MGE_DEFAULT_DEVICE": "cpu0"}))
    assert opened.problem is not None and "chmod 600" in opened.problem and "0o644" in opened.problem
    key.chmod(0o600)
    assert ProfileTrust(store).is_approved(digest)
    if os.geteuid() != 0:
        return  # only root can give a file to another user; the check itself is the same comparison
    os.chown(key, 4242, -1)
    owned = ProfileTrust(store)
    assert not owned.is_approved(owned.digest({"MGE_DEFAULT_DEVICE": "cpu0"}))
    assert owned.problem is not None and "owned by another user (uid 4242)" in owned.problem
