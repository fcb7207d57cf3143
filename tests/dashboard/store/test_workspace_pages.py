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

from tests.dashboard.conftest import errors as _errors  # noqa: E402
from tests.dashboard.conftest import new_app, open_page, unescaped, upload  # noqa: E402
from dashboard.panels import note_editor  # noqa: E402
from workspace import UnknownCollection  # noqa: E402

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 0\n3 0 e 1\n"
RUN_A = b"1 Q0 a 1 2.0 A\n1 Q0 b 2 1.0 A\n2 Q0 c 1 3.0 A\n2 Q0 d 2 1.0 A\n3 Q0 e 1 1.0 A\n"
RUN_B = b"1 Q0 b 1 2.0 B\n1 Q0 a 2 1.0 B\n2 Q0 d 1 3.0 B\n2 Q0 c 2 1.0 B\n3 Q0 x 1 1.0 B\n"
RUN_C = b"1 Q0 a 1 5.0 C\n2 Q0 d 1 3.0 C\n2 Q0 c 2 1.0 C\n"



def _stored(ws) -> str:
    return ws.add_collection("tiny", qrels=("tiny.qrels", QRELS), runs=[("a.run", RUN_A), ("b.run", RUN_B)],
                             author="ana").id


def _open(page: str, query: dict | None = None, name: str | None = "bea") -> AppTest:
    return open_page(page, query, session={"rankscope_author": name} if name else None)


def _loaded(at: AppTest):
    return at.session_state["rankscope_loaded"]


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
    assert len(at.error) == 1 and "unknown collection id 'AAAAAAAAAAAAAAAA'" in unescaped(at.error[0].value)
    folder = os.environ["RANKSCOPE_WORKSPACE"]
    assert folder not in unescaped(at.error[0].value) and "workspace.db" not in unescaped(at.error[0].value)  # the id, not the server's path
    assert at.exception == [] and len(at.get("plotly_chart")) == 0 and len(at.dataframe) == 0
    assert any("collections" in str(link.proto.label).lower() for link in at.get("page_link"))
    cid = _stored(ws)
    ws.delete(cid, author="ana")
    at = _open("overview", {"collection": cid})
    assert len(at.error) == 1 and "deleted" in unescaped(at.error[0].value) and len(at.get("plotly_chart")) == 0


def test_one_upload_sitting_of_qrels_runs_topics_and_documents_is_one_collection_with_one_version(ws):
    at = _open("data")
    upload(at, "Qrels", [("tiny.qrels", QRELS, "text/plain")])
    upload(at, "Runs", [("a.run", RUN_A, "text/plain")])
    at.run()
    first = _loaded(at).collection
    assert _errors(at) == [] and first and at.query_params["collection"] == first
    assert ws.collection(first).systems == ("a",) and ws.collection(first).version == 1
    assert ws.collection(first).created_by == "bea" and ws.collection(first).name == "tiny: a"
    upload(at, "Runs", [("a.run", RUN_A, "text/plain"), ("c.run", RUN_C, "text/plain")])
    upload(at, "Topics (optional)", [("topics.tsv", b"1\tfirst topic\n2\tsecond\n", "text/plain")])
    upload(at, "Documents (optional)", [("docs.tsv", b"a\ttitle a\nc\ttitle c\n", "text/plain")])
    at.run()
    assert _errors(at) == []
    (listed,) = [c for c in ws.collections() if c.created_by == "bea"]  # one new collection, one version
    assert listed.id == _loaded(at).collection == at.query_params["collection"] != first
    assert (listed.version, listed.parent, listed.lineage) == (1, None, first)
    assert listed.systems == ("a", "c") and listed.name == "tiny: a, c"
    held = ws.load(listed.id)
    assert held.topics.read().startswith(b"1\tfirst") and held.documents.read().startswith(b"a\ttitle")
    assert ws.load(first).info.systems == ("a",)  # the amended form still opens, unchanged


