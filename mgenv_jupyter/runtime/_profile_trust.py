"""Which notebook profiles this user has approved: kept outside the notebooks, the way Jupyter keeps its trust
signatures (nbformat's NotebookNotary).

A profile's digest is an HMAC-SHA256 of its canonical JSON under a secret key that never leaves this machine; approved
digests live in an SQLite file beside the key, in Jupyter's data directory (`jupyter --data-dir`, honouring
JUPYTER_DATA_DIR). A notebook cannot carry its own approval: copying a digest into one gives nothing, since nothing is
ever read from the notebook but the profile itself. When the store cannot be written (a read-only home), approvals
last for this kernel only, and the user is asked again next time.

The store checks what it trusts, as ssh checks its keys: the directory (symbolic links resolved) and the folders above
it are owned by this user or root and writable by no one else (a root-owned sticky folder such as /tmp excepted above
the store); the key is a regular file of exactly 32 bytes, owned by this user, readable by no one else, opened
without following a link or waiting on a pipe; a missing or empty key is made anew. Files are written 0600 in a 0700
directory. When a check fails, nothing stored is honoured: approvals last for this kernel only, and `problem` says
what was wrong and how to put it right.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from ..base._text import Text

log = logging.getLogger(__name__)

MAX_APPROVALS = 10_000  # oldest forgotten first, like the notary's cull
_KEY_BYTES = 32
_KEY_FILE = "profile_secret"
_DATABASE = "approved_profiles.db"
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH

OWNED_BY_ANOTHER = Text(
    "{path} is owned by another user (uid {uid}): approved notebook profiles are not read from it. Remove it, or "
    "point JUPYTER_DATA_DIR at a directory of your own",
    "{path} 属于其他用户(uid {uid}):不会从中读取已批准的笔记本配置。请删除它,或让 JUPYTER_DATA_DIR 指向你自己的目录")
WRITABLE_BY_OTHERS = Text(
    "{path} can be written by other users (mode {mode}): approved notebook profiles are not read from it. Run "
    "chmod go-w {path}",
    "{path} 可被其他用户写入(权限 {mode}):不会从中读取已批准的笔记本配置。请运行 chmod go-w {path}")
KEY_NOT_PRIVATE = Text(
    "{path} can be read by other users (mode {mode}): the key that signs approved notebook profiles must be private. "
    "Run chmod 600 {path}",
    "{path} 可被其他用户读取(权限 {mode}):签署已批准笔记本配置的密钥必须私有。请运行 chmod 600 {path}")
NOT_A_REGULAR_FILE = Text(
    "{path} is not a regular file (a link, a pipe or a device): approved notebook profiles are not read with it. "
    "Remove it and a new key is made",
    "{path} 不是普通文件(链接、管道或设备):不会用它读取已批准的笔记本配置。删除它后会生成新密钥")
WRONG_KEY_SIZE = Text(
    "{path} holds {size} bytes, not the {expected} of a key: approved notebook profiles are not read with it. Remove "
    "it and a new key is made (earlier approvals are then asked for again)",
    "{path} 有 {size} 字节,而密钥应为 {expected} 字节:不会用它读取已批准的笔记本配置。删除它后会生成新密钥"
    "(之前的批准需要重新确认)")


class UntrustedStore(Exception):
    """The approvals store failed a check; the message says what and how to put it right."""


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
    """Approved profile digests. `digest(profile)`, `is_approved(digest)`, `approve(digest)`; `problem` says why the
    store is not used, when it is not."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else default_directory()
        self._memory: set[str] = set()  # approvals that could not be stored
        self._key: bytes | None = None
        self.problem: str | None = None  # why nothing stored is honoured (a failed check), in the user's language
        self._lock = threading.Lock()

    def digest(self, profile: Mapping[str, str]) -> str:
        with self._lock:
            key = self._secret()
        return hmac.new(key, canonical(profile), hashlib.sha256).hexdigest()

    def is_approved(self, digest: str) -> bool:
        with self._lock:
            if digest in self._memory:
                return True
            self._secret()
            if self.problem is not None:
                return False
            try:
                with self._connect() as db:
                    found = db.execute("SELECT 1 FROM approved WHERE digest = ?", (digest,)).fetchone()
                    if found:
                        db.execute("UPDATE approved SET last_seen = ? WHERE digest = ?", (time.time(), digest))
                    return found is not None
            except UntrustedStore as exc:
                self._distrust(str(exc))
                return False
            except (OSError, sqlite3.Error):
                log.warning("cannot read approved notebook profiles in %s", self.directory, exc_info=True)
                return False

    def approve(self, digest: str) -> bool:
        """Record the approval; False when it could only be kept for this kernel."""
        with self._lock:
            self._secret()
            if self.problem is None:
                try:
                    with self._connect() as db:
                        now = time.time()
                        db.execute("INSERT OR REPLACE INTO approved (digest, approved_at, last_seen) VALUES (?, ?, ?)",
                                   (digest, now, now))
                        db.execute("DELETE FROM approved WHERE digest NOT IN "
                                   "(SELECT digest FROM approved ORDER BY last_seen DESC LIMIT ?)", (MAX_APPROVALS,))
                    return True
                except UntrustedStore as exc:
                    self._distrust(str(exc))
                except (OSError, sqlite3.Error):
                    log.warning("cannot store the approval in %s; it lasts for this kernel only", self.directory,
                                exc_info=True)
            self._memory.add(digest)
            return False

    def _distrust(self, problem: str) -> None:
        """Stop using the store: a key of this kernel's own, so nothing signed before is honoured."""
        if self.problem is None:
            log.warning("%s", problem)
        self.problem = problem
        self._key = secrets.token_bytes(_KEY_BYTES)

    def _secret(self) -> bytes:
        if self._key is None:
            try:
                self._key = self._read_or_make_key()
            except UntrustedStore as exc:
                self._distrust(str(exc))
            except OSError:  # a read-only or missing home: approvals last for this kernel only
                log.warning("cannot read or store the profile key in %s; approvals last for this kernel only",
                            self.directory, exc_info=True)
                self._key = secrets.token_bytes(_KEY_BYTES)
        assert self._key is not None
        return self._key

    def _read_or_make_key(self) -> bytes:
        directory = self._checked_directory()
        path = directory / _KEY_FILE
        for _ in range(3):  # made anew when missing or empty; another kernel may be making it at the same moment
            key = _read_key(path)
            if key:
                return key
            if key == b"":
                path.unlink()
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                continue
            key = secrets.token_bytes(_KEY_BYTES)
            with os.fdopen(descriptor, "wb") as f:
                f.write(key)
            return key
        raise UntrustedStore(NOT_A_REGULAR_FILE.get().format(path=path))

    def _checked_directory(self) -> Path:
        """The store's directory, made 0700 when missing, after the ssh-like checks of it and the folders above."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        real = self.directory.resolve()
        info = real.stat()
        _check_owner(real, info)
        if info.st_mode & 0o077 and info.st_uid == os.geteuid():
            if info.st_mode & _OTHERS_WRITE:
                raise UntrustedStore(WRITABLE_BY_OTHERS.get().format(path=real, mode=_mode(info)))
            real.chmod(0o700)  # made by an earlier version with the default umask: only this user's business
        for parent in real.parents:
            _check_parent(parent)
        return real

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits on success and is always closed, to a database file checked like the key."""
        directory = self._checked_directory()
        path = directory / _DATABASE
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
        try:
            info = _own_regular_file(descriptor, path)
            if info.st_mode & 0o077:
                if info.st_mode & _OTHERS_WRITE:
                    raise UntrustedStore(WRITABLE_BY_OTHERS.get().format(path=path, mode=_mode(info)))
                os.fchmod(descriptor, 0o600)
        finally:
            os.close(descriptor)
        db = sqlite3.connect(path, timeout=5)
        try:
            with db:
                db.execute("CREATE TABLE IF NOT EXISTS approved "
                           "(digest TEXT PRIMARY KEY, approved_at REAL, last_seen REAL)")
                yield db
        finally:
            db.close()


