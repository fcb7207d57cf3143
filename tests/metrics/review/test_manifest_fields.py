"""A manifest with any one field wrong is refused in one line naming the field's path.

Every field that ``MANIFEST`` declares is made wrong in turn by ``tests/documents.py``: a field added to
the declaration is covered here without a line of this file changing, and the example below must reach it.
"""

from __future__ import annotations

import pytest

from metrics.errors import ValidationError
from metrics.review.manifest import Manifest, build_manifest
from metrics.review.manifest.records import MANIFEST
from tests.documents import cases, unreached

QRELS = b"1 0 a 2\n1 0 b 0\n2 0 d 1\n"
RUN = b"1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n2 Q0 d 1 1.0 A\n"
EXAMPLE = build_manifest(QRELS, {"A": RUN, "B": RUN}, ["AP", "nDCG@10"], seeds={"compare": 3},
                         command=["rankscope", "eval", "q.txt", "a.run"], qrels_name="q.txt",
                         tests={"test": "permutation", "correction": "holm", "alpha": 0.05, "baseline": "A"},
                         ir_metadata={"A": {"tag": "A", "actor": {"team": "x"}}}).to_dict()
EXAMPLE["caveats"] = ["a caveat"]
CASES = cases(EXAMPLE, MANIFEST, at="manifest")


def test_the_example_is_a_manifest_that_reaches_every_declared_field():
    assert Manifest.from_dict(EXAMPLE).systems == ("A", "B")
    assert unreached(EXAMPLE, MANIFEST) == []


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_wrong_field_is_one_line_naming_its_path(case):
    with pytest.raises(ValidationError) as caught:
        Manifest.from_dict(case.document)
    assert str(caught.value) == case.message
