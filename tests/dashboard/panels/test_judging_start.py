"""Starting a judging task from the judges page, headless (AppTest): an editor's task is stored as the command
line stores the same request; a viewer, and a person without a role, see no form and start nothing; a refusal
is the store's one line."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from tests.dashboard.conftest import errors, open_page, unescaped  # noqa: E402
from tests.dashboard.judged_runs import QRELS, run_bytes  # noqa: E402


@pytest.fixture
def cid(ws):
    from workspace import Actor

    owner = ws.acting_as(Actor("owner@example.org"))
    info = owner.add_collection("judged", qrels=("nist.qrels", QRELS),
                                runs=[("a.run", run_bytes("a", "d1 d2 d3 d4 d5")), ("b.run", run_bytes("b", "d5 d4 d3 d2 d1"))])
    owner.share(info.id, "ed@example.org", "editor")
    owner.share(info.id, "vi@example.org", "viewer")
    return info.id


def _as(monkeypatch, who: str) -> None:
    """The login mode's signed-in person (a checked identity), whose role decides."""
    from workspace import Actor

    monkeypatch.setattr("dashboard.server.identity.actor", lambda: Actor(who, checked=True))


def _stored(ws, cid):
    from workspace.judging import Judging

    return [(t.name, t.method, t.assessors, {k: v for k, v in t.settings.items() if k != "seed"})
            for t in Judging(ws).tasks(cid)]


def test_an_editor_starts_a_task_stored_as_the_command_line_stores_it(ws, cid, monkeypatch):
    from rankscope.cli import main

    _as(monkeypatch, "ed@example.org")
    at = open_page("judges", {"collection": cid})
    assert errors(at) == []
    from metrics.judgments.pooling import METHODS

    shown = at.selectbox(key="judging_start_method").options  # every method of rankscope pool, as declared
    assert [o.rsplit(" (", 1)[1][:-1] for o in shown] == list(METHODS) and "Depth-k pool (depth)" in shown
    assert [t.value for t in at.text_input if t.key.startswith("judging_start_label_1_")] == ["not relevant",
                                                                                            "relevant"]
    at.selectbox(key="judging_start_method").set_value("decide").run()
    at.text_input(key="judging_start_decide_measure").set_value("P@3")
    at.number_input(key="judging_start_budget").set_value(4)
    at.number_input(key="judging_start_overlap").set_value(0.5)
    at.text_input(key="judging_start_assessors").set_value(" ann@example.org, bob@example.org,")
    at.multiselect(key="judging_start_topics").set_value(["1"])
    at.text_input(key="judging_start_name").set_value("week 1")
    at.number_input(key="judging_start_highest").set_value(2).run()
    at.text_input(key="judging_start_label_2_1").set_value("some")
    at.button(key="judging_start_go").click().run()
    assert errors(at) == []
    assert any("Started week 1 (decide)" in unescaped(s.value) for s in at.success)
    assert at.selectbox(key="tasks_task").value == _first_task(ws, cid)
    by_page = _stored(ws, cid)

    assert main(["workspace", "judge", "--workspace", os.environ["RANKSCOPE_WORKSPACE"], cid, "--method", "decide", "--budget", "4",
                 "--overlap", "0.5", "--assessors", "ann@example.org,bob@example.org", "--topics", "1",
                 "-m", "P@3", "--name", "week 1",
                 "--scale", "0=not relevant,1=some,2=highly relevant"]) == 0
    by_command = _stored(ws, cid)
    assert len(by_command) == 2 and by_command[0] == by_command[1] == by_page[0]
    assert by_page[0][3]["options"] == {"measure": "P@3"} and by_page[0][3]["scale"][1] == [1, "some"]


def _first_task(ws, cid) -> str:
    from workspace.judging import Judging

    return Judging(ws).tasks(cid)[0].id


def test_a_refusal_is_the_stores_one_line_and_nothing_is_stored(ws, cid, monkeypatch):
    _as(monkeypatch, "ed@example.org")
    at = open_page("judges", {"collection": cid})
    at.text_input(key="judging_start_assessors").set_value("ann@example.org")
    at.number_input(key="judging_start_overlap").set_value(0.2)
    at.button(key="judging_start_go").click().run()
    assert errors(at) == ["overlap: expected two assessors or more to judge a document twice, found one"]
    assert _stored(ws, cid) == []


@pytest.mark.parametrize("who", ["vi@example.org", "nobody@example.org"])
def test_a_viewer_or_a_person_without_a_role_sees_no_form(ws, cid, monkeypatch, who):
    _as(monkeypatch, who)
    at = open_page("judges", {"collection": cid})
    assert not [w for w in (*at.button, *at.text_input, *at.selectbox) if (w.key or "").startswith("judging_start")]
    assert _stored(ws, cid) == []


def test_in_the_open_mode_whoever_typed_a_name_starts_one(ws, cid):
    from dashboard.session.typed_name import NAME_KEY

    at = open_page("judges", {"collection": cid}, session={NAME_KEY: "ann"})
    at.selectbox(key="judging_start_method").set_value("depth").run()
    at.button(key="judging_start_go").click().run()
    assert errors(at) == []
    ((name, method, assessors, settings),) = _stored(ws, cid)
    assert (name, method, assessors, settings["budget"], settings["options"]) == ("judging 1", "depth", (), None, {})
