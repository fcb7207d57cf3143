"""trec_eval's published values for its own test files, pinned as numbers.

The inputs (``qrels.test``, ``results.test``, ``qrels.rel_level``: trec_eval's ``test/`` folder, kept in
``../shared/data/trec_eval_test``) are not part of this repository; the tests skip when they are absent.
Each number below is copied from trec_eval's expected output files, produced by the command in the comment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics import aggregate, evaluate
from tests.paths import ROOT, SHARED

DATA = SHARED / "data" / "trec_eval_test"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"trec_eval's test data not found at {DATA}")

# trec_eval qrels.test results.test   (out.test, 10.0; 9.0.8 differs only where noted)
SUMMARY = {
    "num_q": 3, "num_ret": 1500, "num_rel": 561, "num_rel_ret": 131, "map": 0.1785, "gm_map": 0.1051,
    "Rprec": 0.2174, "bpref": 0.1981, "recip_rank": 0.4064, "iprec_at_recall_0.00": 0.4665,
    "iprec_at_recall_0.10": 0.3885, "iprec_at_recall_0.50": 0.2184, "iprec_at_recall_0.60": 0.0858,
    "iprec_at_recall_1.00": 0.0312, "P_5": 0.2667, "P_10": 0.3000, "P_100": 0.2467, "P_1000": 0.0437,
}
SUMMARY_9 = {**SUMMARY, "iprec_at_recall_0.10": 0.3884, "iprec_at_recall_0.60": 0.0822}  # v9.0.8/out.test

# trec_eval -q -m all_trec qrels.test results.test   (out.test.aq, 10.0)
PER_QUERY = {
    "301": {"map": 0.0324, "bpref": 0.1230, "recip_rank": 0.1667, "P_10": 0.2000, "ndcg": 0.1584,
            "ndcg_cut_10": 0.1518, "map_cut_100": 0.0118, "rbp": 0.1861},
    "302": {"map": 0.4175, "bpref": 0.4712, "recip_rank": 1.0000, "P_10": 0.7000, "ndcg": 0.6617,
            "ndcg_cut_10": 0.7530, "map_cut_100": 0.3983, "rbp": 0.7628},
    "303": {"map": 0.0858, "bpref": 0.0000, "recip_rank": 0.0526, "P_10": 0.0000, "ndcg": 0.3862,
            "ndcg_cut_10": 0.0000, "map_cut_100": 0.0764, "rbp": 0.0212},
}


@pytest.mark.parametrize("preset, expected", [("trec_eval-10", SUMMARY), ("trec_eval-9", SUMMARY_9)])
def test_summary_of_out_test(preset, expected):
    per_query = evaluate(DATA / "qrels.test", {"STANDARD": DATA / "results.test"}, list(expected), preset=preset)
    got = dict(zip(*aggregate(per_query)[["measure", "value"]].to_numpy().T))
    assert {label: round(float(got[label]), 4) for label in expected} == expected


def test_per_query_values_of_out_test_aq():
    labels = sorted({label for values in PER_QUERY.values() for label in values})
    frame = evaluate(DATA / "qrels.test", {"STANDARD": DATA / "results.test"}, labels, preset="trec_eval-10")
    got = {(q, m): round(v, 4) for q, m, v in zip(frame["query"], frame["measure"], frame["value"])}
    assert {(q, m): got[(q, m)] for q, values in PER_QUERY.items() for m in values} == \
        {(q, m): v for q, values in PER_QUERY.items() for m, v in values.items()}