def test_another_sessions_change_is_a_new_version_and_the_same_files_open_their_collection(ws):
    cid = _stored(ws)  # made by ana, elsewhere
    at = _open("data", {"collection": cid})
    upload(at, "Runs", [("c.run", RUN_C, "text/plain")])
    at.run()
    second = ws.collection(_loaded(at).collection)
    assert second.parent == cid and second.version == 2 and second.systems == ("a", "b", "c")
    assert sorted(c.id for c in ws.collections()) == sorted([cid, second.id])  # collections never change
    again = _open("data")  # someone uploads the files of the first collection again
    upload(again, "Qrels", [("copy.qrels", QRELS, "text/plain")])
    upload(again, "Runs", [("b.run", RUN_B, "text/plain"), ("a.run", RUN_A, "text/plain")])
    assert any(cid in unescaped(t.value) and "already" in t.value for t in again.toast)  # said in the run that found it
    again.run()
    assert _errors(again) == [] and _loaded(again).collection == cid  # opened, not a new lineage
    assert _loaded(again).systems == ("a", "b") and len(ws.collections()) == 2
    upload(again, "Topics (optional)", [("topics.tsv", b"1\tfirst topic\n", "text/plain")])
    again.run()
    third = ws.collection(_loaded(again).collection)  # texts added to it: a version of it (ana's, not amended)
    assert third.parent == cid and third.version == 2 and len(ws.collections()) == 3


def test_rename_archive_and_delete_with_confirmation(ws):
    cid = _stored(ws)
    at = _open("collections", {"collection": cid})  # the session's collection is not preselected for a change
    assert _errors(at) == [] and at.selectbox(key="collections_chosen").value is None
    assert not at.button and cid in at.dataframe[0].value["id"].tolist()  # no action offered, the full id listed
    at.selectbox(key="collections_chosen").set_value(cid)
    at.run()
    assert [c.value for c in at.code] == [cid]  # the full id, to copy
    at.text_input(key=f"collections_name_{cid}").input("robust <b>04</b>")
    at.button(key="collections_rename").click()
    at.run()
    assert ws.collection(cid).name == "robust <b>04</b>"
    assert any("Renamed tiny to robust" in s.value for s in at.success)
    at.button(key="collections_undo").click()  # a rename can be undone
    at.run()
    assert ws.collection(cid).name == "tiny" and not at.success
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


