"""The dashboard on a shared workspace, headless (AppTest): links to stored collections, the collections page,
notes kept in the store (history, concurrent saves), and store errors shown as one line with the data kept."""

from __future__ import annotations

import os
import stat
from pathlib import Path

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


def test_a_note_needs_an_author(ws):
    cid = _stored(ws)
    at = _open("queries", {"collection": cid}, name=None)
    _note(at, "1", ["interesting"], "x")
    assert ws.notes(cid) == [] and any("type your name" in e.value for e in at.error)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="running as root: a read-only folder is still writable")
def test_a_read_only_workspace_shows_one_line_and_keeps_the_data(ws, tmp_path):
    _stored(ws)
    folder = Path(os.environ["RANKSCOPE_WORKSPACE"])
    at = _open("data")  # opened (and cached) while writable
    modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")]}
    try:
        for p in modes:
            p.chmod(stat.S_IMODE(modes[p]) & ~0o222)
        _upload(at, "Qrels", [("tiny.qrels", QRELS, "text/plain")])
        _upload(at, "Runs", [("c.run", RUN_C, "text/plain")])
        at.run()
    finally:
        for p, mode in modes.items():
            p.chmod(stat.S_IMODE(mode))
    messages = [e.value for e in at.error]
    assert len(messages) == 1 and messages[0].startswith("The files are loaded but not saved in the workspace")
    assert "\n" not in messages[0] and at.exception == []
    assert _loaded(at).systems == ("c",) and _loaded(at).collection is None


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
