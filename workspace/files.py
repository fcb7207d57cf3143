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
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from metrics.io.files import write_atomic
from metrics.io.redaction import redact
from workspace.errors import StoreUnavailable, WorkspaceError

__all__ = ["BlobStore", "check_digest", "digest"]

_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_SUFFIX = re.compile(r"(\.[a-z0-9]{1,16})?\Z")
_STORED = re.compile(r"([0-9a-f]{64})((?:\.[a-z0-9]{1,16})?)\Z")  # a stored file's name: digest, suffix
_TEMPORARY = re.compile(r"\..+\.[0-9]+\.[0-9a-f]{8}\.tmp\Z")  # metrics.io.files.write_atomic's, interrupted


def digest(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def check_digest(sha256: object) -> str:
    """``sha256`` if it is 64 lower-case hex characters, else :class:`WorkspaceError`."""
    if not isinstance(sha256, str) or not _SHA256.match(sha256):
        raise WorkspaceError(f"expected a SHA-256 digest of 64 lower-case hex characters, found "
                             f"{redact(str(sha256))[:80]!r}")
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
        self.label = redact(root)  # what messages show: no credential of the URL
        self._given = root  # what a library's message may repeat in part (see _unavailable)
        if "://" in root and not root.startswith("file://"):
            import fsspec

            try:
                self._fs, self._root = fsspec.core.url_to_fs(root)
            except Exception as err:  # noqa: BLE001 - any file system's own error (ftplib's, a missing driver...)
                raise _unavailable(self.label, err, self._given) from None
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
        with self._remote():
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
                with self._remote():
                    if suffix == "" and self._fs.exists(final) and self._fs.size(final) == len(data):
                        return
                    temporary = f"{self._root}/tmp/{os.getpid()}.{os.urandom(4).hex()}.{sha256}{suffix}"
                    self._fs.pipe_file(temporary, data)
                    self._fs.mv(temporary, final)
        except OSError as err:
            raise _unavailable(self.label, err, self._given) from None

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
                with self._remote(FileNotFoundError):
                    data = self._fs.cat_file(f"{self._root}/{key}")
        except FileNotFoundError:
            raise WorkspaceError(f"stored file {name} (sha256 {sha256[:12]}) is missing from {self.label}") from None
        except OSError as err:
            raise _unavailable(self.label, err, self._given) from None
        if suffix == "" and digest(data) != sha256:
            raise WorkspaceError(f"stored file {name} in {self.label} does not match its SHA-256 {sha256[:12]}: "
                                 f"it was changed or damaged")
        return data


    @contextmanager
    def _remote(self, *passed: type[BaseException]) -> Iterator[None]:
        """An fsspec file system's errors (each raises its own: ftplib's, botocore's...) made one line; the
        ``passed`` ones go through."""
        try:
            yield
        except passed:
            raise
        except Exception as err:  # noqa: BLE001 - any remote file system's error, never a traceback
            raise _unavailable(self.label, err, self._given) from None


    # -- what purging needs: every stored file, removing one, leftovers of interrupted writes -------------

    def listing(self) -> Iterator[tuple[str, str]]:
        """``(sha256, suffix)`` of every stored file and cache under the root (other files are ignored)."""
        try:
            if self._local is not None:
                folders = sorted(p for p in self._local.iterdir() if len(p.name) == 2 and p.is_dir()) \
                    if self._local.is_dir() else []
                names = ((folder.name, entry.name) for folder in folders for entry in os.scandir(folder))
            else:
                names = (tuple(key[len(self._root):].strip("/").split("/")[-2:])
                         for key in self._fs.find(self._root))
            for parts in names:
                found = _STORED.match(parts[-1]) if len(parts) == 2 else None
                if found and found.group(1)[:2] == parts[0]:
                    yield found.group(1), found.group(2)
        except FileNotFoundError:
            return
        except OSError as err:
            raise _unavailable(self.label, err, self._given) from None

    def remove(self, sha256: str, suffix: str = "",
               keep_if: Callable[[Path | bytes], bool] | None = None) -> int | None:
        """Remove one stored file (a missing one is no error); the bytes it held, None when ``keep_if`` kept it.

        With ``keep_if``, the file is first moved aside (one atomic rename), ``keep_if`` judges what was
        moved (a local path, or the bytes), and a file it wants kept is put back unless a newer one has been
        written meanwhile. A file written again between a caller's check and this removal is so never removed
        for what its earlier version held.
        """
        key = self._key(sha256, suffix)
        try:
            if self._local is not None:
                return self._remove_local(self._local / key, keep_if)
            final = f"{self._root}/{key}"
            with self._remote(FileNotFoundError):
                if keep_if is None:
                    size = self._fs.size(final)
                    self._fs.rm_file(final)
                    return size
                aside = f"{self._root}/tmp/{os.getpid()}.{os.urandom(4).hex()}.{sha256}{suffix}"
                self._fs.mv(final, aside)
                data = self._fs.cat_file(aside)
                kept = keep_if(data)
                if kept and not self._fs.exists(final):
                    self._fs.mv(aside, final)
                else:
                    self._fs.rm_file(aside)
                return None if kept else len(data)
        except FileNotFoundError:
            return 0
        except OSError as err:
            raise _unavailable(self.label, err, self._given) from None

    @staticmethod
    def _remove_local(path: Path, keep_if: Callable[[Path | bytes], bool] | None) -> int | None:
        if keep_if is None:
            size = path.stat().st_size
            path.unlink()
            return size
        aside = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")  # a leftover's name
        os.rename(path, aside)
        try:
            if keep_if(aside):
                try:
                    os.link(aside, path)  # never replaces: a table written after the move stays
                except FileExistsError:
                    pass
                return None
            return aside.stat().st_size
        finally:
            aside.unlink()

    def remove_leftovers(self, older_than: float) -> tuple[int, int]:
        """Remove the temporary files of writes interrupted more than ``older_than`` seconds ago (a killed
        process leaves its half-written file under a temporary name); ``(files, bytes)`` removed.

        Only a local folder is searched; through fsspec a write is one ``pipe_file`` and a move.
        """
        if self._local is None or not self._local.is_dir():
            return 0, 0
        files = size = 0
        cutoff = time.time() - older_than
        try:
            for folder in (p for p in self._local.iterdir() if len(p.name) == 2 and p.is_dir()):
                for entry in os.scandir(folder):
                    if _TEMPORARY.match(entry.name) and entry.stat().st_mtime < cutoff:
                        size += entry.stat().st_size
                        os.unlink(entry.path)
                        files += 1
        except FileNotFoundError:
            pass
        except OSError as err:
            raise _unavailable(self.label, err, self._given) from None
        return files, size


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


def _unavailable(where: str, err: BaseException, root: str) -> StoreUnavailable:
    """The one-line error of the stored files at ``where`` (``root`` redacted); the library's message is
    redacted knowing ``root``, which it may repeat in part."""
    known = {errno.EROFS: "is read-only", errno.EACCES: "is not writable (permission denied)",
             errno.EPERM: "is not writable (operation not permitted)", errno.ENOSPC: "is full (no space left)",
             errno.EDQUOT: "is over its disk quota", errno.EFBIG: "cannot hold a file this large (file size limit)",
             errno.ECONNREFUSED: "does not answer (connection refused)"}
    reason = getattr(err, "strerror", None) or str(err).strip().split("\n")[0] or type(err).__name__
    what = known.get(getattr(err, "errno", None), f"cannot be used: {redact(reason, root)[:300]}")
    return StoreUnavailable(f"stored files folder {where} {what}")
