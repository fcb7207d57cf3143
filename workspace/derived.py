"""Tables computed from stored files, kept beside them so that a reopened collection is not computed again.

A derived table (the per-query values of one run under some conventions and measures, say) depends only on
immutable inputs: the digests of the files it was computed from and the options of the computation. Its
*key* is those inputs as canonical JSON, with the kind of table and :data:`FORMAT`; the table is stored
under the SHA-256 of the key (``<sha256[:2]>/<sha256>.frame``), so a change of any input is another file,
and no file is ever rewritten with other content.

The file is the hex SHA-256 of its body (64 bytes) followed by the body, an Arrow IPC file of the table
whose schema metadata holds the key. A file that does not match its digest, does not read back as Arrow,
or holds another key (damaged, truncated, or written by another version) is ignored: the caller computes
the table again and stores it again (written to a temporary name and renamed).

The stored files a table was computed from are the inputs' top-level values that are SHA-256 digests
(:func:`sources`): purging removes the table once one of them is no longer stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.ipc as ipc

from metrics.errors import RankscopeError
from workspace.errors import StoreUnavailable

if TYPE_CHECKING:
    from workspace.files import BlobStore

__all__ = ["FORMAT", "SUFFIX", "from_bytes", "keep", "key_of", "read", "sources", "to_bytes"]

SUFFIX = ".frame"
FORMAT = 1
"""The layout of a derived table's file; part of every key, so a new layout never reads an old file."""
_KEY = b"rankscope.derived"
_DIGEST = 64
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


def key_of(kind: str, inputs: dict[str, Any]) -> tuple[str, bytes]:
    """The digest (the file's name) and the canonical JSON key of a derived table.

    Parameters
    ----------
    kind : str
        What the table is (``"per_query"``, ``"tie_ranges"``, ...).
    inputs : dict
        Everything the table depends on, as JSON values (digests, option values); keys sorted.

    Returns
    -------
    (str, bytes)
        The hex SHA-256 of the key, and the key.
    """
    key = json.dumps({"format": FORMAT, "kind": kind, "inputs": inputs}, sort_keys=True,
                     separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()
    return hashlib.sha256(key).hexdigest(), key


def to_bytes(frame: pd.DataFrame, key: bytes) -> bytes:
    """The stored file of ``frame`` under ``key``: digest of the body, then the Arrow IPC body."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), _KEY: key})
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    body = sink.getvalue().to_pybytes()
    return hashlib.sha256(body).hexdigest().encode() + body


def from_bytes(data: bytes, key: bytes) -> pd.DataFrame | None:
    """The table stored by :func:`to_bytes` under ``key``, or ``None`` when ``data`` is not such a file."""
    head, body = data[:_DIGEST], data[_DIGEST:]
    if hashlib.sha256(body).hexdigest().encode() != head:
        return None
    try:
        table = ipc.open_file(pa.BufferReader(body)).read_all()
        table.validate(full=True)
    except (pa.ArrowException, OSError, ValueError):
        return None
    if (table.schema.metadata or {}).get(_KEY) != key:
        return None
    return table.to_pandas()


def sources(data: bytes | os.PathLike) -> set[str] | None:
    """The digests of the stored files the table in ``data`` (bytes, or a local file, memory-mapped: only its
    schema is read) was computed from: the top-level input values that are SHA-256 digests. None when it is
    not a readable derived table."""
    try:
        if isinstance(data, bytes):
            body = pa.BufferReader(data[_DIGEST:])
        else:
            with pa.memory_map(os.fspath(data)) as mapped:
                body = pa.BufferReader(mapped.read_buffer().slice(_DIGEST))
        schema = ipc.open_file(body).schema
        inputs = json.loads((schema.metadata or {})[_KEY])["inputs"]
    except (pa.ArrowException, OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(inputs, dict):
        return None
    return {v for v in inputs.values() if isinstance(v, str) and _SHA256.match(v)}


def read(store: BlobStore, kind: str, inputs: dict[str, Any]) -> pd.DataFrame | None:
    """The table kept by :func:`keep` for ``kind`` and ``inputs``, or None (none, damaged, or another key)."""
    sha, key = key_of(kind, inputs)
    try:
        local = store.local_path(sha, SUFFIX)
        if local is not None:
            data = local.read_bytes()
        elif store.exists(sha, SUFFIX):
            data = store.get(sha, kind, SUFFIX)
        else:
            return None
    except (OSError, RankscopeError):
        return None
    return from_bytes(data, key)


def keep(store: BlobStore, kind: str, inputs: dict[str, Any], frame: pd.DataFrame) -> bool:
    """Store ``frame`` for ``kind`` and ``inputs``, whole or not at all; False when the store cannot keep it."""
    sha, key = key_of(kind, inputs)
    try:
        store.put(sha, to_bytes(frame, key), SUFFIX)
    except StoreUnavailable:
        return False
    return True
