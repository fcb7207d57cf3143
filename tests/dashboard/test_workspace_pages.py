"""The dashboard on a shared workspace, headless (AppTest): links to stored collections, the collections page,
notes kept in the store (history, concurrent saves), and store errors shown as one line with the data kept."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
import subprocess
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from streamlit.testing.v1 import AppTest  # noqa: E402

from workspace import UnknownCollection, open_workspace  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 0\n3 0 e 1\n"
RUN_A = b"1 Q0 a 1 2.0 A\n1 Q0 b 2 1.0 A\n2 Q0 c 1 3.0 A\n2 Q0 d 2 1.0 A\n3 Q0 e 1 1.0 A\n"
RUN_B = b"1 Q0 b 1 2.0 B\n1 Q0 a 2 1.0 B\n2 Q0 d 1 3.0 B\n2 Q0 c 2 1.0 B\n3 Q0 x 1 1.0 B\n"
RUN_C = b"1 Q0 a 1 5.0 C\n2 Q0 d 1 3.0 C\n2 Q0 c 2 1.0 C\n"


@pytest.fixture
def ws(tmp_path, monkeypatch):
    folder = tmp_path / "team"
    monkeypatch.setenv("RANKSCOPE_WORKSPACE", str(folder))
    store = open_workspace(str(folder))
    yield store
    store.close()


def _stored(ws) -> str:
    return ws.add_collection("tiny", qrels=("tiny.qrels", QRELS), runs=[("a.run", RUN_A), ("b.run", RUN_B)],
                             author="ana").id


def _open(page: str, query: dict | None = None, name: str | None = "bea") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if query:
        at.query_params.update(query)
    if name:
        at.session_state["rankscope_author"] = name
    at.run()
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    return at


def _errors(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def _loaded(at: AppTest):
    return at.session_state["rankscope_loaded"]


def _upload(at: AppTest, label: str, files) -> None:
    uploader = next(u for u in at.get("file_uploader") if u.proto.label == label)
    uploader.set_value(files)
    at.run()


def test_a_collection_link_opens_the_stored_collection_on_every_page(ws):
    cid = _stored(ws)
    at = _open("data", {"collection": cid})
    assert _errors(at) == []
    loaded = _loaded(at)
    assert loaded.collection == cid and loaded.systems == ("a", "b") and loaded.qrels.data == QRELS
    assert {m.label: m.value for m in at.metric}["Systems"] == "2"
    assert at.query_params["collection"] == cid
    at.switch_page("app_pages/curves.py")  # plain navigation: the id goes back into the URL
    at.run()
    assert _errors(at) == [] and at.query_params["collection"] == cid


def test_an_unknown_or_deleted_id_says_so_and_shows_nothing_else(ws):
    at = _open("overview", {"collection": "A" * 16})
    assert len(at.error) == 1 and "unknown collection id 'AAAAAAAAAAAAAAAA'" in at.error[0].value
    folder = os.environ["RANKSCOPE_WORKSPACE"]
    assert folder not in at.error[0].value and "workspace.db" not in at.error[0].value  # the id, not the server's path
    assert at.exception == [] and len(at.get("plotly_chart")) == 0 and len(at.dataframe) == 0
    assert any("collections" in str(link.proto.label).lower() for link in at.get("page_link"))
    cid = _stored(ws)
    ws.delete(cid, author="ana")
    at = _open("overview", {"collection": cid})
    assert len(at.error) == 1 and "deleted" in at.error[0].value and len(at.get("plotly_chart")) == 0


def test_uploads_make_a_collection_and_adding_a_run_a_new_version(ws):
    at = _open("data")
    _upload(at, "Qrels", [("tiny.qrels", QRELS, "text/plain")])
    _upload(at, "Runs", [("a.run", RUN_A, "text/plain")])
    at.run()
    first = _loaded(at).collection
    assert _errors(at) == [] and first and at.query_params["collection"] == first
    assert ws.collection(first).systems == ("a",) and ws.collection(first).version == 1
    assert ws.collection(first).created_by == "bea"
    _upload(at, "Runs", [("a.run", RUN_A, "text/plain"), ("c.run", RUN_C, "text/plain")])
    at.run()
    second = ws.collection(_loaded(at).collection)
    assert second.id != first and second.parent == first and second.version == 2 and second.systems == ("a", "c")
    assert ws.collection(first).systems == ("a",)  # collections never change


def test_rename_archive_and_delete_with_confirmation(ws):
    cid = _stored(ws)
    at = _open("collections")
    assert _errors(at) == []
    at.selectbox(key="collections_chosen").set_value(cid)
    at.run()
    at.text_input(key=f"collections_name_{cid}").input("robust <b>04</b>")
    at.button(key="collections_rename").click()
    at.run()
    assert ws.collection(cid).name == "robust <b>04</b>"
    at.button(key="collections_archive").click()
    at.run()
    assert ws.collection(cid).archived and cid not in [c.id for c in ws.collections()]
    at.toggle(key="collections_archived").set_value(True)
    at.run()
    at.selectbox(key="collections_chosen").set_value(cid)
    at.run()
    at.button(key="collections_delete").click()
    at.run()
    assert ws.collection(cid).name == "robust <b>04</b>"  # asked, not done
    assert any("Delete robust" in w.value for w in at.warning)
    at.button(key="collections_delete_yes").click()
    at.run()
    with pytest.raises(UnknownCollection):
        ws.collection(cid)


def test_changes_need_an_author(ws):
    cid = _stored(ws)
    at = _open("collections", name=None)
    at.selectbox(key="collections_chosen").set_value(cid)
    at.run()
    at.button(key="collections_archive").click()
    at.run()
    assert [e.value for e in at.error] == ["Type your name in the sidebar first."]
    assert not ws.collection(cid).archived


def _note(at: AppTest, topic: str, tags: list[str], comment: str) -> None:
    at.session_state["view"] = "One topic"
    at.session_state["topic"] = topic
    at.run()
    at.multiselect(key=next(k for k in _keys(at, "multiselect") if k.startswith(f"queries_tags_{topic}_"))
                   ).set_value(tags)
    at.text_area(key=next(k for k in _keys(at, "text_area") if k.startswith(f"queries_comment_{topic}_"))
                 ).input(comment)
    at.get("form_submit_button")[0].click()
    at.run()


def _keys(at: AppTest, kind: str) -> list[str]:
    return [w.key for w in at.get(kind) if w.key]


def test_notes_are_stored_with_author_history_and_concurrent_saves(ws):
    cid = _stored(ws)
    ana = _open("queries", {"collection": cid}, name="ana")
    _note(ana, "2", ["hard topic"], "check <script>alert(1)</script> the pool")
    assert _errors(ana) == []
    (first,) = ws.notes(cid)
    assert (first.topic, first.system, first.tag, first.author) == ("2", None, "hard topic", "ana")
    assert first.comment == "check <script>alert(1)</script> the pool" and first.base is None
    # two people edit the same revision at once: both saves are kept and both shown
    bea = _open("queries", {"collection": cid, "view": "One topic", "topic": "2"}, name="bea")
    cat = _open("queries", {"collection": cid, "view": "One topic", "topic": "2"}, name="cat")
    _note(bea, "2", ["hard topic", "ties matter"], "bea's view")
    _note(cat, "2", ["judgments doubtful"], "cat's view")
    current = ws.notes(cid)
    assert sorted(n.author for n in current) == ["bea", "cat"] and {n.base for n in current} == {first.revision}
    ana.run()  # the next rerun reads the store again: both versions are shown, as text
    assert any("2 versions of this note" in w.value for w in ana.warning)
    shown = "\n".join(t.value for t in ana.text)
    assert "bea's view" in shown and "cat's view" in shown
    table = ana.dataframe[-1].value
    assert sorted(table["author"]) == ["bea", "cat"]
    history = [d.value for d in ana.dataframe if "revision" in d.value.columns and len(d.value) == 3]
    assert history and history[0]["revision"].tolist() == sorted(n.revision for n in ws.note_history(cid, "2", None))
    form = ana.get("form_submit_button")[0]
    assert form.proto.label == "Merge the 2 versions of the note on topic 2"
    tags = ana.multiselect(key=next(k for k in _keys(ana, "multiselect") if k.startswith("queries_tags_2_")))
    comment = ana.text_area(key=next(k for k in _keys(ana, "text_area") if k.startswith("queries_comment_2_")))
    assert tags.value == ["hard topic", "ties matter", "judgments doubtful"] or tags.value == [
        "judgments doubtful", "hard topic", "ties matter"]  # the merge form starts from both versions
    assert "bea's view" in comment.value and "cat's view" in comment.value
    comment.input("both views, merged")
    form.click()
    ana.run()
    (merged,) = ws.notes(cid)  # one save resolved both
    assert merged.comment == "both views, merged" and merged.author == "ana"
    assert merged.bases == tuple(sorted(n.revision for n in current))
    assert not any("versions of this note" in w.value for w in ana.warning)


def test_a_note_needs_an_author(ws):
    cid = _stored(ws)
    at = _open("queries", {"collection": cid}, name=None)
    _note(at, "1", ["interesting"], "x")
    assert ws.notes(cid) == [] and any("type your name" in e.value for e in at.error)


@contextlib.contextmanager
def _read_only(folder: Path):
    """``folder`` read-only for this process: a read-only bind mount of it over itself when running as root
    (root writes through file modes), else its files' and folders' write bits removed; undone on the way out."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        for argv in (["mount", "--bind", str(folder), str(folder)], ["mount", "-o", "remount,ro,bind", str(folder)]):
            done = subprocess.run(argv, capture_output=True, text=True)
            if done.returncode != 0:
                subprocess.run(["umount", str(folder)], capture_output=True)
                pytest.fail(f"running as root, a read-only bind mount is needed: {' '.join(argv)}: "
                            f"{done.stderr.strip()[:200]}", pytrace=False)
        try:
            yield
        finally:
            if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")]}
    try:
        for p, mode in modes.items():
            p.chmod(stat.S_IMODE(mode) & ~0o222)
        yield
    finally:
        for p, mode in modes.items():
            p.chmod(stat.S_IMODE(mode))


