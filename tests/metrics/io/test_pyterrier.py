"""PyTerrier's saved results read into rankscope's tidy frames, and compared from the command line.

The tables come from PyTerrier itself: ``pt.Experiment`` (python-terrier, whose evaluation needs no Java)
over runs held as frames, with ``save_dir`` writing its ``perquery.csv`` and ``aggregated.csv``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

pt = pytest.importorskip("pyterrier", reason="python-terrier (the source of the tables) is not installed")

from metrics import evaluate  # noqa: E402
from metrics.errors import ParseError  # noqa: E402
from metrics.io.pyterrier import _per_query_exact, read_pyterrier_aggregate, read_pyterrier_per_query  # noqa: E402
from rankscope.cli import main  # noqa: E402
from tests.random_collections import random_collection  # noqa: E402

MEASURES = ["nDCG@10", "AP(rel=2)", "P@5", "R@1000", "RR", "ndcg_cut_20"]


def experiment(tmp_path, seed: int = 3, systems: int = 3, **options):
    """``pt.Experiment`` on ``systems`` random runs of one collection: (per-query frame, aggregated frame, qrels
    text, run texts), with perquery.csv and aggregated.csv written to ``tmp_path``."""
    import ir_measures

    base = random_collection(seed, max_queries=12, max_docs=50)
    qids = sorted(q for q in base.qrels)
    topics = pd.DataFrame({"qid": qids, "query": ["q"] * len(qids)})
    qrels = pd.DataFrame([(q, d, g) for q, docs in base.qrels.items() for d, g in docs.items()],
                         columns=["qid", "docno", "label"])
    rng = np.random.default_rng(seed)
    runs, texts, names = [], {}, [f"sys{i}" for i in range(systems)]
    for name in names:
        rows = [(q, d, float(rng.integers(0, 6))) for q in qids for d in list(base.qrels[q])[:8] + ["x1", "x2"]]
        frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
        runs.append(pt.Transformer.from_df(pt.model.add_ranks(frame)))
        texts[name] = "".join(f"{q} Q0 {d} 0 {s!r} {name}\n" for q, d, s in rows)
    metrics_ = [ir_measures.parse_measure(m) if "_" not in m else m for m in MEASURES] + ["mrt"]
    per_query = pt.Experiment(runs, topics, qrels, metrics_, names=names, perquery=True, **options)
    aggregated = pt.Experiment(runs, topics, qrels, metrics_, names=names, baseline=0, save_dir=str(tmp_path),
                               save_mode="overwrite", **options)
    return per_query, aggregated, base.qrels_text, texts


def test_per_query_frame_and_file_read_alike(tmp_path):
    frame, _, _, _ = experiment(tmp_path)
    from_frame = read_pyterrier_per_query(frame)
    from_file = read_pyterrier_per_query(tmp_path / "perquery.csv")
    pd.testing.assert_frame_equal(from_frame.frame, from_file.frame)
    assert list(from_frame.frame.columns) == ["system", "query", "measure", "value"]
    # labelled by rankscope's parser: ir_measures and trec_eval spellings alike
    assert set(from_frame.frame["measure"]) == {"nDCG@10", "AP(rel=2)", "P@5", "R@1000", "RR", "nDCG@20"}
    # the values are PyTerrier's, row for row
    want = {(r.name, r.qid, r.measure): r.value for r in frame.itertuples()}
    label = {"ndcg_cut_20": "nDCG@20", "AP(rel=2)": "AP(rel=2)"}
    got = {(r.system, r.query, r.measure): r.value for r in from_frame.frame.itertuples()}
    assert got == {(s, q, label.get(m, m)): v for (s, q, m), v in want.items()}


def test_the_column_reader_and_the_line_reader_agree(tmp_path):
    """The table is read column by column, and line by line only when something is wrong (to name the line)."""
    frame, _, _, _ = experiment(tmp_path, seed=9)
    path = tmp_path / "perquery.csv"
    path.write_text(path.read_text().replace(",", " , ") + "\n\n")  # spaces around cells, blank lines
    for source in (frame, path):
        exact = _per_query_exact(source, None, "error").frame
        pd.testing.assert_frame_equal(read_pyterrier_per_query(source).frame, exact)


def test_a_missing_qid_in_a_frame_is_named():
    frame = pd.DataFrame({"name": ["a", "a"], "qid": ["1", None], "measure": ["AP", "AP"], "value": [0.5, 0.25]})
    with pytest.raises(ParseError, match=r"^<frame>:3: expected a qid, found no value$"):
        read_pyterrier_per_query(frame)


def test_a_short_row_is_never_read_as_nan(tmp_path):
    path = tmp_path / "perquery.csv"
    path.write_text("name,value,measure,qid\nBM25,0.5,AP,1\nBM25,0.25,AP\n")
    with pytest.raises(ParseError, match=r"^perquery.csv:3: expected 4 fields"):
        read_pyterrier_per_query(path)


def test_pyterrier_values_equal_rankscopes_own(tmp_path):
    """The same runs evaluated by rankscope give PyTerrier's numbers (PyTerrier evaluates through ir_measures)."""
    frame, _, qrels_text, texts = experiment(tmp_path, seed=5)
    read = read_pyterrier_per_query(frame).frame
    mine = evaluate(qrels_text, texts, sorted(set(read["measure"])))
    table = {(s, q, m): v for s, q, m, v in mine.itertuples(index=False)}
    for r in read.itertuples():
        assert abs(table[(r.system, r.query, r.measure)] - r.value) <= 1e-9, r


