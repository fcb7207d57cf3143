"""Writing a file whole or not at all: a write that fails, or a process killed while writing, never leaves
a partial file under the name asked for.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike, content: bytes) -> None:
    """Write ``content`` to ``path`` whole or not at all.

    The bytes go to a new file beside ``path`` (same directory, so the same file system), which then
    replaces ``path`` in one step (:func:`os.replace`). If writing fails or is interrupted (an error, a
    full disk, SIGINT or SIGTERM turned into an exception), the new file is removed and whatever was at
    ``path`` before is left as it was. The file's permissions are those a plain ``open(path, "w")`` gives.

    Raises
    ------
    OSError
        The file cannot be written.
    """
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # 0o666 less the umask
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())  # the bytes are on disk before the name points at them
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