def test_a_read_only_workspace_shows_one_line_and_keeps_the_data(ws, tmp_path):
    _stored(ws)
    folder = Path(os.environ["RANKSCOPE_WORKSPACE"])
    at = _open("data")  # opened (and cached) while writable
    with _read_only(folder):
        with pytest.raises(OSError):
            (folder / "probe").write_bytes(b"x")  # really read-only, whoever runs the test
        _upload(at, "Qrels", [("tiny.qrels", QRELS, "text/plain")])
        _upload(at, "Runs", [("c.run", RUN_C, "text/plain")])
        at.run()
    messages = [e.value for e in at.error]
    assert len(messages) == 1 and messages[0].startswith("The files are loaded but not saved in the workspace")
    assert "read-only" in messages[0] or "not writable" in messages[0]
    assert "\n" not in messages[0] and at.exception == []
    assert _loaded(at).systems == ("c",) and _loaded(at).collection is None
    assert len(ws.collections()) == 1  # nothing half-saved


def test_a_store_that_fails_on_write_shows_one_line_and_keeps_the_data(ws, monkeypatch):
    """The same path for any store failure (full disk, lock held too long), raised by the store itself."""
    from workspace import StoreUnavailable, Workspace

    def full(self, *args, **kwargs):
        raise StoreUnavailable("workspace.db: database or disk is full")

    _stored(ws)  # not empty: nothing to seed
    monkeypatch.setattr(Workspace, "add_collection", full)
    at = _open("data")
    _upload(at, "Qrels", [("tiny.qrels", QRELS, "text/plain")])
    _upload(at, "Runs", [("a.run", RUN_A, "text/plain")])
    at.run()
    assert [e.value for e in at.error] == ["The files are loaded but not saved in the workspace: "
                                          "workspace.db: database or disk is full"]
    assert _loaded(at).systems == ("a",) and {m.label: m.value for m in at.metric}["Systems"] == "1"