def test_aggregated_file_leaves_mrt_and_the_baseline_columns_out_by_name(tmp_path):
    _, aggregated, _, _ = experiment(tmp_path)
    result = read_pyterrier_aggregate(tmp_path / "aggregated.csv")
    assert "mrt" in result.ignored and "nDCG@10 p-value" in result.ignored and "nDCG@10 +" in result.ignored
    assert set(result.frame["measure"]) == {"nDCG@10", "AP(rel=2)", "P@5", "R@1000", "RR", "nDCG@20"}
    for r in result.frame.itertuples():
        column = "ndcg_cut_20" if r.measure == "nDCG@20" else r.measure
        want = aggregated.loc[aggregated["name"] == r.system, column].item()
        assert r.value == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("test, oracle", [
    ("t", lambda a, b: stats.ttest_rel(a, b).pvalue),
    ("wilcoxon", lambda a, b: stats.wilcoxon(a, b).pvalue),
])
def test_compare_per_query_p_values_equal_scipys(tmp_path, capsys, test, oracle):
    frame, _, _, _ = experiment(tmp_path, systems=2, seed=7)
    assert main(["compare", "--per-query", str(tmp_path / "perquery.csv"), "-m", "ndcg_cut_10", "-m", "P@5",
                 "--test", test, "--correction", "none", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    tests = pd.read_csv(pd.io.common.StringIO(out))
    assert sorted(tests["measure"]) == ["P@5", "nDCG@10"]
    for row in tests.itertuples():
        pick = frame[frame["measure"] == row.measure].pivot(index="qid", columns="name", values="value")
        assert row.p_value == pytest.approx(oracle(pick[row.system_a], pick[row.system_b]), rel=1e-12, abs=0)


def test_compare_per_query_says_whose_values_they_are(tmp_path, capsys):
    experiment(tmp_path, systems=2)
    assert main(["compare", "--per-query", str(tmp_path / "perquery.csv"), "-m", "RR"]) == 0
    out = capsys.readouterr().out
    assert "note: the values are PyTerrier's, read from " in out and "nDCG" not in out  # only RR was compared


def test_compare_per_query_refuses_runs_beside_it(tmp_path, capsys):
    experiment(tmp_path, systems=2)
    assert main(["compare", "qrels.txt", "--per-query", str(tmp_path / "perquery.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected no qrels or runs beside it" in err


HEAD = "name,qid,measure,value\n"


@pytest.mark.parametrize("text, line, words", [
    ("name,qid,value\nBM25,1,0.5\n", 1, "missing measure"),
    (HEAD + "BM25,1,nDCG@10,0.5\nBM25,2,nDCG@10,high\n", 3, "expected a number as value, found 'high'"),
    (HEAD + "BM25,1,nDCG@10,0.5\nBM25,2,nDCG@10,nan\n", 3, "expected a finite number"),
    (HEAD + "BM25,1,nDCG@10,0.5\nBM25,1,nDCG@10,0.6\n", 3, "found (BM25, 1, nDCG@10) again (first on line 2)"),
    (HEAD + "BM25,1,nDCG@10,0.5\nBM25,1,ndcg_cut_10,0.6\n", 3, "again"),  # one measure, two spellings
    (HEAD + "BM25,1,alpha_nDCG@20,0.5\n", 2, "unknown measure 'alpha_nDCG'"),
    (HEAD + "BM25,1,nDCG@10\n", 2, "expected 4 fields"),
    (HEAD + "BM25,1,AP,0.5\nBM25,,AP,0.5\n", 3, "expected a qid, found an empty field"),
])
def test_bad_rows_get_one_line_with_file_and_line(tmp_path, text, line, words):
    path = tmp_path / "perquery.csv"
    path.write_text(text)
    with pytest.raises(ParseError) as err:
        read_pyterrier_per_query(path)
    message = str(err.value)
    assert message.startswith(f"perquery.csv:{line}: ") and words in message and "\n" not in message


def test_unknown_measures_can_be_left_out_by_name():
    frame = pd.DataFrame({"name": ["a", "a", "a"], "qid": ["1", "1", "1"], "measure": ["alpha_nDCG@20", "AP", "mrt"],
                          "value": [0.5, 0.25, 12.0]})
    result = read_pyterrier_per_query(frame, unknown="ignore")
    assert result.frame["measure"].tolist() == ["AP"] and set(result.ignored) == {"alpha_nDCG@20", "mrt"}
    with pytest.raises(ParseError, match=r"^<frame>:2: "):
        read_pyterrier_per_query(frame)
