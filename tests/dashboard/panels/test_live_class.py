"""The live class, headless (AppTest): questions made on the learn page, a lesson saved and started on the
teacher's page, a student answering on /class, the count and the reveal; unknown and closed codes; the
results' CSV."""

from __future__ import annotations

import csv
import io

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
from streamlit.testing.v1 import AppTest  # noqa: E402

from metrics import ValidationError  # noqa: E402
from metrics.teaching.questions import Change, Question, Ranking  # noqa: E402
from dashboard.data import live_class as classroom_data  # noqa: E402
from workspace.classroom import ClassAnswer, Classroom  # noqa: E402

from tests.dashboard.conftest import errors as _errors  # noqa: E402
from tests.dashboard.conftest import open_page  # noqa: E402




def _app(page: str, query: dict | None = None, at: AppTest | None = None) -> AppTest:
    return open_page(page, query, at)


def _student(code: str) -> AppTest:
    return open_page("classroom", {"code": code})  # the first run opens the default page; the switch opens /class


def test_a_teacher_makes_three_questions_and_a_student_answers(ws):
    teacher = _app("learn", {"source": "my own"})
    teacher.text_input(key="learn_grades").set_value("1 0 1 1 0").run()  # relevant at 1, 3, 4
    for kind, measure in (("value", "P@5"), ("compare", "AP"), ("change", "RR")):
        teacher.radio(key="class_kind").set_value(kind).run()
        teacher.selectbox(key="class_measure").set_value(measure).run()
        if kind == "change":
            teacher.number_input(key="class_change_rank").set_value(1).run()
            teacher.number_input(key="class_change_to").set_value(3).run()
        teacher.button(key="class_add").click().run()
        assert _errors(teacher) == [], kind
    assert any("The lesson has 3 question(s)." in c.value.replace("\\", "") for c in teacher.caption)

    _app("teach", at=teacher)
    assert _errors(teacher) == []
    shown = [t.value for t in teacher.text]
    assert "1. What is P@5 of this ranking?  [my own: typed, topic 1]" in shown
    teacher.text_input(key="class_name").set_value("week 3").run()
    teacher.button(key="class_save").click().run()
    assert [info.name for info in Classroom(ws).lessons()] == ["week 3"]
    teacher.button(key="class_start").click().run()
    code = next(m.value for m in teacher.markdown if m.value.startswith("## Code: "))[len("## Code: "):]
    assert any(t.value.endswith(f"/class?code={code}") for t in teacher.text)
    assert [img.proto.imgs[0].caption for img in teacher.image] == ["Scan to join"]  # the QR code, drawn here

    student = _student(code)
    assert _errors(student) == []
    assert any("Waiting for the teacher" in i.value for i in student.info)

    teacher.button(key="class_next").click().run()  # question 1 opens
    assert teacher.metric[0].value == "0"
    student.run()
    assert any(m.value == r"**What is P\@5 of this ranking\?**" for m in student.markdown)  # escaped text
    student.text_input(key="class_value_0").set_value("3/5")
    student.button[0].click().run()
    assert any("Sent: 0.6." in s.value.replace("\\", "") for s in student.success)
    teacher.run()
    assert teacher.metric[0].value == "1"

    teacher.button(key="class_reveal").click().run()
    assert _errors(teacher) == []
    assert any(m.value == "### Right answer: 0\\.60" for m in teacher.markdown)
    assert len(teacher.get("plotly_chart")) == 1
    assert any(r"P@5 = \frac{3}{5} = 0.6" in latex.value for latex in teacher.latex)
    assert any(t.value.startswith("0% (0) took P@k as recall") for t in teacher.text)
    student.run()
    assert any("right" in s.value for s in student.success)

    teacher.button(key="class_next").click().run()  # question 2: compare
    student.run()
    assert any("Which ranking has the higher AP" in m.value.replace("\\", "") for m in student.markdown)
    teacher.button(key="class_end").click().run()
    classroom_data.status.clear()  # a class's status is kept a second per server process: read it now
    student.run()
    assert any("is over" in i.value for i in student.info)


def test_a_question_on_a_new_ranking_counts_its_own_ranks(ws):
    """A teacher who made a question on a ranking of 8 and then shows one of 20: the question counts 10 ranks
    (the default for 20), not the 8 of the ranking shown before."""
    teacher = _app("learn", {"source": "my own"})
    teacher.text_input(key="learn_grades").set_value("1 0 1 1 0 0 1 0").run()
    depth = [n for n in teacher.number_input if n.label == "Ranks in the question"]
    assert [n.value for n in depth] == [8]
    teacher.text_input(key="learn_grades").set_value(" ".join(["1", "0"] * 10)).run()
    assert _errors(teacher) == []
    assert [n.value for n in teacher.number_input if n.label == "Ranks in the question"] == [10]


@pytest.mark.parametrize("code,message", [("ZZZZZZ", "no class has the code ZZZZZZ"),
                                          ("<b>x</b>", "is not a class code")])
