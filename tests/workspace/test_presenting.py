"""Following a presenter, in the store (SQLite and PostgreSQL): a presentation per lineage whose revision moves
only when what followers see changes, one presenting session at a time (until another takes over), the
roles it needs, views checked before they are stored, and two stores (two server processes) that share it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from sqlalchemy import text  # noqa: E402

from tests.workspace.helpers import qrels_bytes, run_bytes  # noqa: E402
from workspace import Actor, Forbidden, NoAccess, WorkspaceError  # noqa: E402
from workspace.checks import new_id  # noqa: E402
from workspace.presenting import BEAT_SECONDS, GONE_SECONDS, SomeonePresents, Stage  # noqa: E402

ANA, BEA, CY = "ana@example.org", "bea@example.org", "cy@example.org"


def _collection(ws, **options):
    return ws.add_collection("meeting", qrels=("qrels.txt", qrels_bytes(3)),
                             runs=[("a.run", run_bytes(3)), ("b.run", run_bytes(4))], **options)


def test_a_presentation_moves_its_revision_only_when_the_view_changes(target):
    with target.open() as ws:
        cid = _collection(ws, author="ana").id
        stage, me = Stage(ws), new_id()
        assert stage.current(cid) is None  # never presented
        first = stage.present(cid, me, "overview", {"systems": ["a", "b"], "measure": "AP"}, author="ana")
        assert (first.page, first.params, first.active, first.revision, first.presenter) == (
            "overview", {"systems": ["a", "b"], "measure": "AP"}, True, 1, "ana")
        same = stage.present(cid, me, "overview", {"measure": "AP", "systems": ["a", "b"]}, author="ana")
        assert same.revision == 1  # the same view, written in another order: nothing written
        moved = stage.present(cid, me, "queries", {"measure": "AP", "topic": "7"}, author="ana")
        assert moved.revision == 2 and stage.current(cid) == moved
        assert stage.current(cid).by(me) and not stage.current(cid).by(new_id())
        assert stage.stop(cid, me) is True
        ended = stage.current(cid)
        assert (ended.active, ended.revision, ended.page) == (False, 3, "queries")  # followers see it end
        assert stage.stop(cid, me) is False  # nothing left to stop
        again = stage.present(cid, me, "queries", {"measure": "AP", "topic": "7"}, author="ana")
        assert (again.active, again.revision) == (True, 4)  # started again: a change followers must see


def test_one_session_presents_until_another_takes_over(target):
    with target.open() as ws:
        cid = _collection(ws, author="ana").id
        stage, ana, bea = Stage(ws), new_id(), new_id()
        stage.present(cid, ana, "overview", {}, author="ana")
        with pytest.raises(SomeonePresents, match="ana presents this collection now") as err:
            stage.present(cid, bea, "curves", {}, author="bea")
        assert "\n" not in str(err.value)
        assert stage.stop(cid, bea) is False and stage.current(cid).active  # only the presenter stops it
        taken = stage.present(cid, bea, "curves", {}, author="bea", take_over=True)
        assert (taken.presenter, taken.page, taken.revision) == ("bea", "curves", 2)
        with pytest.raises(SomeonePresents, match="bea presents"):  # ana's next change no longer goes through
            stage.present(cid, ana, "gain", {}, author="ana")
        assert stage.stop(cid, ana) is False and stage.current(cid).by(bea)


def _age_presentations(ws, seconds: float) -> None:
    """Every presentation's last write ``seconds`` ago (a presenter's page that went quiet that long)."""
    at = (datetime.now(timezone.utc) - timedelta(seconds=seconds)).isoformat()
    with ws._engine.begin() as conn:
        conn.execute(text("UPDATE presentations SET updated_at = :at"), {"at": at})


def test_a_presentation_belongs_to_the_lineage_and_one_whose_page_went_quiet_has_ended(target):
    with target.open() as ws:
        cid = _collection(ws, author="ana").id
        newer = ws.new_version(cid, remove_systems=["b"], author="ana").id
        stage, me = Stage(ws), new_id()
        stage.present(cid, me, "overview", {"collection": newer}, author="ana")
        assert stage.current(newer).params == {"collection": newer}  # seen from every version
        stage.present(newer, me, "curves", {"collection": newer}, author="ana")  # the same presentation
        assert stage.current(cid).revision == 2
        _age_presentations(ws, GONE_SECONDS + 1)
        gone = stage.current(cid)
        assert (gone.active, gone.gone, gone.revision) == (False, True, 2)  # a browser that went away
        other = stage.present(cid, new_id(), "gain", {}, author="bea")  # no take-over needed
        assert other.active and other.presenter == "bea" and not other.gone


def test_the_presenters_page_keeps_its_presentation_alive_with_a_beat_that_moves_no_revision(target):
    """A presenter who shows one page for minutes is still there: an unchanged view, written every second, is
    written again (the time alone) once the last write is BEAT_SECONDS old; followers see no change. When the
    page comes back after it was counted gone, that is a change (the followers follow again)."""
    with target.open() as ws:
        cid = _collection(ws, author="ana").id
        stage, me = Stage(ws), new_id()
        first = stage.present(cid, me, "overview", {"measure": "AP"}, author="ana")
        assert stage.present(cid, me, "overview", {"measure": "AP"}, author="ana").updated_at == first.updated_at
        _age_presentations(ws, BEAT_SECONDS + 1)
        beat = stage.present(cid, me, "overview", {"measure": "AP"}, author="ana")
        assert beat.updated_at > first.updated_at and beat.revision == first.revision and beat.active
        assert stage.current(cid).updated_at == beat.updated_at  # written: another process sees it
        _age_presentations(ws, GONE_SECONDS + 1)
        assert not stage.current(cid).active
        back = stage.present(cid, me, "overview", {"measure": "AP"}, author="ana")
        assert back.active and back.revision == first.revision + 1


def test_presenting_needs_an_editor_and_following_a_viewer(target):
    with target.open() as ws:
        owner = ws.acting_as(Actor(ANA))
        cid = _collection(owner).id
        owner.share(cid, BEA, "viewer")
        bea, cy = Stage(ws.acting_as(Actor(BEA))), Stage(ws.acting_as(Actor(CY)))
        with pytest.raises(Forbidden, match=f"{BEA} may not present collection {cid}: that needs the editor role"):
            bea.present(cid, new_id(), "overview", {})
        with pytest.raises(NoAccess):  # cy may not see it: neither present nor follow
            cy.present(cid, new_id(), "overview", {})
        with pytest.raises(NoAccess):
            cy.current(cid)
        shown = Stage(owner).present(cid, new_id(), "significance", {"measure": "nDCG@10"})
        assert shown.presenter == ANA  # the signed-in person, never a typed name
        assert bea.current(cid).params == {"measure": "nDCG@10"}
        with pytest.raises(WorkspaceError, match="cannot write as"):
            Stage(owner).present(cid, new_id(), "overview", {}, author="somebody else", take_over=True)
        owner.share(cid, BEA, "editor")
        assert bea.present(cid, new_id(), "curves", {}, take_over=True).presenter == BEA


@pytest.mark.parametrize("page, params, message", [
    ("../etc", {}, "a page: expected its address"),
    ("Overview page", {}, "a page: expected its address"),
    ("overview", ["measure", "AP"], "expected a mapping"),
    ("overview", {"measure": 3}, "^a view: measure: expected text, or a list of text, found 3$"),
    ("overview", {"measure": ["AP", 3]}, r"^a view: measure\[1\]: expected text of at most 16384 characters, found 3$"),
    ("overview", {"": "x"}, r"^a view: \[''\]: expected a parameter's name of 1 to 64 characters, found ''$"),
    ("overview", {f"p{i}": "x" for i in range(65)}, "^a view: expected a mapping of at most 64 query parameters, "
                                                     "found a mapping of 65 keys$"),
    ("overview", {"topic": "x" * 20_000}, "at most 16384 characters"),
])
def test_a_bad_view_is_refused_with_one_line_and_stores_nothing(target, page, params, message):
    with target.open() as ws:
        cid = _collection(ws, author="ana").id
        with pytest.raises(WorkspaceError, match=message) as err:
            Stage(ws).present(cid, new_id(), page, params, author="ana")
        assert "\n" not in str(err.value) and Stage(ws).current(cid) is None
        with pytest.raises(WorkspaceError, match="a presenting session: expected a token"):
            Stage(ws).present(cid, "x' OR 1=1 --", "overview", {}, author="ana")


def test_two_stores_share_one_presentation(target):
    with target.open() as presenter_side, target.open() as follower_side:
        cid = _collection(presenter_side, author="ana").id
        me = new_id()
        seen = []
        for page, topic in [("overview", "1"), ("curves", "1"), ("queries", "1"), ("queries", "9")]:
            Stage(presenter_side).present(cid, me, page, {"topic": topic, "measure": "AP"}, author="ana")
            now = Stage(follower_side).current(cid)
            seen.append((now.page, now.params["topic"], now.revision))
        assert seen == [("overview", "1", 1), ("curves", "1", 2), ("queries", "1", 3), ("queries", "9", 4)]
        Stage(presenter_side).stop(cid, me)
        assert not Stage(follower_side).current(cid).active
