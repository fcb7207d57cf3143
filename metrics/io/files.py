"""Writing a file whole or not at all, and never over anything but a regular file.

The one rule for every file rankscope writes (a report, an export, a session file, a dataset's partitions,
the workspace's stored files): the path must be new or hold a **regular file**. A symbolic link (even one
to a regular file), a FIFO, a device node, a socket or a directory at the path is refused with
:class:`NotRegularFile` and left as it was: writing never replaces another kind of file, nor writes into
the file a link points to. The bytes go to a new file beside the path and take its name in one step, so a
write that fails, or a process killed while writing, never leaves a partial file under the name asked for.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = ["BEFORE_COMMIT", "NotRegularFile", "check_writable", "write_atomic"]

_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


BEFORE_COMMIT: list = []
"""Checks :func:`write_atomic` calls just before a new file takes its name; one that raises keeps the old
file and removes the new one. A program registers what tells it to stop (the command line: a SIGINT or
SIGTERM whose handler some C code kept from running)."""


class NotRegularFile(FileExistsError):
    """The path to write holds something other than a regular file (a link, a FIFO, a device...).

    An :class:`OSError` whose ``strerror`` says what is there, so that a caller's ``cannot write PATH:
    {err.strerror}`` reads as one line.
    """


def check_writable(path: str | os.PathLike) -> None:
    """Refuse ``path`` unless it is new or a regular file (the rule of this module).

    Raises
    ------
    NotRegularFile
        A symbolic link, FIFO, device node, socket or directory is at ``path``.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except NotADirectoryError:  # a parent is not a directory: the write itself says so
        return
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise NotRegularFile(errno.EEXIST, f"{kind} is there; rankscope writes only a new path or a regular file",
                         os.fspath(path))


def write_atomic(path: str | os.PathLike, content: bytes) -> None:
    """Write ``content`` to ``path`` whole or not at all, never over anything but a regular file.

    ``path`` must be new or a regular file (:func:`check_writable`, checked before writing and again just
    before the new file takes the name). The bytes go to a new file beside ``path`` (same directory, so
    the same file system), which then replaces ``path`` in one step (:func:`os.replace`). If writing fails
    or is interrupted (an error, a full disk, SIGINT or SIGTERM turned into an exception), the new file is
    removed and whatever was at ``path`` before is left as it was. The file's permissions are those a plain
    ``open(path, "w")`` gives.

    Raises
    ------
    NotRegularFile
        Something other than a regular file is at ``path`` (an :class:`OSError`).
    OSError
        The file cannot be written.
    """
    path = Path(path)
    check_writable(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)  # less the umask
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())  # the bytes are on disk before the name points at them
        check_writable(path)  # what may have appeared there meanwhile
        for check in BEFORE_COMMIT:
            check()
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