def test_an_unknown_code_says_so_in_one_line(ws, code, message):
    student = _student(code)
    assert len(student.error) == 1 and message in student.error[0].value.replace("\\", "")
    assert not student.exception


def test_the_student_page_without_a_workspace_says_so(monkeypatch):
    monkeypatch.delenv("RANKSCOPE_WORKSPACE", raising=False)
    student = _student("ABCDEF")
    assert [i.value for i in student.info] == ["This server runs no live class."]


def test_the_results_are_anonymous_and_safe_in_a_spreadsheet():
    from dashboard.exports.class_results import class_csv

    questions = (Question("value", "AP", (Ranking((1, 0, 1, 0, 0), (1, 1)),)),
                 Question("change", "P@3", (Ranking((1, 0, 0)),), Change("grade", 2, 1)))
    answers = [ClassAnswer(0, "tokenAAAAAAAAAAA", None, "0.416667", "2026-01-01T10:00:01"),
               ClassAnswer(0, "tokenBBBBBBBBBBB", "=HYPERLINK(1)", "0.833333", "2026-01-01T10:00:02"),
               ClassAnswer(1, "tokenAAAAAAAAAAA", None, "-0.333333", "2026-01-01T10:01:00")]
    rows = list(csv.DictReader(io.StringIO(class_csv(questions, answers).decode())))
    assert [(r["question"], r["student"], r["answer"], r["verdict"]) for r in rows] == [
        ("1", "student 1", "0.416667", "right"), ("1", "'=HYPERLINK(1)", "0.833333", "ap_over_retrieved_relevant"),
        ("2", "student 1", "-0.333333", "other")]
    assert rows[2]["right_answer"] == "+0.33"
    assert "token" not in class_csv(questions, answers).decode()


def test_a_class_judges_a_topic_of_the_loaded_collection(ws):
    """Documents to judge made on the learn page from a stored collection, started on the teacher's page, graded on
    /class by two students (a grade reruns the student's part and brings the next document), and revealed: the
    grades' chart, Fleiss' kappa, the reference's agreement and the two systems' order."""
    from metrics.teaching.judging import Judging

    docs = b"".join(f"d{i}\ttitle {i}\tthe text of document {i} about wings\n".encode() for i in range(1, 7))
    runs = [(f"{tag}.run", "".join(f"1 Q0 d{d} {r} {9 - r} {tag}\n" for r, d in enumerate(order, 1)).encode())
            for tag, order in (("a", [1, 2, 3, 4]), ("b", [5, 4, 6, 1]))]
    info = ws.add_collection("wings", qrels=("q.qrels", b"1 0 d1 1\n1 0 d5 0\n1 0 d9 2\n"), runs=runs,
                             topics=("topics.tsv", b"1\twings\n"), documents=("docs.tsv", docs), author="owner")
    teacher = _app("learn", {"source": "loaded data", "collection": info.id})
    assert _errors(teacher) == []
    teacher.number_input(key="class_judge_count").set_value(4).run()
    teacher.button(key="class_judge_add").click().run()
    assert _errors(teacher) == []
    question = teacher.session_state["class_draft"][-1]
    assert isinstance(question, Judging) and len(question.documents) == 4
    assert {d.docid for d in question.documents} == {"d1", "d5", "d2", "d4"}  # a1, b1, a2, b2 (d4), each once

    _app("teach", at=teacher)
    assert any(t.value.startswith("1. Judge 4 documents for topic 1") for t in teacher.text)
    teacher.button(key="class_start").click().run()
    code = next(m.value for m in teacher.markdown if m.value.startswith("## Code: "))[len("## Code: "):]
    teacher.button(key="class_next").click().run()
    for grades in ((1, 0, 1, 1), (1, 0, 0, 1)):
        student = _student(code)
        for i, grade in enumerate(grades):
            assert any(f"Document {i + 1} of 4" in p.proto.text for p in student.get("progress"))
            student.button(key=f"class_grade_{grade}").click().run()
            assert _errors(student) == []
    stored = Classroom(ws).answers(code)
    assert sorted(a.answer for a in stored) == ["1001", "1011"]
    teacher.button(key="class_reveal").click().run()
    assert _errors(teacher) == []
    assert len(teacher.get("plotly_chart")) == 1
    said = " ".join(m.value.replace("\\", "") for m in teacher.markdown)
    assert "Fleiss' kappa among the 2 students who graded every document: **0.467**." in said  # by hand below
    # two students, 4 documents: agreeing pairs 1, 1, 0, 1 -> P = 0.75; grades 1: 5/8, 0: 3/8 -> P_e = 34/64;
    # kappa = (0.75 - 0.53125) / (1 - 0.53125) = 0.4667
    assert "Against the reference, which judged 2 of these documents" in said
    assert "is first" in said


