"""A view with any one query parameter wrong is refused in one line naming the parameter.

Every part of the view that ``VIEW`` declares (a name, a value, an item of a repeated value) is made wrong
in turn by ``tests/documents.py``, with Python's spelling (a view comes from the dashboard, not a file).
"""

from __future__ import annotations

import json

import pytest

from tests.documents import cases, unreached
from workspace.errors import WorkspaceError
from workspace.presenting import VIEW, view_of

EXAMPLE = {"measure": "nDCG@10", "systems": ["bm25", "dense"]}
CASES = cases(EXAMPLE, VIEW, json=False)


def test_the_example_is_a_view_that_reaches_every_declared_part():
    assert json.loads(view_of(EXAMPLE)) == EXAMPLE
    assert unreached(EXAMPLE, VIEW) == []
    assert {case.id for case in CASES} >= {"<document>.<key>=wrong", "measure=wrong", "systems.0=wrong"}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_wrong_part_is_one_line_naming_it(case):
    with pytest.raises(WorkspaceError) as caught:
        view_of(case.document)
    assert str(caught.value) == f"a view: {case.message}"
