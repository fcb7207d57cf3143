"""A run's ir_metadata block kept by the workspace: in the Arrow cache of its parse, and from its stored bytes."""

from __future__ import annotations

import pytest

from metrics.io import read_run
from tests.metrics.io.metadata_cases import FULL, RANKING, annotated_run

pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")


def test_workspace_cache_keeps_the_block(tmp_path):
    from workspace.cache import from_arrow, to_arrow

    run = read_run(annotated_run(tmp_path, FULL))
    back = from_arrow(to_arrow(run, "a" * 64), "a" * 64, "run")
    assert back.metadata == FULL and back.table.equals(run.table)
    plain = read_run(RANKING.encode(), name="bm25")
    assert from_arrow(to_arrow(plain, "b" * 64), "b" * 64, "run").metadata is None
    stale = run.table.replace_schema_metadata({b"rankscope.kind": b"run", b"rankscope.name": b"bm25",
                                               b"rankscope.source": b"c" * 64})
    import pyarrow as pa
    import pyarrow.ipc as ipc

    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, stale.schema) as writer:
        writer.write_table(stale)
    assert from_arrow(sink.getvalue().to_pybytes(), "c" * 64, "run") is None  # older cache: parsed again


def test_stored_run_keeps_its_block_from_cache_and_from_its_bytes(tmp_path):
    from workspace import open_workspace

    data = open(annotated_run(tmp_path, FULL), "rb").read()
    with open_workspace(str(tmp_path / "ws")) as ws:
        info = ws.add_collection("c", ("q.qrels", b"301 0 d1 1\n302 0 d3 1\n"), [("bm25.run", data)], author="tester")
        sha = ws.load(info.id).runs[0].sha256
        assert ws.parsed_run(sha).metadata == FULL  # from the Arrow cache written when it was added
        caches = list((tmp_path / "ws").rglob(f"{sha}*.arrow"))
        assert len(caches) == 1
        caches[0].unlink()
        assert ws.parsed_run(sha).metadata == FULL  # parsed again from the stored bytes
