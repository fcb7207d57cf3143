"""The loaded files, parsed and ranked once: qrels and runs (shared read-only between sessions, at most
:data:`~dashboard.data.constants.FILES_KEPT` of each), each run ranked once per content, name and
conventions, what the collection and each run cover, the lint report, and the topic and document texts.
Every other module of :mod:`dashboard.data` reaches the rankings through here. What is derived from a file is
dropped once no session holds the file (:func:`dashboard.server.memory.released`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

import metrics
from metrics import Conventions, Qrels, RankscopeError, Run
from metrics.review.collection import CollectionSummary, describe_collection
from metrics.rankings import Rankings

from dashboard.data.cache import on_collection
from dashboard.data.constants import FILES_KEPT, FILES_TTL, READ_SIDE_BY_SIDE
from dashboard.server import guard, memory
from dashboard.session.state import Loaded, Upload
from dashboard.store import parsed


# ---- files and rankings ---------------------------------------------------------------------------------
@memory.released
@st.cache_resource(max_entries=FILES_KEPT, ttl=FILES_TTL, show_spinner=False)
def _qrels(digest: str, name: str, _upload: Upload) -> Qrels:
    return parsed.parse("qrels", _upload)  # the workspace's cache, else parsed under the guard (once)


@memory.released
@st.cache_resource(max_entries=FILES_KEPT, ttl=FILES_TTL, show_spinner=False)
def _run(digest: str, name: str, _upload: Upload) -> Run:
    return parsed.parse("run", _upload)  # a stored run: its cached parse, without reading the text again


def read_qrels(upload: Upload) -> Qrels:
    """Parse (once per content) a qrels upload; raises :class:`metrics.ParseError`, or
    :class:`dashboard.server.guard.LimitError` past the worker's memory ceiling or time limit."""
    return _qrels(upload.digest, upload.name, upload)


def read_run(upload: Upload, system: str | None = None) -> Run:
    """Parse (once per content) a run upload, named ``system``; raises :class:`metrics.ParseError`, or
    :class:`dashboard.server.guard.LimitError` past the worker's memory ceiling or time limit."""
    run = _run(upload.digest, upload.name, upload)
    return run.renamed(system) if system and system != run.name else run


def read_runs(uploads: Sequence[Upload]) -> Iterator[tuple[int, Upload, RankscopeError | None]]:
    """Parse (once per content) several run uploads side by side, up to
    :data:`~dashboard.data.constants.READ_SIDE_BY_SIDE` at once (each large one in its own worker, so two 7M-line
    runs take about the time of one on two cores). Yields ``(position, upload, error or None)`` as each is done;
    the parsed runs are then in the cache :func:`read_run` reads.
    """
    context = get_script_run_ctx()

    def one(position: int, upload: Upload) -> tuple[int, Upload, RankscopeError | None]:
        if context is not None:  # a worker thread of this session's run: its caches and limits as the run's
            add_script_run_ctx(threading.current_thread(), context)
        try:
            read_run(upload)
        except RankscopeError as err:
            return position, upload, err
        return position, upload, None

    side = min(len(uploads), READ_SIDE_BY_SIDE)
    if side <= 1:
        yield from (one(i, up) for i, up in enumerate(uploads))
        return
    with ThreadPoolExecutor(side, thread_name_prefix="rankscope-read") as pool:
        for done in as_completed([pool.submit(one, i, up) for i, up in enumerate(uploads)]):
            yield done.result()


def runs(loaded: Loaded) -> list[Run]:
    return [read_run(up, name) for name, up in loaded.runs]


@memory.released
@st.cache_resource(max_entries=64, show_spinner=False)
def _ranked(qrels_digest: str, run_digest: str, system: str, conventions: Conventions, _qrels: Upload,
            _run: Upload) -> Rankings:
    return metrics.rank_runs(read_qrels(_qrels), [read_run(_run, system)], conventions)[0]


def rankings(loaded: Loaded) -> list[Rankings]:
    """Each run ranked once per content, name and conventions (shared by every page and session)."""
    from dashboard.session.user_text import md

    out = []
    for name, up in loaded.runs:
        with st.spinner(md("Ranking {}…", name), show_time=True):
            out.append(_ranked(loaded.qrels.digest, up.digest, name, loaded.conventions, loaded.qrels, up))
    return out


def _ranked_run(loaded: Loaded, name: str, up: Upload) -> Rankings:
    return _ranked(loaded.qrels.digest, up.digest, name, loaded.conventions, loaded.qrels, up)


def _of(loaded: Loaded, systems: tuple[str, ...] | None) -> list[Rankings]:
    return [r for r in rankings(loaded) if systems is None or r.system in systems]


def topics_of(loaded: Loaded) -> list[str]:
    """Topic ids evaluated for any system, in trec_eval's order."""
    return sorted(set().union(*(r.queries.tolist() for r in rankings(loaded))))


# ---- the collection ---------------------------------------------------------------------------------------
@memory.released
@st.cache_resource(max_entries=16, show_spinner=False)
def _judgments(digest: str, _qrels: Upload) -> CollectionSummary:
    return describe_collection(read_qrels(_qrels), [])


