"""Runs and qrels written as TREC files read back to the same tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import ValidationError, evaluate, read_qrels, read_run
from metrics.io.writers import qrels_bytes, run_bytes


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["query", "docid"]).reset_index(drop=True)


def test_a_random_run_with_ties_reads_back_the_same():
    rng = np.random.default_rng(7)
    n = 400
    scores = np.concatenate([rng.normal(size=n - 100), rng.choice([0.1, 1e-05, 3e20, -0.0, 1 / 3], 100)])
    frame = pd.DataFrame({"qid": rng.integers(1, 30, n).astype(str), "docno": [f"d{i}" for i in range(n)],
                          "score": scores})
    run = read_run(frame, name="some run")
    back = read_run(run_bytes(run))
    assert back.name == "<bytes>" and back.tag == "some_run"
    pd.testing.assert_frame_equal(_sorted(back.frame)[["query", "docid", "score"]],
                                  _sorted(run.frame)[["query", "docid", "score"]])
    ranks = back.frame.groupby("query", sort=False)["rank"].apply(list)
    assert all(r == list(range(1, len(r) + 1)) for r in ranks)  # each query numbered from 1 in file order
    qrels = read_qrels(pd.DataFrame({"query_id": frame["qid"], "doc_id": frame["docno"],
                                     "relevance": rng.integers(-1, 4, n)}))
    again = read_qrels(qrels_bytes(qrels))
    pd.testing.assert_frame_equal(again.frame, qrels.frame)
    measures = ["AP", "nDCG@10", "P@5", "RR"]
    pd.testing.assert_frame_equal(evaluate(again, {"x": back}, measures), evaluate(qrels, {"x": run}, measures))


@pytest.mark.parametrize("docid", ["a b", "", "a\tb", "a\nb"])
def test_ids_a_trec_file_cannot_hold_get_one_line(docid):
    run = read_run(pd.DataFrame({"query": ["1", "1"], "docid": ["ok", docid], "score": [1.0, 2.0]}), name="mine")
    with pytest.raises(ValidationError) as err:
        run_bytes(run)
    assert "\n" not in str(err.value) and str(err.value).startswith("mine: a document id cannot be written")
    assert str(err.value).endswith(f"found {docid!r}")