def _frame_with(at: AppTest, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_a_deletion_is_undone_on_the_page_and_every_change_is_in_the_audit_log(ws):
    cid = _stored(ws)
    at = new_app()
    at.session_state["rankscope_author"] = "bea"
    at.switch_page("app_pages/collections.py")  # straight to the page: nothing else is computed
    at.run()
    assert any("Open server" in c.value for c in at.caption)  # the mode, shown to everyone
    at.selectbox(key="collections_chosen").set_value(cid)
    at.run()
    at.text_input(key=f"collections_name_{cid}").input("renamed")
    at.button(key="collections_rename").click()
    at.run()
    at.button(key="collections_delete").click()
    at.run()
    at.button(key="collections_delete_yes").click()
    at.run()
    assert cid not in [c.id for c in ws.collections(archived=True)]
    assert at.selectbox(key="collections_deleted").value == cid  # the only one that can be restored
    at.button(key="collections_restore").click()
    at.run()
    assert _errors(at) == [] and ws.collection(cid).name == "renamed"
    log = _frame_with(at, "action")
    assert list(log["action"]) == ["restore", "delete", "rename"] and set(log["who"]) == {"bea"}
    assert list(log["id"]) == [cid] * 3 and log["detail"][2] == "renamed"


def test_login_mode_shows_a_visitor_the_sign_in_and_nothing_else(ws, monkeypatch):
    cid = _stored(ws)
    monkeypatch.setenv("RANKSCOPE_ACCESS", "login")
    at = new_app()
    at.query_params["collection"] = cid
    at.run()  # no [auth] settings: the server does not fall back to the open mode
    assert _errors(at) == ["This server is in the login mode, but Streamlit's [auth] settings (redirect_uri, "
                           "cookie_secret, client_id, client_secret, server_metadata_url) are missing from "
                           ".streamlit/secrets.toml."]
    at.secrets["auth"] = {"redirect_uri": "http://127.0.0.1:9/oauth2callback", "cookie_secret": "s" * 32,
                          "client_id": "rankscope", "client_secret": "c",
                          "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
    at.run()
    assert _errors(at) == [] and [b.label for b in at.button] == ["Sign in"] and not at.text_input
    shown = " ".join([t.value for t in at.title] + [m.value for m in at.markdown])
    assert "tiny" not in shown and cid not in shown and not at.dataframe and not at.metric
    monkeypatch.setenv("RANKSCOPE_ACCESS", "closed")
    at.run()
    assert _errors(at) == ["This server cannot start: RANKSCOPE_ACCESS: expected one of open, login, found 'closed'"]


def test_changes_need_an_author(ws):
    cid = _stored(ws)
    at = _open("collections", name=None)
    at.selectbox(key="collections_chosen").set_value(cid)
    at.run()
    at.button(key="collections_archive").click()
    at.run()
    assert [unescaped(e.value) for e in at.error] == ["Type your name in the sidebar first."]
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


def _form_comment(at: AppTest, topic: str):
    return at.text_area(key=next(k for k in _keys(at, "text_area") if k.startswith(f"queries_comment_{topic}_")))


def test_a_note_opened_after_another_save_edits_that_save_and_a_real_concurrent_edit_says_who_and_when(ws):
    cid = _stored(ws)
    bea = _open("queries", {"collection": cid}, name="bea")  # on "All topics": the note editor is not open
    assert not _keys(bea, "text_area")
    ana = _open("queries", {"collection": cid}, name="ana")
    _note(ana, "1", ["hard topic"], "ana's first look")
    (first,) = ws.notes(cid)
    _note(bea, "1", ["hard topic"], "bea builds on it")  # opens topic 1 after ana's save, sees it, edits it
    assert _errors(bea) == [] and not bea.warning
    (edit,) = ws.notes(cid)  # one current version: no conflict
    assert (edit.author, edit.base, edit.comment) == ("bea", first.revision, "bea builds on it")
    # leaving the editor (another topic) and coming back after another save opens it on that save
    _note(bea, "2", [], "elsewhere")
    _note(ana, "1", ["hard topic"], "ana again")
    _note(bea, "1", [], "bea again")
    assert [n.comment for n in ws.notes(cid) if n.topic == "1"] == ["bea again"] and not bea.warning
    # a real concurrent edit: both open topic 3, ana saves, then bea (who never saw it) saves
    for who in (ana, bea):
        who.session_state["view"], who.session_state["topic"] = "One topic", "3"
        who.run()
    _note(ana, "3", ["ties matter"], "ana on 3")
    bea.run()  # a rerun while bea's editor is open: told who saved, and when, before saving
    (theirs,) = [n for n in ws.notes(cid) if n.topic == "3"]
    said = " ".join(w.value for w in bea.warning)
    assert f"Since you opened this note, ana saved a new version of it at {note_editor.when(theirs.created_at)}" in \
        said.replace("\\", "")
    assert _form_comment(bea, "3").value == ""  # the form still holds what bea opened
    _note(bea, "3", ["judgments doubtful"], "bea on 3")
    heads = [n for n in ws.notes(cid) if n.topic == "3"]
    assert sorted(n.author for n in heads) == ["ana", "bea"] and {n.base for n in heads} == {None}
    words = " ".join(w.value for w in bea.warning).replace("\\", "")
    times = sorted(heads, key=lambda n: n.revision)
    assert (f"2 versions of this note were saved without seeing each other: ana at {note_editor.when(times[0].created_at)}"
            f" and bea at {note_editor.when(times[1].created_at)}, each writing it anew") in words
    assert "at the same time" not in words


def test_conflict_words_name_the_revision_edited():
    from workspace import Note

    def note(revision, author, at, base=None, bases=()):
        return Note(revision=revision, collection="c" * 16, topic="1", system=None, tag="", comment="",
                    author=author, created_at=f"2026-03-01T10:{at}.123456+00:00", base=base, bases=bases)

    start = note(4, "cy", "00:00")
    heads = [note(6, "bo", "00:16", 4, (4,)), note(5, "al", "00:03", 4, (4,))]
    assert note_editor.conflict_words(heads, [start, *heads]).startswith(
        "2 versions of this note were saved without seeing each other: al at 2026-03-01 10:00:03 UTC and bo at "
        "2026-03-01 10:00:16 UTC, each editing revision 4 (cy, 2026-03-01 10:00:00 UTC). All are kept.")


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
        upload(at, "Qrels", [("tiny.qrels", QRELS, "text/plain")])
        upload(at, "Runs", [("c.run", RUN_C, "text/plain")])
        at.run()
    messages = [unescaped(e.value) for e in at.error]
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
    upload(at, "Qrels", [("tiny.qrels", QRELS, "text/plain")])
    upload(at, "Runs", [("a.run", RUN_A, "text/plain")])
    at.run()
    assert [unescaped(e.value) for e in at.error] == ["The files are loaded but not saved in the workspace: "
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
    from dashboard import data
    from dashboard.data import files
    from dashboard.store import opened, sync
    from metrics.stats.ties import tie_ranges

    # no purge on each reopening: one that found a damaged table moves it aside to judge it again, and a read
    # in that moment finds no table and ranks the run (nothing is lost; not this test's subject)
    monkeypatch.setattr(opened, "_purge_forever", lambda ws: None)
    cid = _random_stored(ws, seed)
    loaded = sync.loaded_of(ws.load(cid))
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
    upload(at, "Topics (optional)", [("topics.tsv", b"1\tfirst topic\n2\tsecond\n", "text/plain")])
    at.run()
    third = ws.load(_loaded(at).collection)  # the same sitting: it amends the version this session made
    assert _errors(at) == [] and (third.info.parent, third.info.version) == (cid, 2)
    assert ws.collection(second.info.id).replaced_by == third.info.id
    assert third.topics.read() == b"1\tfirst topic\n2\tsecond\n" and third.info.systems == second.info.systems
    at.run()
    assert _loaded(at).collection == third.info.id  # nothing changed: no new version
    other = _open("overview", {"collection": second.info.id})  # a link opens the version's own conventions
    assert _errors(other) == [] and _loaded(other).conventions.relevance_level == 1  # (amended, still opens)
    assert _loaded(other).systems == ("bm25 <i>", "b") and _loaded(other).topics is None
    assert sorted(c.id for c in ws.collections()) == sorted([cid, third.info.id])


def test_uploads_are_parsed_once_and_the_store_is_handed_the_parse(ws, monkeypatch):
    import collections

    import streamlit as st

    import workspace.cache
    import workspace.ingest
    from dashboard.server import guard

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
    for module in (workspace.ingest, workspace.cache):  # where the store parses what it stores, and reads back
        monkeypatch.setattr(module, "read_run", refuse)
        monkeypatch.setattr(module, "read_qrels", refuse)
    upload(at, "Qrels", [("once.qrels", QRELS + b"4 0 f 1\n", "text/plain")])
    upload(at, "Runs", [("once_a.run", RUN_A + b"4 Q0 f 1 1.0 A\n", "text/plain")])
    at.run()
    first = _loaded(at).collection
    assert _errors(at) == [] and first and ws.collection(first).systems == ("once_a",)
    upload(at, "Runs", [("once_a.run", RUN_A + b"4 Q0 f 1 1.0 A\n", "text/plain"),
                         ("once_b.run", RUN_B + b"4 Q0 f 1 1.0 B\n", "text/plain")])
    at.run()
    second = ws.collection(_loaded(at).collection)
    assert _errors(at) == [] and second.lineage == first and second.systems == ("once_a", "once_b")  # amended
    assert parses == {"once.qrels": 1, "once_a.run": 1, "once_b.run": 1}
    stored_run = ws.load(second.id).runs[1]
    assert ws.parsed_run(stored_run.sha256).table.num_rows == 6  # the cache written from the dashboard's parse
