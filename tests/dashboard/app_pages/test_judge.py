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