def _random_stored(ws, seed: int) -> str:
    """A stored collection of seeded random runs with ties, some topics unanswered by some runs."""
    from tests.random_collections import random_collection

    first = random_collection(seed)
    runs = [(f"r{i}.run", random_collection(seed if i == 0 else seed * 10 + i).run_text.encode()) for i in range(3)]
    conventions = {"relevance_level": 1 + seed % 2}
    return ws.add_collection(f"random {seed}", qrels=("q.txt", first.qrels_text.encode()), runs=runs,
                             conventions=conventions, author="ana").id


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_reopened_collection_reads_its_tables_from_the_store_identical_to_computing(ws, monkeypatch, seed):
    import streamlit as st

    import metrics
    from dashboard import data, stored
    from dashboard.data import files
    from metrics.stats.ties import tie_ranges

    cid = _random_stored(ws, seed)
    loaded = stored.loaded_of(ws.load(cid))
    measures = tuple(data.DEFAULT_MEASURES)
    qrels = metrics.read_qrels(loaded.qrels.data)
    runs = {name: metrics.read_run(up.data, name=name) for name, up in loaded.runs}
    computed = metrics.evaluate(qrels, runs, list(measures), conventions=loaded.conventions)
    ties = tie_ranges(qrels, runs, list(measures), conventions=loaded.conventions, inexact="nan")
    paired = metrics.review.report.paired_conventions(loaded.conventions, metrics.rank_runs(qrels, list(runs.values()),
                                                                                     loaded.conventions))

    def check() -> None:
        pd.testing.assert_frame_equal(data.per_query(loaded, measures), computed, check_exact=True)
        pd.testing.assert_frame_equal(data.tie_ranges(loaded, measures), ties, check_exact=True)
        assert data.tested_on_every_topic(loaded).conventions == paired

    ranked = files._ranked  # patched where it is defined: rankings() and the tables look it up there

    def restart(refused: bool) -> None:
        st.cache_data.clear()
        st.cache_resource.clear()  # a restarted server: nothing in Streamlit's caches
        monkeypatch.setattr(files, "_ranked", refuse if refused else ranked)

    def refuse(*args, **kwargs):
        raise AssertionError("ranked again")

    check()  # the first open computes the tables and keeps them in the store
    kept = sorted((Path(os.environ["RANKSCOPE_WORKSPACE"]) / "files").rglob("*.frame"))
    assert len(kept) == 3 * len(loaded.runs)  # per run: values, tie ranges, topics
    restart(refused=True)
    check()  # read back from the store, nothing ranked
    renamed = dataclasses.replace(loaded, runs=tuple((f"x{name}", up) for name, up in loaded.runs))
    got = data.per_query(renamed, measures)  # the same files under other names: the same tables, renamed
    pd.testing.assert_frame_equal(got, computed.assign(system="x" + computed["system"]), check_exact=True)
    for path in kept:  # damaged tables are computed again, and kept again
        path.write_bytes(path.read_bytes()[:-7])
    restart(refused=False)
    check()
    restart(refused=True)
    check()
    restart(refused=False)
    at = _open("overview", {"collection": cid})  # the overview's other tables (its tests' topics...) kept too
    assert _errors(at) == [] and len(at.get("plotly_chart")) == 1
    restart(refused=True)
    at = _open("overview", {"collection": cid})
    assert _errors(at) == [] and len(at.get("plotly_chart")) == 1


