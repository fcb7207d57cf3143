"""The live class in the workspace (SQLite and PostgreSQL): lessons kept and read back, a class's codes,
the teacher's key, answers taken only while a question is open, one per student, and a class that two
stores (two server processes) share."""

from __future__ import annotations

import re
import threading
from collections import Counter

import pytest

pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from metrics import ValidationError  # noqa: E402
from metrics.teaching.questions import Change, Question, Ranking  # noqa: E402
from workspace import WorkspaceError  # noqa: E402
from workspace.checks import new_id  # noqa: E402
from workspace.classroom import CODE, ClassClosed, Classroom, UnknownClass, normal_code  # noqa: E402

QUESTIONS = (Question("value", "AP", (Ranking((1, 0, 1, 0, 0), (1, 1)),), source="typed"),
             Question("compare", "P@3", (Ranking((1, 0, 0, 0)), Ranking((0, 1, 1, 0)))),
             Question("change", "RR", (Ranking((0, 1, 1)),), Change("grade", 2, 0)))


def test_a_lesson_is_kept_and_read_back(target):
    with target.open() as ws:
        room = Classroom(ws)
        first = room.save_lesson("week 3: AP", QUESTIONS, author="ana")
        room.save_lesson("week 4", QUESTIONS[:1], author="ana")
        assert room.lesson(first.id).questions == QUESTIONS
        assert [info.name for info in room.lessons()][-1] == "week 3: AP"
    with target.open() as ws:  # another process next year: the same lesson
        assert Classroom(ws).lesson(first.id).questions == QUESTIONS
        with pytest.raises(WorkspaceError, match="unknown lesson id"):
            Classroom(ws).lesson("x' OR 1=1 --")


def test_a_class_runs_question_by_question(target):
    with target.open() as ws:
        room = Classroom(ws)
        code, key = room.start(QUESTIONS, author="ana")
        assert CODE.match(code) and not re.search("[01ILO]", code)
        status = room.status(code)
        assert (status.current, status.phase, status.closed, status.count) == (-1, "waiting", False, 3)
        students = [new_id() for _ in range(4)]
        with pytest.raises(ClassClosed, match="question 1 is not open"):
            room.answer(code, students[0], 0, "0.4")
        assert room.show(code, key, 0).phase == "open"
        for student, typed in zip(students, ["0.42", "5/12", "0.83", "0.1"]):
            room.answer(code, student, 0, typed)
        assert room.answer(code, students[3], 0, "0,5", nickname="Kim") == "0.5"  # a later answer replaces
        assert room.count(code, 0) == 4
        assert sorted(a.answer for a in room.answers(code, 0)) == ["0.416667", "0.42", "0.5", "0.83"]
        assert {a.nickname for a in room.answers(code, 0)} == {None, "Kim"}
        with pytest.raises(ValidationError, match="expected a number"):
            room.answer(code, students[0], 0, "=1+1")
        revealed = room.reveal(code, key)
        assert revealed.phase == "revealed" and revealed.revision > status.revision
        with pytest.raises(ClassClosed, match="not open"):
            room.answer(code, students[0], 0, "0.4")
        room.show(code, key, 1)
        with pytest.raises(ClassClosed, match="question 1 is not open"):  # the old question is closed
            room.answer(code, students[0], 0, "0.4")
        room.answer(code, students[0], 1, "b")
        assert [a.answer for a in room.answers(code, 1)] == ["B"]
        room.close(code, key)
        assert room.status(code).closed
        with pytest.raises(ClassClosed, match="is closed"):
            room.answer(code, students[1], 1, "A")
        assert len(room.answers(code)) == 5  # kept after the class


def test_only_the_teacher_changes_a_class_and_codes_are_checked_before_any_query(target):
    with target.open() as ws:
        room = Classroom(ws)
        code, key = room.start(QUESTIONS, author="ana")
        with pytest.raises(WorkspaceError, match="only the teacher"):
            room.show(code, "guess", 0)
        with pytest.raises(WorkspaceError, match="expected a question from 1 to 3"):
            room.show(code, key, 3)
        with pytest.raises(WorkspaceError, match="no question is shown yet"):
            room.reveal(code, key)
        for bad in ["", "ABC", "ABCDE0", "x' OR '1'='1", "A" * 400, None]:
            with pytest.raises(UnknownClass, match="is not a class code"):
                room.status(bad)
        assert normal_code(f" {code[:3].lower()}-{code[3:]} ") == code
        other = "".join(reversed(code)) if "".join(reversed(code)) != code else "222222"
        with pytest.raises(UnknownClass, match=f"no class has the code {other}"):
            room.status(other)
        with pytest.raises(WorkspaceError, match="nickname: expected one non-empty line of at most 24"):
            room.show(code, key, 0)
            room.answer(code, new_id(), 0, "0.4", nickname="x" * 25)


def test_a_teachers_key_kept_by_the_browser_names_the_running_class_only(target):
    """What a teacher's page opened again asks of the key its browser kept: the running class's key, and no
    other key, code or ended class."""
    with target.open() as ws:
        room = Classroom(ws)
        code, key = room.start(QUESTIONS, author="ana")
        other, other_key = room.start(QUESTIONS, author="bo")
        assert room.teaches(code, key) and room.teaches(other, other_key)
        for bad_code, bad_key in [(code, other_key), (other, key), (code, ""), (code, None), ("", key),
                                  ("x' OR '1'='1", key), (code.lower(), key), (None, key)]:
            assert not room.teaches(bad_code, bad_key)
        room.close(code, key)
        assert not room.teaches(code, key) and room.teaches(other, other_key)


def test_two_stores_share_a_class_and_answers_made_at_once_are_all_kept(target):
    with target.open() as teacher_ws, target.open() as student_ws:
        teacher, students = Classroom(teacher_ws), Classroom(student_ws)
        code, key = teacher.start(QUESTIONS, author="ana")
        teacher.show(code, key, 1)
        assert students.status(code).phase == "open"
        tokens = [new_id() for _ in range(24)]
        errors = []

        def answer(token: str, choice: str) -> None:
            try:
                students.answer(code, token, 1, choice)
            except Exception as err:  # noqa: BLE001 - the test reports any failure
                errors.append(err)

        threads = [threading.Thread(target=answer, args=(t, "AB"[i % 2])) for i, t in enumerate(tokens)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert teacher.count(code, 1) == 24
        assert Counter(a.answer for a in teacher.answers(code, 1)) == {"A": 12, "B": 12}
