"""Which notebook profiles this user has approved: kept outside the notebooks, the way Jupyter keeps its trust
signatures (nbformat's NotebookNotary).

A profile's digest is an HMAC-SHA256 of its canonical JSON under a secret key that never leaves this machine; approved
digests live in an SQLite file beside the key, in Jupyter's data directory (`jupyter --data-dir`, honouring
JUPYTER_DATA_DIR). A notebook cannot carry its own approval: copying a digest into one gives nothing, since nothing is
ever read from the notebook but the profile itself. When the store cannot be written (a read-only home), approvals
last for this kernel only, and the user is asked again next time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

MAX_APPROVALS = 10_000  # oldest forgotten first, like the notary's cull
_KEY_BYTES = 32


def default_directory() -> Path:
    """`<jupyter data dir>/mgenv_jupyter`."""
    try:
        from jupyter_core.paths import jupyter_data_dir

        base = Path(jupyter_data_dir())
    except ImportError:  # a kernel without jupyter_core: the same default place
        base = Path(os.environ.get("JUPYTER_DATA_DIR") or Path.home() / ".local" / "share" / "jupyter")
    return base / "mgenv_jupyter"


def canonical(profile: Mapping[str, str]) -> bytes:
    """The bytes a digest is taken over: one spelling per profile, whatever order or spacing the notebook used."""
    return json.dumps(dict(profile), sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class ProfileTrust:
    """Approved profile digests. `digest(profile)`, `is_approved(digest)`, `approve(digest)`."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else default_directory()
        self._memory: set[str] = set()  # approvals that could not be stored
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def digest(self, profile: Mapping[str, str]) -> str:
        return hmac.new(self._secret(), canonical(profile), hashlib.sha256).hexdigest()

    def is_approved(self, digest: str) -> bool:
        with self._lock:
            if digest in self._memory:
                return True
            try:
                with self._connect() as db:
                    found = db.execute("SELECT 1 FROM approved WHERE digest = ?", (digest,)).fetchone()
                    if found:
                        db.execute("UPDATE approved SET last_seen = ? WHERE digest = ?", (time.time(), digest))
                    return found is not None
            except (OSError, sqlite3.Error):
                log.warning("cannot read approved notebook profiles in %s", self.directory, exc_info=True)
                return False

    def approve(self, digest: str) -> bool:
        """Record the approval; False when it could only be kept for this kernel."""
        with self._lock:
            try:
                with self._connect() as db:
                    now = time.time()
                    db.execute("INSERT OR REPLACE INTO approved (digest, approved_at, last_seen) VALUES (?, ?, ?)",
                               (digest, now, now))
                    db.execute("DELETE FROM approved WHERE digest NOT IN "
                               "(SELECT digest FROM approved ORDER BY last_seen DESC LIMIT ?)", (MAX_APPROVALS,))
                return True
            except (OSError, sqlite3.Error):
                log.warning("cannot store the approval in %s; it lasts for this kernel only", self.directory,
                            exc_info=True)
                self._memory.add(digest)
                return False

    def _secret(self) -> bytes:
        if self._key is None:
            path = self.directory / "profile_secret"
            try:
                self._key = path.read_bytes()
            except OSError:
                self._key = self._new_secret(path)
        return self._key

    def _new_secret(self, path: Path) -> bytes:
        key = secrets.token_bytes(_KEY_BYTES)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as f:
                f.write(key)
        except FileExistsError:  # another kernel wrote it first: use theirs
            return path.read_bytes()
        except OSError:
            log.warning("cannot store the profile key in %s; approvals last for this kernel only", self.directory)
        return key

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits on success and is always closed."""
        self.directory.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.directory / "approved_profiles.db", timeout=5)
        try:
            with db:
                db.execute("CREATE TABLE IF NOT EXISTS approved "
                           "(digest TEXT PRIMARY KEY, approved_at REAL, last_seen REAL)")
                yield db
        finally:
            db.close()
