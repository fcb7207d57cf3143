"""The lint report: each finding, its count, examples and message, returned as data."""

from __future__ import annotations

from metrics import LintItem, lint, lint_frame, rank_runs, read_qrels, read_run

QRELS = read_qrels("1 0 a 1\n1 0 b 0\n2 0 c 0\n3 0 d 2\n", name="q")


def codes(items):
    return {i.code: i for i in items}


def test_clean_collection_has_no_findings():
    run = read_run("1 Q0 a 1 3 x\n2 Q0 c 1 2 x\n3 Q0 d 1 1 x\n", name="x")
    assert lint(read_qrels("1 0 a 1\n2 0 c 1\n3 0 d 2\n"), [run]) == []


def test_missing_topics_on_either_side_and_topics_without_relevant():
    run = read_run("1 Q0 a 1 3 x\n9 Q0 z 1 1 x\n8 Q0 y 1 1 x\n", name="x")
    found = codes(lint(QRELS, [run]))
    assert found["topics-without-relevant"] == LintItem(
        "topics-without-relevant", "warning", "qrels",
        "1 judged topic(s) have no relevant document: AP, nDCG and recall are 0 for them in every run", 1, ("2",))
    assert found["run-topics-not-judged"].count == 2 and found["run-topics-not-judged"].examples == ("8", "9")
    assert found["judged-topics-not-in-run"].examples == ("2", "3")
    assert found["judged-topics-not-in-run"].source == "x"


def test_ties_and_straddles_are_counted_per_cutoff():
    # query 1: ranks 4-6 tie (straddles 5); query 3: ranks 10-11 tie (straddles 10); no tie at 20
    scores = [9, 8, 7, 5, 5, 5, 4, 3, 2, 1, 0]
    lines = [f"1 Q0 d{i} {i} {s} x" for i, s in enumerate(scores, start=1)]
    lines += [f"3 Q0 e{i} {i} {90 if i in (10, 11) else 100 - i} x" for i in range(1, 25)]
    run = read_run("\n".join(lines) + "\n", name="x")
    tied = codes(lint(QRELS, [run]))["tied-scores"]
    assert tied.count == 5
    assert tied.message.endswith("Topics with a tie across the cutoff @5: 1, @10: 1, @20: 0")
    assert rank_runs(QRELS, [run])[0].ties["straddles"] == {5: 1, 10: 1, 20: 0}


def test_float32_collapses_near_ties_into_ties_and_float64_does_not():
    run = read_run("1 Q0 a 1 1.000000001 x\n1 Q0 b 2 1.0 x\n", name="x")
    assert codes(lint(QRELS, [run]))["tied-scores"].count == 2
    assert "tied-scores" not in codes(lint(QRELS, [run], rank_runs(QRELS, [run], preset="trec_eval-10")))


def test_scores_beyond_float32():
    run = read_run("1 Q0 a 1 1e300 x\n1 Q0 b 2 1e301 x\n1 Q0 c 3 1 x\n", name="x")
    item = codes(lint(QRELS, [run]))["scores-beyond-float32"]
    assert item.count == 2 and item.severity == "warning"
    assert "scores-beyond-float32" not in codes(lint(QRELS, [run], rank_runs(QRELS, [run], preset="trec_eval-10")))


def test_rank_column_contradicting_scores():
    run = read_run("1 Q0 a 2 3 x\n1 Q0 b 1 2 x\n3 Q0 d 1 1 x\n", name="x")
    item = codes(lint(QRELS, [run]))["rank-contradicts-score"]
    assert item.count == 1 and item.examples == ("1",)


def test_lint_frame_is_one_row_per_finding():
    run = read_run("9 Q0 z 1 1 x\n", name="x")
    frame = lint_frame(lint(QRELS, [run]))
    assert list(frame.columns) == ["code", "severity", "source", "message", "count", "examples"]
    assert frame["code"].tolist() == ["topics-without-relevant", "run-topics-not-judged", "judged-topics-not-in-run"]
    assert frame.loc[2, "examples"] == "1, 2, 3"