def test_the_results_of_a_judging_class_hold_each_students_grades_and_the_references():
    from dashboard.exports.class_results import class_csv
    from metrics.teaching.judging import Judging, Shown

    question = Judging("1", "wings", (Shown("d2"), Shown("d1"), Shown("d3")), ("not relevant", "relevant"),
                       (("a", ("d1", "d2")), ("b", ("d3",))), (("d1", 1), ("d3", 0)), (), "P@1")
    answers = [ClassAnswer(0, "tokenAAAAAAAAAAA", "Ana", "10-", "2026-01-01T10:00:01")]
    rows = list(csv.DictReader(io.StringIO(class_csv((question,), answers).decode())))
    assert [(r["kind"], r["student"], r["answer"], r["right_answer"]) for r in rows] == [("judge", "Ana", "1 0 ?", "? 1 0")]
    assert rows[0]["prompt"].startswith("Judge 3 documents for topic 1")


def test_a_student_sends_at_most_the_bound_and_one_address_answers_at_most_its_own(ws, monkeypatch):
    monkeypatch.setenv("RANKSCOPE_CLASS_CHANGES", "2")
    monkeypatch.setenv("RANKSCOPE_CLASS_ANSWERS", "3")
    classroom_data.flood.clear()  # the bounds are read when a server process first needs them
    try:
        room = Classroom(ws)
        code, key = room.start((Question("value", "AP", (Ranking((1, 0, 1, 0, 0), (1, 1)),)),), author="ana")
        room.show(code, key, 0)
        first = _student(code)
        for typed in ("0.4", "0.42", "0.5"):  # the third is past the student's bound: the second counts
            first.text_input(key="class_value_0").set_value(typed)
            first.button[0].click().run()
        assert any("You sent 2 answers to this question: the last one counts." in w.value.replace("\\", "")
                   for w in first.warning)
        assert [a.answer for a in room.answers(code, 0)] == ["0.42"]
        second = _student(code)  # another session of the same address: one answer of its three left
        for typed in ("0.4", "0.41"):
            second.text_input(key="class_value_0").set_value(typed)
            second.button[0].click().run()
        assert [e.value for e in second.error] == ["Too many answers from your network address in the last "
                                                   "minute: wait a moment, then send again."]
        assert sorted(a.answer for a in room.answers(code, 0)) == ["0.4", "0.42"] and _errors(first) == []
    finally:
        classroom_data.flood.clear()


def test_a_student_grading_documents_is_held_to_the_same_bounds_as_one_answering(ws, monkeypatch):
    """Each grade a student gives a judging question is an answer: it counts against the address's answers, and
    a student changes the grades at most the bound's number of times for each document."""
    from metrics.teaching.judging import Judging, Shown

    monkeypatch.setenv("RANKSCOPE_CLASS_CHANGES", "1")
    monkeypatch.setenv("RANKSCOPE_CLASS_ANSWERS", "3")
    classroom_data.flood.clear()
    try:
        room = Classroom(ws)
        question = Judging("1", "wings", (Shown("d1"), Shown("d2")), ("not relevant", "relevant"),
                           (("a", ("d1", "d2")), ("b", ("d2",))), (("d1", 1),), (), "P@1")
        code, key = room.start((question,), author="ana")
        room.show(code, key, 0)
        first = _student(code)
        for grade in (1, 0, 1):  # two documents, one change each: the third grade is past the student's bound
            first.button(key=f"class_grade_{grade}").click().run()
        assert [a.answer for a in room.answers(code, 0)] == ["10"]
        assert any("You changed these grades 2 times: the last ones count." in e.value.replace("\\", "")
                   for e in first.error)
        second = _student(code)  # the same address: one of its three answers left
        for grade in (1, 1):
            second.button(key=f"class_grade_{grade}").click().run()
        assert any("Too many answers from your network address" in e.value for e in second.error)
        assert sorted(a.answer for a in room.answers(code, 0)) == ["1-", "10"]
    finally:
        classroom_data.flood.clear()


def test_a_lesson_holds_questions_of_one_stored_collection(monkeypatch):
    state: dict = {}
    monkeypatch.setattr(classroom_data.st, "session_state", state)
    question = Question("value", "AP", (Ranking((1, 0)),))
    classroom_data.add_to_draft(question, None)  # typed grades: no collection
    classroom_data.add_to_draft(question, "AAAAAAAAAAAAAAAA")
    assert classroom_data.draft_collection() == "AAAAAAAAAAAAAAAA"
    with pytest.raises(ValidationError, match="expected questions of collection AAAAAAAAAAAAAAAA .*found one of "
                                              "BBBBBBBBBBBBBBBB: save or clear the lesson first"):
        classroom_data.add_to_draft(question, "BBBBBBBBBBBBBBBB")
    assert len(classroom_data.draft()) == 2
    classroom_data.draft().clear()
    classroom_data.add_to_draft(question, None)  # a cleared lesson forgets its collection
    assert classroom_data.draft_collection() is None