def test_names_and_texts_changed_in_the_session_are_saved_as_new_versions_conventions_stay_in_it(ws):
    cid = _stored(ws)
    at = _open("data", {"collection": cid})
    assert _errors(at) == [] and _loaded(at).conventions.relevance_level == 1
    at.number_input(key="data_level").set_value(2)
    at.run()
    at.run()
    assert _errors(at) == [] and _loaded(at).collection == cid  # conventions are the session's choice
    assert _loaded(at).conventions.relevance_level == 2 and len(ws.collections()) == 1
    at.text_input(key="data_name_0_a").input("bm25 <i>")
    at.run()
    at.run()
    second = ws.load(_loaded(at).collection)
    assert _errors(at) == [] and second.info.parent == cid and second.info.version == 2
    assert second.info.systems == ("bm25 <i>", "b") and at.query_params["collection"] == second.info.id
    assert [r.sha256 for r in second.runs] == [r.sha256 for r in ws.load(cid).runs]
    assert second.conventions == ws.load(cid).conventions and _loaded(at).conventions.relevance_level == 2
    _upload(at, "Topics (optional)", [("topics.tsv", b"1\tfirst topic\n2\tsecond\n", "text/plain")])
    at.run()
    third = ws.load(_loaded(at).collection)
    assert _errors(at) == [] and third.info.parent == second.info.id
    assert third.topics.read() == b"1\tfirst topic\n2\tsecond\n" and third.info.systems == second.info.systems
    at.run()
    assert _loaded(at).collection == third.info.id  # nothing changed: no new version
    other = _open("overview", {"collection": second.info.id})  # a link opens the version's own conventions
    assert _errors(other) == [] and _loaded(other).conventions.relevance_level == 1
    assert _loaded(other).systems == ("bm25 <i>", "b") and _loaded(other).topics is None
    assert len(ws.collections()) == 3


def test_uploads_are_parsed_once_and_the_store_is_handed_the_parse(ws, monkeypatch):
    import collections

    import streamlit as st

    import workspace.store
    from dashboard import guard

    st.cache_resource.clear()
    st.cache_data.clear()
    parses = collections.Counter()
    real = guard.parse

    def counted(reader, data, name):
        parses[name] += 1
        return real(reader, data, name)

    def refuse(*args, **kwargs):
        raise AssertionError("parsed by the store")

    at = _open("data")  # the empty workspace seeded (the store parses the demo's files)
    monkeypatch.setattr(guard, "parse", counted)
    monkeypatch.setattr(workspace.store, "read_run", refuse)
    monkeypatch.setattr(workspace.store, "read_qrels", refuse)
    _upload(at, "Qrels", [("once.qrels", QRELS + b"4 0 f 1\n", "text/plain")])
    _upload(at, "Runs", [("once_a.run", RUN_A + b"4 Q0 f 1 1.0 A\n", "text/plain")])
    at.run()
    first = _loaded(at).collection
    assert _errors(at) == [] and first and ws.collection(first).systems == ("once_a",)
    _upload(at, "Runs", [("once_a.run", RUN_A + b"4 Q0 f 1 1.0 A\n", "text/plain"),
                         ("once_b.run", RUN_B + b"4 Q0 f 1 1.0 B\n", "text/plain")])
    at.run()
    second = ws.collection(_loaded(at).collection)
    assert _errors(at) == [] and second.parent == first and second.systems == ("once_a", "once_b")
    assert parses == {"once.qrels": 1, "once_a.run": 1, "once_b.run": 1}
    stored_run = ws.load(second.id).runs[1]
    assert ws.parsed_run(stored_run.sha256).table.num_rows == 6  # the cache written from the dashboard's parse
