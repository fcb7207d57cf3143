"""Runs and qrels given as the frames of PyTerrier and ir_measures read as the same collection as the files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import ValidationError, evaluate, read_qrels, read_run
from metrics.io.frames import FRAME_SHAPES

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"
RUN = "1 Q0 a 1 3.5 x\n1 Q0 c 2 3.5 x\n1 Q0 b 3 1.25 x\n2 Q0 e 1 2.0 x\n2 Q0 z 2 1.0 x\n3 Q0 f 1 0.5 x\n"
MEASURES = ["AP", "nDCG@10", "P@2", "RR", "R@100"]


def _pyterrier(run, qrels):
    """Frames as PyTerrier gives them: ``qid, docid (its own number), docno, score, rank (from 0), query``."""
    ranked = run.frame.sort_values(["query", "score"], ascending=[True, False], kind="stable")
    out = pd.DataFrame({"qid": ranked["query"], "docid": np.arange(len(ranked)), "docno": ranked["docid"],
                        "score": ranked["score"], "query": "text of " + ranked["query"]})
    out["rank"] = out.groupby("qid").cumcount()
    judged = qrels.frame.rename(columns={"query": "qid", "docid": "docno", "relevance": "label"})
    return out, judged


def _ir_measures(run, qrels):
    """ir_measures' frames: ``query_id, doc_id, score`` and ``query_id, doc_id, relevance, iteration``."""
    out = run.frame.rename(columns={"query": "query_id", "docid": "doc_id"})[["query_id", "doc_id", "score"]]
    judged = qrels.frame.rename(columns={"query": "query_id", "docid": "doc_id"}).assign(iteration="0")
    return out, judged


@pytest.mark.parametrize("shape", [_pyterrier, _ir_measures])
def test_each_shape_evaluates_as_the_files(shape):
    qrels, run = read_qrels(QRELS), read_run(RUN, name="x")
    frame, judged = shape(run, qrels)
    expected = evaluate(QRELS, {"x": RUN}, MEASURES)
    got = evaluate(read_qrels(judged), {"x": frame}, MEASURES)
    pd.testing.assert_frame_equal(got, expected)
    back = read_run(frame, name="x").frame.sort_values(["query", "docid"]).reset_index(drop=True)
    want = run.frame.sort_values(["query", "docid"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(back[["query", "docid", "score"]], want[["query", "docid", "score"]])


def test_pyterrier_frame_is_read_by_qid_and_docno_not_its_query_text():
    frame, judged = _pyterrier(read_run(RUN, name="x"), read_qrels(QRELS))
    run = read_run(frame, name="x")
    assert set(run.frame["query"]) == {"1", "2", "3"}
    assert set(run.frame["docid"]) == {"a", "b", "c", "e", "z", "f"}
    assert read_qrels(judged).frame["relevance"].tolist() == [2, 0, 1, 1, 0, 1]


def test_frames_of_another_shape_get_one_line_naming_the_shapes():
    with pytest.raises(ValidationError) as err:
        read_run(pd.DataFrame({"q": ["1"], "doc": ["a"], "score": [1.0]}), name="mine")
    message = str(err.value)
    assert "\n" not in message and message.startswith("mine: expected the columns of a run frame: ")
    for shape in FRAME_SHAPES:
        assert f"{shape.query}, {shape.docid}, score ({shape.tool})" in message
    assert message.endswith("found ['q', 'doc', 'score']")
    with pytest.raises(ValidationError, match=r"^<DataFrame>: expected the columns of a qrels frame: .*label \(PyTerrier\)"):
        read_qrels(pd.DataFrame({"qid": ["1"], "doc_id": ["a"], "label": [1]}))


def test_a_known_shape_missing_a_column_names_it():
    with pytest.raises(ValidationError, match=r"^<DataFrame>: expected columns \['qid', 'docno', 'label'\] "
                                              r"\(PyTerrier's qrels frame\), missing \['label'\]$"):
        read_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "relevance": [1]}))
    with pytest.raises(ValidationError, match=r"missing \['score'\]$"):
        read_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}))


def test_many_columns_are_named_only_in_part():
    frame = pd.DataFrame({f"c{i}": [i] for i in range(40)})
    with pytest.raises(ValidationError, match=r"found \['c0', .*'c11'\] and 28 more$"):
        read_run(frame)


def test_values_are_checked_under_their_own_column_name():
    with pytest.raises(ValidationError, match="^<DataFrame>: column 'docno' has missing values$"):
        read_run(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", None], "score": [1.0, 2.0]}))
    with pytest.raises(ValidationError, match="^<DataFrame>: column 'label' cannot be read as int64"):
        read_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [0.5]}))
