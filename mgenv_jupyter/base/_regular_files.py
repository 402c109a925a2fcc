"""Reading and writing regular files without ever waiting on a pipe or a device, and within a size limit.

Every path that comes from a user or a file (%envload, %envexport, a simulated-GPU scenario) goes through here:
/dev/zero, /dev/urandom, a FIFO, a directory or a huge file is refused at once with a short message that names the
file and the problem, never its content. A file that another program of this user leaves for us to trust (a Jupyter
server's runtime file with its token, a kernel's report of its memory) is read only when it is also not a link,
owned by this user and writable by nobody else (`read_private_file`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ._errors import InvalidValueError
from ._quoting import quoted

MAX_FILE_BYTES = 1024 * 1024
# O_NONBLOCK: opening a pipe would otherwise wait for a writer; O_NOCTTY: a terminal never becomes the kernel's
# controlling terminal.
_OPEN_FLAGS = os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def read_text_file(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The text of a regular file of at most `limit` bytes of UTF-8.

    Anything else raises `InvalidValueError` at once: a directory, a pipe or a device (/dev/zero, /dev/urandom; a
    pipe is opened without waiting for a writer), a larger file, bytes that are not UTF-8. Messages name the file and
    the problem, never its content.
    """
    shown = quoted(str(path))
    fd = _open_regular(path, os.O_RDONLY, "read", shown)
    try:
        data = _read_bounded(fd, limit, shown)
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidValueError(f"{shown} is not UTF-8 text (byte {exc.start:,} is not): save it as UTF-8") from None


def read_private_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file that another program of this user wrote for us to trust: a regular file (not a link, a
    pipe or a device: a FIFO is opened without waiting for a writer), owned by this user, writable by nobody else, of
    at most `limit` bytes. Anything else raises `InvalidValueError` at once, naming the file and the problem.

    Whoever else can write such a file, or put one in its place, could choose what we trust in it: which address a
    token is sent to, what memory a kernel holds."""
    shown = quoted(str(path))
    fd = _open_regular(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0), "read", shown, follow=False)
    try:
        _require_private(os.fstat(fd), shown)
        return _read_bounded(fd, limit, shown)
    finally:
        os.close(fd)


def _read_bounded(fd: int, limit: int, shown: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= limit:  # one byte past the limit tells a file at the limit from a larger one
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InvalidValueError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if size > limit:
        raise InvalidValueError(f"{shown} is larger than {_size_text(limit)}, the most that is read")
    return b"".join(chunks)


def _require_private(status: os.stat_result, shown: str) -> None:
    if hasattr(os, "geteuid") and status.st_uid != os.geteuid():
        raise InvalidValueError(f"{shown} belongs to another user (uid {status.st_uid}): it is not trusted")
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise InvalidValueError(f"{shown} can be written by other users (mode {stat.S_IMODE(status.st_mode):o}): "
                                "it is not trusted")


def _open_regular(path: Path, flags: int, verb: str, shown: str, follow: bool = True) -> int:
    """A descriptor of the regular file at `path`, opened with `flags` without ever waiting on a pipe or a device
    (`follow=False`: a symbolic link is refused too; `flags` should then hold O_NOFOLLOW)."""
    try:
        # Checked before opening, because opening some devices acts on them, and after, in case the path changed.
        try:
            _require_regular((os.stat if follow else os.lstat)(path).st_mode, shown)
        except FileNotFoundError:
            if not flags & os.O_CREAT:
                raise
        fd = os.open(path, flags | _OPEN_FLAGS, 0o666)
    except OSError as exc:
        raise InvalidValueError(f"cannot {verb} {shown}: {exc.strerror or exc}") from None
    except InvalidValueError:
        raise
    except ValueError:  # a NUL in the path
        raise InvalidValueError(f"cannot {verb} {shown}: a path cannot contain a NUL character") from None
    try:
        _require_regular(os.fstat(fd).st_mode, shown)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _require_regular(mode: int, shown: str) -> None:
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a symbolic link" if stat.S_ISLNK(mode)
                else "a pipe or a device")
        raise InvalidValueError(f"{shown} is {kind}, not a regular file: give the path of a text file")


def _size_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit:,} bytes"


def write_text_file(path: Path, text: str) -> None:
    """Write `text` as UTF-8 to a regular file (created if missing). A pipe or a device is refused at once, never
    waited on. Raises `InvalidValueError` saying what was wrong."""
    shown = quoted(str(path))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidValueError(f"cannot write {shown}: the text is not valid Unicode") from None
    fd = _open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "write", shown)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as exc:
        raise InvalidValueError(f"cannot write {shown}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
