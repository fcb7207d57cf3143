"""A session file with any one field wrong is refused in one line naming the field's path.

Every field that ``SESSION`` declares is made wrong in turn (a value of another kind, left out when
required, an unknown field beside it) by ``tests/documents.py``: a field added to the declaration is covered
here without a line of this file changing, and the example below must reach it.
"""

from __future__ import annotations

import json

import pytest

from dashboard.exports.session_file import SESSION, session_from_json, session_to_json
from metrics.errors import ValidationError
from tests.documents import cases, unreached

EXAMPLE = json.loads(session_to_json({"bm25": "bm25.run", "dense": "dense.run"}, None,
                                     {"401": {"tags": ["hard"], "comment": "check the pool"}},
                                     {"page": "overview", "systems": ["bm25", "dense"], "alpha": 0.05},
                                     qrels_name="qrels.txt", digests={"qrels": "0" * 64, "bm25": "1" * 64},
                                     judging=[{"task": "week 1", "method": "decide",
                                               "scale": [{"grade": 0, "label": "no"}, {"grade": 1, "label": "yes"}],
                                               "judgments": [{"topic": "401", "docid": "d1", "assessor": "ana",
                                                              "grade": 1, "skipped": False,
                                                              "judged_at": "2026-11-29T15:00:00Z"}],
                                               "adjudications": [{"topic": "401", "docid": "d1", "grade": 0,
                                                                  "decided_by": "bea",
                                                                  "decided_at": "2026-11-29T15:01:00Z"}]}]))
CASES = cases(EXAMPLE, SESSION)


def test_the_example_is_a_session_file_that_reaches_every_declared_field():
    assert session_from_json(json.dumps(EXAMPLE)).systems == ("bm25", "dense")
    assert unreached(EXAMPLE, SESSION) == []
    assert len(CASES) > 30


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_wrong_field_is_one_line_naming_its_path(case):
    with pytest.raises(ValidationError) as caught:
        session_from_json(json.dumps(case.document).encode())
    assert str(caught.value) == case.message