def _mode(info: os.stat_result) -> str:
    return oct(stat.S_IMODE(info.st_mode))


def _own_regular_file(descriptor: int, path: Path) -> os.stat_result:
    """The status of the file open at `descriptor`, once it is known to be a regular file this user owns."""
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        raise UntrustedStore(NOT_A_REGULAR_FILE.get().format(path=path))
    _check_owner(path, info)
    return info


def _check_owner(path: Path, info: os.stat_result) -> None:
    if info.st_uid != os.geteuid():
        raise UntrustedStore(OWNED_BY_ANOTHER.get().format(path=path, uid=info.st_uid))


def _check_parent(path: Path) -> None:
    """A folder above the store: owned by this user or root, writable by no one else unless root's and sticky
    (/tmp), where no one else can rename or remove what is in it."""
    info = path.stat()
    if info.st_uid not in (os.geteuid(), 0):
        raise UntrustedStore(OWNED_BY_ANOTHER.get().format(path=path, uid=info.st_uid))
    if info.st_mode & _OTHERS_WRITE and not (info.st_uid == 0 and info.st_mode & stat.S_ISVTX):
        raise UntrustedStore(WRITABLE_BY_OTHERS.get().format(path=path, mode=_mode(info)))


def _read_key(path: Path) -> bytes | None:
    """The key in `path`: None when there is none, b"" when the file is empty (both made anew); raises
    `UntrustedStore` for anything but a private regular file of exactly the key's size. Never follows a link, never
    waits on a pipe, never reads more than the key's size."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: a symbolic link
        raise UntrustedStore(NOT_A_REGULAR_FILE.get().format(path=path)) from exc
    try:
        info = _own_regular_file(descriptor, path)
        if info.st_mode & 0o077:
            raise UntrustedStore(KEY_NOT_PRIVATE.get().format(path=path, mode=_mode(info)))
        if info.st_size == 0:
            return b""
        if info.st_size != _KEY_BYTES:
            raise UntrustedStore(WRONG_KEY_SIZE.get().format(path=path, size=info.st_size, expected=_KEY_BYTES))
        key = os.read(descriptor, _KEY_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(key) != _KEY_BYTES:
        raise UntrustedStore(WRONG_KEY_SIZE.get().format(path=path, size=len(key), expected=_KEY_BYTES))
    return key
