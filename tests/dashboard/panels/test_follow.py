"""Present and follow, headless (AppTest): the toggles appear for a stored collection only (in the sidebar, and at
the top in presentation mode); turning Present on writes the page and view to the store, off ends it; a
follower sees who presents, and a session that does not follow polls nothing."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from tests.dashboard.conftest import errors, open_page  # noqa: E402
from workspace.checks import new_id  # noqa: E402
from workspace.presenting import Stage  # noqa: E402

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 0\n3 0 e 1\n"
RUN_A = b"1 Q0 a 1 2.0 A\n1 Q0 b 2 1.0 A\n2 Q0 c 1 3.0 A\n2 Q0 d 2 1.0 A\n3 Q0 e 1 1.0 A\n"
RUN_B = b"1 Q0 b 1 2.0 B\n1 Q0 a 2 1.0 B\n2 Q0 d 1 3.0 B\n2 Q0 c 2 1.0 B\n3 Q0 x 1 1.0 B\n"
LABELS = ("Present", "Follow the presenter")


@pytest.fixture(autouse=True)
def _presenters_stay(monkeypatch):
    """A presenter's page is there as long as a test needs, however slow the machine (a run of a page can take
    longer than a presenter may miss beats); the test of a presenter who left dates the last beat back."""
    monkeypatch.setattr("workspace.presenting.GONE_SECONDS", 3600)


def _stored(ws) -> str:
    return ws.add_collection("tiny", qrels=("tiny.qrels", QRELS), runs=[("a.run", RUN_A), ("b.run", RUN_B)],
                             author="ana").id


def _toggles(at) -> dict:
    return {t.label: t for t in at.toggle if t.label in LABELS}


def test_no_toggles_without_a_stored_collection():
    at = open_page("overview")  # no workspace: the demo in the session
    assert errors(at) == [] and _toggles(at) == {}


def test_present_writes_the_page_and_view_and_stops(ws):
    cid = _stored(ws)
    at = open_page("curves", {"collection": cid}, session={"rankscope_author": "ana"})
    assert errors(at) == [] and set(_toggles(at)) == set(LABELS)
    assert Stage(ws).current(cid) is None  # nothing written before someone presents
    _toggles(at)["Present"].set_value(True).run()
    now = Stage(ws).current(cid)
    assert errors(at) == [] and (now.active, now.presenter, now.page) == (True, "ana", "curves")
    assert now.params["collection"] == cid and "present" not in now.params
    _toggles(at)["Present"].set_value(False).run()
    assert not Stage(ws).current(cid).active


def test_a_follower_sees_who_presents_and_a_bystander_polls_nothing(ws):
    cid = _stored(ws)
    Stage(ws).present(cid, new_id(), "curves", {"collection": cid}, author="Dr. <b>Ana</b>")  # the page shown
    at = open_page("curves", {"collection": cid, "present": "true"}, session={"rankscope_author": "bea"})
    assert errors(at) == [] and set(_toggles(at)) == set(LABELS)  # at the top, in presentation mode
    assert not any(t.value for t in _toggles(at).values())
    said = " ".join(c.value for c in at.caption)
    assert r"Dr\. \<b\>Ana\<\/b\> presents" in said  # the name as text, through the one escaping path
    assert "follow_seen" not in at.session_state  # not following: no poll ran
    _toggles(at)["Follow the presenter"].set_value(True).run()  # (the switch to another page: tests/e2e/test_follow.py)
    assert errors(at) == [] and "you follow" in " ".join(c.value for c in at.caption)
    assert at.session_state["follow_seen"] == (Stage(ws).current(cid).revision, True)  # the poll read it


def test_a_new_version_keeps_the_presentation_and_another_collection_ends_it(ws):
    cid = _stored(ws)
    other = ws.add_collection("other", qrels=("o.qrels", QRELS), runs=[("c.run", RUN_A)], author="ana").id
    at = open_page("overview", {"collection": cid}, session={"rankscope_author": "ana"})
    _toggles(at)["Present"].set_value(True).run()
    newer = ws.new_version(cid, remove_systems=["b"], author="bo").id  # a colleague's version, same lineage
    at.query_params["collection"] = newer
    at.run()
    assert errors(at) == [] and _toggles(at)["Present"].value  # still presenting, on the new version
    assert Stage(ws).current(newer).active
    at.query_params["collection"] = other
    at.run()
    assert errors(at) == [] and not _toggles(at)["Present"].value  # presenting another collection is a choice
    assert not Stage(ws).current(cid).active and Stage(ws).current(other) is None


def _title(at) -> str:
    return at.title[0].value if at.title else ""


def _seen(at):
    return at.session_state["follow_seen"] if "follow_seen" in at.session_state else None


def test_a_switch_counts_once_its_page_and_whole_view_are_drawn_and_a_lost_one_is_asked_for_again(ws, monkeypatch):
    """The revision counts as applied when a full run draws the presenter's page with the presenter's whole view
    (the link's parameters and those the widgets write), not when the switch is asked for: a run of the right
    page whose widget came back with the follower's old value (a busy server folded a late poll, with the
    browser's widget values, into the switch) is a failed try, asked for again; a switch asked for and not drawn
    yet is waited for; after :data:`dashboard.panels.follow.TRIES` tries the revision is not asked for any more
    (no endless switching)."""
    from dashboard.panels import follow

    cid = _stored(ws)
    link = {"collection": cid, "mark": "x1"}  # a parameter no widget holds: it goes in the link
    revision = Stage(ws).present(cid, new_id(), "curves", link, author="ana").revision
    at = open_page("overview", {"collection": cid}, session={"rankscope_author": "bea"})
    _toggles(at)["Follow the presenter"].set_value(True).run()  # the poll asks for the presenter's page
    assert errors(at) == [] and _title(at) == "Curves" and at.query_params["mark"] == "x1"
    seen = (revision, True)
    assert _seen(at) == seen and "follow_wanted" not in at.session_state

    # the presenter's page without its link (not following now, so no poll runs): not yet applied
    at.session_state[follow.ROLE] = None
    at.session_state["follow_seen"] = None
    at.session_state["follow_wanted"] = (seen, "curves", link, 1, False, 0)
    at.switch_page("app_pages/curves.py")
    at.query_params.clear()
    at.query_params["collection"] = cid
    at.run()
    assert errors(at) == [] and _title(at) == "Curves"
    assert _seen(at) is None and at.session_state["follow_wanted"][3:5] == (1, True)  # drawn, not applied
    at.query_params["mark"] = "x1"
    at.run()
    assert _seen(at) == seen and "follow_wanted" not in at.session_state  # page and whole view: applied

    # the page and link, but the presenter's interpolation rule not drawn (the rule widget came back with
    # the follower's own, the default, which the URL does not carry): not applied
    wrong = {**link, "rule": "textbook"}
    at.session_state["follow_seen"] = None
    at.session_state["follow_wanted"] = (seen, "curves", wrong, 1, False, 0)
    at.run()
    assert errors(at) == [] and "rule" not in at.query_params
    assert _seen(at) is None and at.session_state["follow_wanted"][3:5] == (1, True)

    # a switch asked for and not drawn yet (no full run since): the polls wait, then ask again
    at.session_state[follow.ROLE] = follow.FOLLOWS
    at.session_state["follow_wanted"] = (seen, "curves", link, 1, False, 0)
    at.switch_page("app_pages/overview.py")  # the follower's page when the switch was asked for
    at.query_params.clear()
    at.query_params["collection"] = cid
    arrived = follow._arrived
    monkeypatch.setattr("dashboard.panels.follow._arrived", lambda here: None)  # no full run reaches its end
    monkeypatch.setattr("streamlit.switch_page", lambda page, query_params=None: None)
    for polls in range(1, follow.PATIENCE + 1):
        at.run()
        assert at.session_state["follow_wanted"][3:] == (1, False, polls)
    at.run()
    assert at.session_state["follow_wanted"][3:] == (2, False, 0)  # asked for again
    monkeypatch.setattr("dashboard.panels.follow._arrived", arrived)

    # lost switches: the switch is dropped (the follower's old page runs again each time); each poll asks
    # again, and after TRIES tries the revision counts as applied, so the polls stop asking
    monkeypatch.setattr("streamlit.switch_page", lambda page, query_params=None: None)
    at.session_state[follow.ROLE] = follow.FOLLOWS  # following again
    at.session_state["follow_seen"] = None
    del at.session_state["follow_wanted"]
    at.switch_page("app_pages/overview.py")
    at.query_params.clear()
    at.query_params["collection"] = cid
    asked = []
    for _ in range(follow.TRIES + 2):
        at.run()
        assert errors(at) == [] and _title(at) == "Overview"
        asked.append((at.session_state["follow_wanted"][3], _seen(at)))
    assert asked == [(n, None) for n in range(1, follow.TRIES)] + [(follow.TRIES, seen)] * 3


def test_a_followed_view_never_writes_as_the_follower(ws):
    """A presenter whose link names a field that changes data (a system's new name on the data page) moves a
    follower to that page and view, and nothing else: the follower's session saves no version, and the
    systems keep their names."""
    from dashboard.panels import follow

    cid = _stored(ws)
    at = open_page("data", {"collection": cid}, session={"rankscope_author": "alice"})
    assert errors(at) == [] and "data_name_0_a" in at.session_state  # the follower's own rename field
    Stage(ws).present(cid, new_id(), "data", {"collection": cid, "data_name_0_a": "RENAMED", "topic": "2"},
                      author="bob")
    _toggles(at)["Follow the presenter"].set_value(True).run()
    at.run()
    assert errors(at) == [] and at.session_state[follow.ROLE] == follow.FOLLOWS
    assert [v.id for v in ws.lineage(cid)] == [cid]  # no version saved by the follower
    assert at.session_state["data_name_0_a"] == "a" and "RENAMED" not in [t.value for t in at.text_input]
    assert ws.load(cid).runs[0].system == "a"


def test_a_presenter_made_a_viewer_stops_presenting_at_the_next_run(ws, monkeypatch):
    from workspace import Actor

    owner = ws.acting_as(Actor("ana@example.org"))
    cid = owner.add_collection("tiny", qrels=("tiny.qrels", QRELS), runs=[("a.run", RUN_A)]).id
    owner.share(cid, "bea@example.org", "editor")
    # bea signed in (the login mode's checked identity), so that her role decides
    monkeypatch.setattr("dashboard.server.identity.actor", lambda: Actor("bea@example.org", checked=True))
    at = open_page("overview", {"collection": cid})
    _toggles(at)["Present"].set_value(True).run()
    assert errors(at) == [] and Stage(ws).current(cid).active
    owner.share(cid, "bea@example.org", "viewer")
    at.run()
    assert errors(at) == [] and not _toggles(at)["Present"].value
    assert "no longer lets you present" in " ".join(c.value for c in at.caption)
    assert not Stage(ws).current(cid).active  # followers are told at once, not when a beat is missed


def test_a_follower_is_told_the_presenter_left_and_is_taken_nowhere(ws):
    """The presenter's tab closed: the presentation stops beating, and a follower who arrives then stays where
    they are, told who left."""
    from datetime import datetime, timedelta, timezone

    from sqlalchemy import text

    from workspace.presenting import GONE_SECONDS

    cid = _stored(ws)
    Stage(ws).present(cid, new_id(), "curves", {"collection": cid}, author="ana")
    at = open_page("overview", {"collection": cid}, session={"rankscope_author": "bea"})
    old = (datetime.now(timezone.utc) - timedelta(seconds=GONE_SECONDS + 1)).isoformat()
    with ws._engine.begin() as conn:
        conn.execute(text("UPDATE presentations SET updated_at = :at"), {"at": old})
    _toggles(at)["Follow the presenter"].set_value(True).run()
    at.run()
    assert errors(at) == [] and _title(at) == "Overview"
    said = " ".join(c.value for c in at.caption)
    assert "ana left: their page closed" in said and "ana presents" not in said
