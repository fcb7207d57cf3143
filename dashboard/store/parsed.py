"""Files parsed once per server process, and tables of a run kept in the workspace.

A file is parsed once per content (:func:`parse`): from the workspace's Arrow cache when it is stored, else by
:func:`dashboard.server.guard.parse` (inside the guard's worker for large ones); the store is handed that
parse and does not parse again. The per-run tables a page needs (:func:`run_table`) are kept in the workspace
for a stored collection, so a restarted server reads them back instead of ranking again.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from dashboard.server import guard, memory
from dashboard.session import state
from dashboard.store.opened import enabled, store
from metrics import RankscopeError

__all__ = ["parse", "parsed_qrels", "parsed_run", "run_table"]

FILES_KEPT, FILES_TTL = 32, "1h"  # parsed files kept per server process, and for how long


def parsed_run(digest: str):
    """The workspace's cached parse of the run with this SHA-256, or None (not stored, or no workspace)."""
    return _parsed("parsed_run", digest)


def parsed_qrels(digest: str):
    """The workspace's cached parse of the qrels with this SHA-256, or None."""
    return _parsed("parsed_qrels", digest)


@memory.released
@st.cache_resource(max_entries=FILES_KEPT, ttl=FILES_TTL, show_spinner=False)
def _parse(kind: str, digest: str, name: str, _upload: state.Upload):
    cached = _parsed("parsed_run" if kind == "run" else "parsed_qrels", digest)  # a stored file: its cache
    if cached is not None:
        return cached
    return guard.parse(metrics.read_run if kind == "run" else metrics.read_qrels, _upload.data, name)


def parse(kind: str, upload: state.Upload):
    """The run (``kind="run"``, named after its file) or qrels of an upload, parsed once per content in this
    server process: from the workspace's cache when it is stored, else by :func:`dashboard.server.guard.parse`.

    Raises
    ------
    metrics.ParseError, dashboard.server.guard.LimitError
    """
    return _parse(kind, upload.digest, upload.name, upload)


def _parsed(method: str, digest: str):
    if not enabled():
        return None
    try:
        return getattr(store(), method)(digest)
    except RankscopeError:  # unreadable cache or store: the caller parses the bytes itself
        return None


def run_table(kind: str, loaded: state.Loaded, system: str, upload: state.Upload, options: dict,
              compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """A table of one run (its ``system`` column first) computed by ``compute()``, or read back from the
    workspace for a stored collection.

    The workspace keeps the table beside the stored files, keyed on what it depends on: ``kind``, the
    digests of the qrels and the run, the conventions, the release and ``options`` (JSON values: the
    measures...). So a server that restarts reads it back instead of ranking and evaluating the run again;
    a table kept under another system name gets this one. Sessions whose files are not stored compute it,
    as does any session when the workspace cannot be read or written.
    """
    if not (enabled() and loaded.collection):
        return compute()
    inputs = {"qrels": loaded.qrels.digest, "run": upload.digest, "conventions": loaded.conventions.as_dict(),
              "rankscope": metrics.__version__, **options}  # another release may compute other numbers
    try:
        ws = store()
        found = ws.derived_frame(kind, inputs)
    except RankscopeError:
        return compute()
    if found is not None and "system" in found.columns:
        found["system"] = pd.array(np.full(len(found), system, dtype=object), dtype=found["system"].dtype)
        return found
    table = compute()
    try:
        ws.keep_derived_frame(kind, inputs, table)
    except RankscopeError:  # not kept: computed again next time
        pass
    return table
