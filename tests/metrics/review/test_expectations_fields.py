"""An expectations file with any one field wrong is refused in one line naming the file and the field's path.

Every field that ``EXPECTATIONS`` declares, and every field of each kind of ``expect:`` entry
(``ENTRIES``), is made wrong in turn by ``tests/documents.py``: a field added to a declaration is covered
here without a line of this file changing.
"""

from __future__ import annotations

import re

import pytest

from metrics.errors import ParseError
from metrics.review.claims import read_expectations
from metrics.review.claims.schema import ENTRIES, EXPECTATIONS
from tests.documents import cases, unreached

ENTRY_EXAMPLES = {
    "threshold": {"system": "bm25", "measure": "AP", "value": 0.25, "tolerance": 0.001},
    "better": {"better": "dense", "than": "bm25", "measure": "nDCG@10", "test": "permutation", "correction": "holm",
               "alpha": 0.05, "pairs": "all", "seed": 1, "n_resamples": 999},
    "rank": {"system": "dense", "measure": "AP", "rank_at_most": 1, "ties": "worst"},
}
EXAMPLE = {"name": "nightly", "qrels": "qrels.txt", "runs": {"bm25": "bm25.run", "dense": "dense.run"},
           "conventions": {"relevance_level": 2, "complete": True}, "tolerance": 0.0005,
           "expect": list(ENTRY_EXAMPLES.values())}
KINDS_KEY = {"rank": (("rank_at_most",),)}  # without it a rank entry is no longer a rank claim
CASES = [(case.id, case.document, case.message) for case in cases(EXAMPLE, EXPECTATIONS)] + [
    (f"{kind}:{case.id}", {**EXAMPLE, "expect": [case.document]}, case.message)  # the file's one claim
    for kind, entry in ENTRY_EXAMPLES.items()
    for case in cases(entry, ENTRIES[kind], at="expect[0]", keep=KINDS_KEY.get(kind, ()))
]


def test_the_example_holds_a_claim_of_every_kind_and_reaches_every_declared_field():
    spec = read_expectations(EXAMPLE, source="e.yaml")
    assert [claim.kind for claim in spec.claims] == list(ENTRIES)
    assert unreached(EXAMPLE, EXPECTATIONS) == []
    assert all(unreached(entry, ENTRIES[kind]) == [] for kind, entry in ENTRY_EXAMPLES.items())


@pytest.mark.parametrize("document, message", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_wrong_field_is_one_line_naming_the_file_and_its_path(document, message):
    with pytest.raises(ParseError) as caught:
        read_expectations(document, source="e.yaml")
    assert re.sub(r"^e\.yaml(:\d+)?: ", "", str(caught.value)) == message
    assert str(caught.value).startswith("e.yaml")