def judgments(loaded: Loaded) -> CollectionSummary:
    """Topics, judgments and grades of the qrels (no run: cheap)."""
    return _judgments(loaded.qrels.digest, loaded.qrels)


@memory.released
@st.cache_data(max_entries=64, show_spinner="Counting each run's documents…")
def _run_summary(qrels_digest: str, run_digest: str, system: str, _qrels: Upload, _run: Upload) -> pd.DataFrame:
    return describe_collection(read_qrels(_qrels), [read_run(_run, system)]).systems


def systems(loaded: Loaded) -> pd.DataFrame:
    """What each run covers (topics, documents, depths, judged share), counted once per run."""
    return pd.concat([_run_summary(loaded.qrels.digest, up.digest, name, loaded.qrels, up)
                      for name, up in loaded.runs], ignore_index=True)


def run_metadata(loaded: Loaded) -> dict[str, tuple[pd.DataFrame, str] | None]:
    """Each system's ir_metadata block (:attr:`metrics.io.Run.metadata`, kept with its parse) as a table of
    text (``key``, ``value``) and as YAML, or None for a run without one."""
    from metrics.io.metadata import metadata_rows, metadata_yaml

    described: dict[str, tuple[pd.DataFrame, str] | None] = {}
    for name, upload in loaded.runs:
        block = read_run(upload, name).metadata
        described[name] = None if block is None else (
            pd.DataFrame(metadata_rows(block), columns=["key", "value"], dtype=str), metadata_yaml(block))
    return described


def run_lines(loaded: Loaded) -> int:
    """Lines of all the loaded runs."""
    return sum(read_run(up, name).table.num_rows for name, up in loaded.runs)


@on_collection(max_entries=16, show_spinner="Checking the files…")
def lint(loaded: Loaded) -> pd.DataFrame:
    """The lint report of the loaded collection (severity, source, code, message, count, examples)."""
    return metrics.lint_frame(metrics.lint(read_qrels(loaded.qrels), runs(loaded), rankings(loaded)))


# ---- topic and document texts ---------------------------------------------------------------------------
@memory.released
@st.cache_resource(max_entries=8, show_spinner=False)
def _topics_file(digest: str, name: str, _data: bytes):
    from metrics.io.texts import read_topics

    return guard.parse(read_topics, _data, name)  # a gzip or large file in the worker, under its limits


@memory.released
@st.cache_resource(max_entries=8, show_spinner=False)
def _documents_file(digest: str, name: str, _data: bytes):
    from metrics.io.texts import read_documents

    return guard.parse(read_documents, _data, name)


def read_topics(upload: Upload):
    """Parse (once per content, under the guard) a topics upload: topic id -> query text; raises
    :class:`metrics.ParseError`, or :class:`dashboard.server.guard.LimitError` past a limit of the worker."""
    return _topics_file(upload.digest, upload.name, upload.data)


def read_documents(upload: Upload):
    """Parse (once per content, under the guard) a documents upload: docid -> title and text, with ``preview``;
    raises :class:`metrics.ParseError`, or :class:`dashboard.server.guard.LimitError` past a limit of the worker."""
    return _documents_file(upload.digest, upload.name, upload.data)


def topic_texts(loaded: Loaded):
    """The loaded query texts (topic id -> text), or None."""
    return read_topics(loaded.topics) if loaded.topics is not None else None


def document_texts(loaded: Loaded):
    """The loaded documents (docid -> title and text, with ``preview``), or None."""
    return read_documents(loaded.documents) if loaded.documents is not None else None


# ---- qrels and topics by ir_datasets id -------------------------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner=False)
def _dataset_files(ident: str):
    from metrics.io.irds import PREFIX, check_store, dataset_qrels_bytes, load_topics, relevance_default
    from metrics.io.writers import topics_bytes

    name = PREFIX + ident
    check_store(name, ("qrels", "queries"))  # every missing file named at once, before anything is read
    topics = load_topics(name)
    return (Upload.of(name, dataset_qrels_bytes(name)),
            None if topics is None else Upload.of(f"{name}.topics.tsv", topics_bytes(topics)),
            relevance_default(name))


def dataset_files(value: str):
    """An ir_datasets id's qrels and topics (None without queries) as uploads named ``irds:ID`` and
    ``irds:ID.topics.tsv``, with the dataset's :class:`metrics.io.irds.RelevanceDefault`; read once per id from
    the server's local ir_datasets store, never from the network. ``value`` is checked against the id pattern
    before anything else (never read as a path); raises :class:`metrics.RankscopeError` with one line."""
    from metrics.io.irds import dataset_id

    return _dataset_files(dataset_id(value.strip()))


@st.cache_resource(max_entries=32, show_spinner=False)
def dataset_relevance(name: str):
    """The :class:`metrics.io.irds.RelevanceDefault` of the qrels named ``irds:ID``, else None."""
    from metrics.io.irds import is_dataset, relevance_default

    if not is_dataset(name):
        return None
    try:
        return relevance_default(name)
    except metrics.RankscopeError:  # a stored collection from an id this server's ir_datasets lacks
        return None
