"""Stored files, addressed by their SHA-256: ``<root>/<sha256[:2]>/<sha256>`` and caches beside them.

The root is a local folder or any fsspec URL. A local file is written to a temporary name, synced, and then
renamed (:func:`metrics.io.files.write_atomic`), so a process killed while writing never leaves a partial file
under its final name; through fsspec the same is done with a temporary key moved into place. Every read
of stored bytes is checked against their digest. Paths are built only from validated hex digests, never
from names a user gave.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from pathlib import Path

from metrics.io.files import write_atomic
from workspace.errors import StoreUnavailable, WorkspaceError

__all__ = ["BlobStore", "check_digest", "digest"]

_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_SUFFIX = re.compile(r"(\.[a-z0-9]{1,16})?\Z")


def digest(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def check_digest(sha256: object) -> str:
    """``sha256`` if it is 64 lower-case hex characters, else :class:`WorkspaceError`."""
    if not isinstance(sha256, str) or not _SHA256.match(sha256):
        raise WorkspaceError(f"expected a SHA-256 digest of 64 lower-case hex characters, found {str(sha256)[:80]!r}")
    return sha256


class BlobStore:
    """Content-addressed bytes under one root (a folder or an fsspec URL).

    Parameters
    ----------
    root : str or os.PathLike
        A local folder (created when missing) or an fsspec URL such as ``s3://bucket/prefix``.
    """

    def __init__(self, root: str | os.PathLike) -> None:
        root = os.fspath(root)
        self.label = root
        if "://" in root and not root.startswith("file://"):
            import fsspec

            self._fs, self._root = fsspec.core.url_to_fs(root)
            self._local = None
        else:
            self._fs = None
            self._local = Path(root.removeprefix("file://"))

    def _key(self, sha256: str, suffix: str) -> str:
        check_digest(sha256)
        if not _SUFFIX.match(suffix):
            raise WorkspaceError(f"expected a stored-file suffix like '.arrow', found {suffix[:40]!r}")
        return f"{sha256[:2]}/{sha256}{suffix}"

    def exists(self, sha256: str, suffix: str = "") -> bool:
        """Whether the file (or its cache with ``suffix``) is stored."""
        key = self._key(sha256, suffix)
        if self._local is not None:
            return (self._local / key).is_file()
        return self._fs.exists(f"{self._root}/{key}")

    def local_path(self, sha256: str, suffix: str = ""):
        """The file's path when the root is a local folder and the file is there, else ``None``."""
        if self._local is None:
            return None
        path = self._local / self._key(sha256, suffix)
        return path if path.is_file() else None

    def put(self, sha256: str, data: bytes, suffix: str = "") -> None:
        """Store ``data`` under ``sha256`` (plus ``suffix`` for a cache), whole or not at all, durably.

        Bytes already stored with the right size are not written again.

        Raises
        ------
        StoreUnavailable
            The root is read-only, full, or cannot be reached.
        """
        key = self._key(sha256, suffix)
        try:
            if self._local is not None:
                path = self._local / key
                if path.is_file() and path.stat().st_size == len(data) and suffix == "":
                    return
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, data)
                _sync_dir(path.parent)
            else:
                final = f"{self._root}/{key}"
                if suffix == "" and self._fs.exists(final) and self._fs.size(final) == len(data):
                    return
                temporary = f"{self._root}/tmp/{os.getpid()}.{os.urandom(4).hex()}.{sha256}{suffix}"
                self._fs.pipe_file(temporary, data)
                self._fs.mv(temporary, final)
        except OSError as err:
            raise _unavailable(self.label, err) from None

    def get(self, sha256: str, name: str, suffix: str = "") -> bytes:
        """The bytes stored under ``sha256``; without ``suffix`` they are checked against the digest.

        Parameters
        ----------
        sha256 : str
        name : str
            The file's name, for messages.
        suffix : str, optional
            A cache's suffix (its bytes are not the digest's).

        Raises
        ------
        WorkspaceError
            The file is missing, or its bytes do not match the digest.
        """
        key = self._key(sha256, suffix)
        try:
            if self._local is not None:
                data = (self._local / key).read_bytes()
            else:
                data = self._fs.cat_file(f"{self._root}/{key}")
        except FileNotFoundError:
            raise WorkspaceError(f"stored file {name} (sha256 {sha256[:12]}) is missing from {self.label}") from None
        except OSError as err:
            raise _unavailable(self.label, err) from None
        if suffix == "" and digest(data) != sha256:
            raise WorkspaceError(f"stored file {name} in {self.label} does not match its SHA-256 {sha256[:12]}: "
                                 f"it was changed or damaged")
        return data


def _sync_dir(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _unavailable(where: str, err: OSError) -> StoreUnavailable:
    known = {errno.EROFS: "is read-only", errno.EACCES: "is not writable (permission denied)",
             errno.EPERM: "is not writable (operation not permitted)", errno.ENOSPC: "is full (no space left)",
             errno.EDQUOT: "is over its disk quota", errno.EFBIG: "cannot hold a file this large (file size limit)"}
    what = known.get(err.errno, f"cannot be used: {err.strerror or err}")
    return StoreUnavailable(f"stored files folder {where} {what}")
