"""The assessor's page, headless (AppTest): a task's documents one at a time with their texts, the query's words
marked and every text escaped; grades, skip, undo and moving back, each stored in the workspace when it is made;
a person who is not an assessor of the task sees neither it nor its documents."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from dashboard.session.typed_name import NAME_KEY  # noqa: E402
from tests.dashboard.conftest import errors, open_page, unescaped  # noqa: E402

QRELS = b"1 0 d1 1\n2 0 d2 0\n"
TOPICS = b"1\tslipstream wing lift\n2\t<b>boundary</b> *layer*\n"
DOCS = (b"d1\tWing\tthe wing in a slipstream\n"
        b"d2\t<script>alert(1)</script>\ta **bold** [link](http://x) wing\n"
        b"d3\tLift\tlift of a wing, and the wing's LIFT\n"
        b"d4\tLayer\tthe boundary layer <img src=x>\n"
        b"d5\tFive\tnothing\n")


def _run(tag: str, order: str) -> bytes:
    return "".join(f"{q} Q0 {d} {r} {9 - r} {tag}\n" for q in ("1", "2")
                   for r, d in enumerate(order.split(), 1)).encode()


@pytest.fixture
def task(ws):
    info = ws.add_collection("judged", qrels=("nist.qrels", QRELS),
                             runs=[("a.run", _run("a", "d1 d2 d3 d4 d5")), ("b.run", _run("b", "d5 d4 d3 d2 d1"))],
                             topics=("topics.tsv", TOPICS), documents=("docs.tsv", DOCS), author="owner")
    from workspace.judging import Judging

    return Judging(ws).start(info.id, method="depth", assessors=["ann"], depth=5, author="owner",
                             scale="0=not relevant,1=relevant,2=highly relevant")


def _judge(task, who: str = "ann"):
    return open_page("judge", {"task": task.id}, session={NAME_KEY: who})


def _stored(ws, task):
    from workspace.judging import Judging

    rows = Judging(ws).judgments(task.id)
    return [(r.topic, r.docid, None if r.grade != r.grade else int(r.grade), bool(r.skipped))
            for r in rows.itertuples()]


def _shown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_an_assessor_judges_skips_undoes_and_moves_back(ws, task):
    at = _judge(task)
    assert errors(at) == []
    assert [b.label for b in at.button][:3] == ["0 · not relevant", "1 · relevant", "2 · highly relevant"]
    assert {b.proto.shortcut for b in at.button} >= {"0", "1", "2", "s", "u", "left", "right"}
    first = _shown(at)
    assert "**Topic 1**: slipstream wing lift" in first
    at.button(key="judge_grade_2").click().run()
    ((topic, docid, grade, skipped),) = _stored(ws, task)
    assert (topic, grade, skipped) == ("1", 2, False)
    second = _shown(at)
    assert f"Document {docid}." not in [unescaped(c.value)[:len(docid) + 10] for c in at.caption]
    at.button(key="judge_skip").click().run()
    at.button(key="judge_grade_0").click().run()
    assert len(_stored(ws, task)) == 3
    assert [g for *_, g, s in _stored(ws, task) if s] == [None]  # the skipped one keeps no grade
    at.button(key="judge_undo").click().run()
    graded = [row for row in _stored(ws, task) if row[2] is not None]
    assert graded == [(topic, docid, 2, False)]  # the last grade taken back, the first kept
    assert errors(at) == [] and second


def test_every_text_is_shown_as_text(ws, task):
    at = _judge(task)
    seen = []
    for _ in range(10):  # every document, until nothing is left
        seen.append(_shown(at))
        if not any(b.key == "judge_grade_1" for b in at.button):
            break
        at.button(key="judge_grade_1").click().run()
    text = "\n".join(seen)
    for planted in ("<script>alert(1)</script>", "**bold** [link](http://x)", "<img src=x>", "<b>boundary</b> *layer*"):
        assert planted in unescaped(text) and planted not in text  # shown as typed, every character escaped
    assert ":orange-background[boundary] :orange-background[layer]" in text  # topic 2's words, in topic 2 only
    assert "lift of a wing\\, and the wing\\'s LIFT" in text
    assert any("Nothing more to judge" in s.value for s in at.success)
    assert len([r for r in _stored(ws, task) if r[2] == 1]) == 8  # 5 documents on each of 2 topics, 2 judged before


def test_someone_who_is_not_an_assessor_sees_no_document(ws, task):
    at = _judge(task, "mallory")
    assert not any(b.key == "judge_grade_1" for b in at.button)
    assert any("judging 1: expected one of its assessors, found mallory" in e for e in errors(at))
    assert _stored(ws, task) == []
    nobody = open_page("judge", {"task": task.id})
    assert any("Type your name" in i.value for i in nobody.info) and not nobody.error


def test_the_owner_sees_the_task_firm_up_adjudicates_and_saves_its_sets(ws):
    from workspace.dealing import next_for
    from workspace.judging import Judging

    info = ws.add_collection("judged", qrels=("nist.qrels", QRELS),
                             runs=[("a.run", _run("a", "d1 d2 d3 d4 d5")), ("b.run", _run("b", "d5 d4 d3 d2 d1"))],
                             topics=("topics.tsv", TOPICS), documents=("docs.tsv", DOCS), author="owner")
    judging = Judging(ws)
    task = judging.start(info.id, method="decide", assessors=["ann", "bob"], overlap=1.0, depth=5, author="owner",
                         options={"measure": "P@3"})
    for who, grade in (("ann", 1), ("bob", 0), ("ann", 1), ("bob", 1)):
        deal = next_for(ws, task.id, who)
        judging.judge(task.id, deal.topic, deal.docid, grade, assessor=who)
    at = open_page("judges", {"collection": info.id}, session={NAME_KEY: "owner"})
    assert errors(at) == []
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Documents judged by the task"] == "2"  # two documents, each judged twice
    assert metrics["Pairs decided"].endswith("of 1")
    pairs = next(d.value for d in at.dataframe if "probability" in d.value.columns)
    from metrics import read_qrels, read_run
    from metrics.judgments.candidates import gather
    from metrics.judgments.decide import Decision

    rows = judging.judgments(task.id)
    merged = rows.groupby(["topic", "docid"])["grade"].min()  # the task's rule: the lower grade
    qrels = QRELS + "".join(f"{t} 0 {d} {int(g)}\n" for (t, d), g in merged.items()).encode()
    fresh = Decision(gather([read_run(_run(n, o), name=n) for n, o in (("a", "d1 d2 d3 d4 d5"), ("b", "d5 d4 d3 d2 d1"))],
                            read_qrels(qrels, name="q"), depth=5), measure="P@3").probabilities()
    assert pairs[["better", "worse"]].values.tolist() == fresh[["better", "worse"]].values.tolist()
    assert pairs["probability"].tolist() == pytest.approx(fresh["probability"].tolist(), abs=1e-12)
    apart = next(d.value for d in at.dataframe if "grades" in d.value.columns)
    assert len(apart) == 1 and apart["grades"].iloc[0] in ("ann: 1; bob: 0",)
    at.selectbox(key="tasks_apart_grade").set_value(1).run()
    at.button(key="tasks_adjudicate").click().run()
    assert judging.adjudications(task.id)["grade"].tolist() == [1]
    at.button(key="tasks_save").click().run()
    assert [e.value for e in at.exception] == []
    assert any("Saved as version 2: every page now reads the task's judgment sets." in unescaped(s.value)
               for s in at.success)
    newest = ws.lineage(info.id)[-1]
    assert newest.id != info.id and at.query_params["collection"] == newest.id
    assert [n for n, _ in ws.load(newest.id).judgment_sets][:1] == ["judging 1:adjudicated"]
