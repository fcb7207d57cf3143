"""A lesson with any one field of any question wrong is refused in one line naming the field's path.

Every field that ``LESSON`` declares is made wrong in turn by ``tests/documents.py``: a field added to the
declaration is covered here without a line of this file changing, and the example below must reach it.
"""

from __future__ import annotations

import json

import pytest

from metrics.errors import ValidationError
from metrics.teaching import lesson
from metrics.teaching.questions import Change, Question, Ranking
from tests.documents import cases, unreached

EXAMPLE = json.loads(lesson.dumps([Question("change", "nDCG@5", (Ranking((2, None, 0), (3,), "bm25"),),
                                            Change("grade", 3, 1), rel=2, tolerance=0.05, source="topic 401")]))
CASES = cases(EXAMPLE, lesson.LESSON, at="lesson")


def test_the_example_is_a_lesson_that_reaches_every_declared_field():
    assert lesson.loads(json.dumps(EXAMPLE))[0].kind == "change"
    assert unreached(EXAMPLE, lesson.LESSON) == []


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_wrong_field_is_one_line_naming_its_path(case):
    with pytest.raises(ValidationError) as caught:
        lesson.loads(json.dumps(case.document))
    assert str(caught.value) == case.message


def test_a_number_of_thousands_of_digits_is_refused_in_one_line():
    with pytest.raises(ValidationError, match=r"^lesson: line 1, column 2: expected a number of at most 64 "
                                              r"characters, found one of 5000$"):
        lesson.loads("[" + "9" * 5000 + "]")
