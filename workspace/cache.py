"""The parsed form of stored runs and qrels, kept as an Arrow IPC file beside their bytes (``<sha256>.arrow``).

Reading a stored file back should not mean parsing it again. The cache holds the Arrow table of
:class:`metrics.io.Run` / :class:`metrics.io.Qrels` with its exact types, uncompressed, plus the name, the
run tag, a run's ir_metadata block (JSON) and the digest of the bytes it was parsed from in the schema's
metadata; it is memory-mapped when
the store is a local folder, so reopening a 7-million-line run takes milliseconds and its pages are shared
by every process that reads it. Parquet was measured too (``benchmarks/workspace_reopen.py``): smaller on
disk, but decoding it takes about as long as parsing the text. A cache that does not read back as such a
file for the same digest is ignored (the bytes are parsed again and the cache rewritten).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.ipc as ipc

from metrics.errors import RankscopeError
from metrics.io import Qrels, Run, read_qrels, read_run

if TYPE_CHECKING:
    from workspace.files import BlobStore

__all__ = ["SUFFIX", "from_arrow", "parsed", "to_arrow"]

SUFFIX = ".arrow"
_KIND, _NAME, _TAG, _SOURCE = b"rankscope.kind", b"rankscope.name", b"rankscope.tag", b"rankscope.source"
_META = b"rankscope.ir_metadata"  # a run's ir_metadata block as JSON ("null" without one)


def to_arrow(parsed: Run | Qrels, source_sha256: str) -> bytes:
    """The Arrow IPC file of a parsed run or qrels read from the bytes with digest ``source_sha256``."""
    kind = b"run" if isinstance(parsed, Run) else b"qrels"
    meta = {_KIND: kind, _NAME: parsed.name.encode(), _SOURCE: source_sha256.encode(),
            _TAG: getattr(parsed, "tag", "").encode()}
    if isinstance(parsed, Run):
        meta[_META] = json.dumps(parsed.metadata).encode()
    table = parsed.table.replace_schema_metadata({**(parsed.table.schema.metadata or {}), **meta})
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def from_arrow(source: bytes | str | os.PathLike, source_sha256: str, kind: str) -> Run | Qrels | None:
    """The run (``kind="run"``) or qrels read back from :func:`to_arrow` output (bytes, or a local path
    that is memory-mapped).

    Returns ``None`` when the source is not such a file for ``source_sha256`` (damaged, truncated, or of
    another file): the caller parses the stored bytes again.
    """
    try:
        stream = pa.memory_map(os.fspath(source)) if not isinstance(source, bytes) else pa.BufferReader(source)
        table = ipc.open_file(stream).read_all()
        table.validate()
    except (pa.ArrowException, OSError, ValueError):
        return None
    meta = table.schema.metadata or {}
    if meta.get(_KIND) != kind.encode() or meta.get(_SOURCE) != source_sha256.encode():
        return None
    if kind == "run" and _META not in meta:
        return None  # a cache written before runs kept their ir_metadata: parse the bytes again
    name, tag = meta[_NAME].decode(), meta.get(_TAG, b"").decode()
    table = table.replace_schema_metadata({k: v for k, v in meta.items() if not k.startswith(b"rankscope.")} or None)
    if kind != "run":
        return Qrels(name=name, table=table)
    try:
        metadata = json.loads(meta[_META])
    except ValueError:
        return None
    return Run(name=name, table=table, tag=tag, metadata=metadata if isinstance(metadata, dict) else None)


def parsed(store: BlobStore, sha256: str, label: str, kind: str) -> Run | Qrels:
    """The stored run (``kind="run"``) or qrels with digest ``sha256``, named ``label``: read back from its
    cache, or parsed from its bytes (and the cache written again, when the store can be written)."""
    local = store.local_path(sha256, SUFFIX)
    if local is not None or store.exists(sha256, SUFFIX):
        found = from_arrow(local if local is not None else store.get(sha256, label, SUFFIX), sha256, kind)
        if found is not None:
            return found
    data = store.get(sha256, label)
    found = read_run(data, name=label) if kind == "run" else read_qrels(data, name=label)
    try:
        store.put(sha256, to_arrow(found, sha256), SUFFIX)
    except RankscopeError:  # a read-only file store still serves the parse
        pass
    return found
