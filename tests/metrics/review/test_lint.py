"""The lint report: each finding, its count, examples and message, returned as data."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from metrics import Conventions, LintItem, Run, lint, lint_frame, rank_runs, read_qrels, read_run

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
    found = codes(lint(QRELS, [run]))
    assert found["rank-contradicts-score"] == LintItem(
        "rank-contradicts-score", "warning", "x",
        "in 1 topic(s) the rank column contradicts the scores (a document ranks above one with a higher score); "
        "the rank column is ignored, documents are ordered by score", 1, ("1",))
    assert "rank-reorders-ties" not in found


def test_ranks_that_only_reorder_tied_scores_are_harmless():
    # trec_eval orders ties by docid descending (b before a); the file ranks a first: same scores, no harm
    run = read_run("1 Q0 a 1 2 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n3 Q0 d 1 5 x\n3 Q0 e 2 4 x\n", name="x")
    found = codes(lint(QRELS, [run]))
    assert found["rank-reorders-ties"] == LintItem(
        "rank-reorders-ties", "info", "x",
        "in 1 topic(s) the rank column orders tied scores differently from trec_eval; harmless: trec_eval "
        "ignores the rank column and breaks ties by document id, descending", 1, ("1",))
    assert "rank-contradicts-score" not in found


def test_a_contradiction_hidden_behind_a_tie_is_still_a_contradiction():
    # ranked order z (3), c (2), b (2): neighbours only disagree within the tie, but z (score 3) has rank 2
    # while c (score 2) has rank 1
    run = read_run("1 Q0 z 2 3 x\n1 Q0 b 3 2 x\n1 Q0 c 1 2 x\n3 Q0 f 1 1 x\n3 Q0 e 2 1 x\n", name="x")
    found = codes(lint(QRELS, [run]))
    assert found["rank-contradicts-score"].examples == ("1",)
    assert "rank-reorders-ties" not in found


def test_rank_checks_follow_the_conventions_ties_and_skip_ranks_that_are_not_numbers():
    # under float32 the two scores tie (trec_eval then puts b first), so the ranks only reorder a tie;
    # under float64 they agree with the scores
    run = read_run("1 Q0 a 1 1.000000001 x\n1 Q0 b 2 1.0 x\n1 Q0 c n/a 0.5 x\n1 Q0 d n/a 5 x\n", name="x")
    found = codes(lint(QRELS, [run]))
    assert found["rank-reorders-ties"].examples == ("1",) and "rank-contradicts-score" not in found
    precise = codes(lint(QRELS, [run], rank_runs(QRELS, [run], preset="trec_eval-10")))
    assert "rank-contradicts-score" not in precise and "rank-reorders-ties" not in precise


def test_rank_checks_over_many_topics():
    # scores 10 9 9 8 8 7 7 6 for d1..d8: odd topics rank them in file order (ties reordered), even topics
    # in reverse (contradicted)
    topics = range(1, 2001)
    qrels = read_qrels("".join(f"{q} 0 d1 1\n" for q in topics))
    lines = [f"{q} Q0 d{i} {i if q % 2 else 9 - i} {10 - i // 2} x\n" for q in topics for i in range(1, 9)]
    found = codes(lint(qrels, [read_run("".join(lines), name="x")]))
    assert found["rank-reorders-ties"].count == 1000
    assert found["rank-reorders-ties"].examples[:2] == ("1", "1001")  # byte-wise order
    assert found["rank-contradicts-score"].count == 1000


def test_lint_frame_is_one_row_per_finding():
    run = read_run("9 Q0 z 1 1 x\n", name="x")
    frame = lint_frame(lint(QRELS, [run]))
    assert list(frame.columns) == ["code", "severity", "source", "message", "count", "examples"]
    assert frame["code"].tolist() == ["topics-without-relevant", "run-topics-not-judged", "judged-topics-not-in-run"]
    assert frame.loc[2, "examples"] == "1, 2, 3"


def test_ties_straddling_a_requested_cutoff_name_topics_and_the_range():
    qrels = read_qrels("1 0 a 1\n1 0 b 1\n2 0 c 1\n")
    run = read_run("1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 z 3 2 x\n2 Q0 c 1 3 x\n2 Q0 y 2 2 x\n2 Q0 w 3 1 x\n", name="x")
    assert "ties-straddle-cutoff" not in codes(lint(qrels, [run]))
    item = codes(lint(qrels, [run], measures=["P@2", "AP"]))["ties-straddle-cutoff"]
    # topic 1: z (unjudged) before b by docid, P@2 0.5, or 1 with b first; topic 2: 0.5 whatever the order
    assert (item.source, item.count, item.examples) == ("x", 1, ("1",))
    assert item.message.endswith("straddle rank 2 of P@2: by the order of the ties alone its mean ranges "
                                 "0.5000..0.7500 (reported 0.5000)")


def test_judged_rates_that_differ_by_more_than_the_threshold():
    qrels = read_qrels("".join(f"1 0 j{i} {i % 2}\n" for i in range(10)))
    pooled = read_run("".join(f"1 Q0 j{i} {i + 1} {10 - i} p\n" for i in range(10)), name="pooled")
    # 8 of 10 judged: Judged@10 0.8, a gap of 0.2 from the pooled run's 1.0
    outside = read_run("".join(f"1 Q0 {'j' if i < 8 else 'u'}{i} {i + 1} {10 - i} o\n" for i in range(10)),
                       name="outside")
    item = codes(lint(qrels, [pooled, outside]))["judged-rate-gap"]
    assert (item.source, item.examples) == ("outside", ("pooled",))
    assert item.message.startswith("mean Judged@10 is 0.80 against 1.00 for pooled")
    assert "judged-rate-gap" not in codes(lint(qrels, [pooled, outside], judged_gap=0.21))
    assert "judged-rate-gap" in codes(lint(qrels, [pooled, outside], judged_gap=0.19))
    assert "judged-rate-gap" not in codes(lint(qrels, [pooled, outside], judged_cutoff=8))


def _textbook_rank_disagreements(rk):
    """Per topic, in ranked order: contradicted when a document ranks above one with a lower score but has a
    larger rank; else reordered when two neighbours of equal score have ranks in the opposite order."""
    ranks = rk.run.table.column("rank").to_numpy()[rk.rows]
    score = rk.scores()
    contradicted, reordered = [], []
    for t, query in enumerate(rk.queries):
        lo, hi = rk.offsets[t], rk.offsets[t + 1]
        r, s = ranks[lo:hi], score[lo:hi]
        if any(s[i] > s[j] and r[i] > r[j] for i in range(len(r)) for j in range(i + 1, len(r))
               if not (np.isnan(r[i]) or np.isnan(r[j]))):
            contradicted.append(query)
        elif any(s[i] == s[i + 1] and r[i + 1] < r[i] for i in range(len(r) - 1)):
            reordered.append(query)
    return contradicted, reordered


def _ordered_file_topic(rng, q: int, kind: int) -> list[str]:
    """One topic's lines as most files give them: scores never rising, ranks 1, 2, 3 ... down the lines, tied
    scores listed in any order of their ids. ``kind`` 6: sometimes one score rises all the same (a contradiction
    the ranks alone do not show); 7: scores that tie only in float32; 8: ids descending down the lines, as
    trec_eval orders ties (the file is the ranked order)."""
    n = int(rng.integers(1, 15))
    if kind == 7:
        scores = np.sort(1.0 + rng.integers(0, 3, n) * 1e-9 + rng.integers(0, 2, n))[::-1]
    else:
        scores = np.sort(rng.integers(0, 5, n).astype(float))[::-1]
    if kind == 6 and n > 1 and rng.random() < 0.4:
        i = int(rng.integers(0, n - 1))
        scores[i], scores[i + 1] = scores[i + 1], scores[i]
    docs = np.arange(n)[::-1] if kind == 8 else rng.permutation(n)
    return [f"{q} Q0 d{docs[i]:02d} {i + 1} {scores[i]:.17g} x\n" for i in range(n)]


@pytest.mark.parametrize("seed", range(54))
def test_rank_checks_agree_with_a_textbook_loop(seed):
    from metrics.review.lint import _rank_disagreements, _ranks_follow_scores

    rng = np.random.default_rng(seed)
    kind = seed % 9  # 0-5: ranks against scores in many ways; 6-8: files in score order, ties in any order
    lines = []
    for q in range(1, int(rng.integers(2, 12))):
        if kind >= 6:
            lines += _ordered_file_topic(rng, q, kind)
            continue
        n = int(rng.integers(1, 15))
        scores = rng.integers(0, 5, n).astype(float)
        ranks = np.argsort(-scores + rng.normal(0, 1.5, n)).argsort() + 1.0
        if kind == 5:  # distinct scores ranked in their order: nothing to report (or one swap, in some topics)
            scores = rng.permutation(n).astype(float)
            ranks = np.argsort(-scores).argsort() + 1.0
            if n > 1 and rng.random() < 0.3:
                scores[np.flatnonzero(ranks == 2)] = scores[np.flatnonzero(ranks == 1)]
        if kind == 1:
            ranks = ranks * int(rng.integers(1, 4)) - int(rng.integers(0, 10))
        elif kind == 2:
            ranks = ranks / 3 + rng.integers(0, 2, n) * 0.5
        elif kind == 3:
            ranks = ranks * 1e17
        text = [f"{r:.17g}" for r in ranks]
        if kind == 4:
            text = [t if rng.random() < 0.7 else "n/a" for t in text]
        lines += [f"{q} Q0 d{i} {text[i]} {scores[i]:g} x\n" for i in range(n)]
    if kind == 8 and len(lines) > 2:  # a line moved to the end of the file: its topic in two blocks, mostly
        lines.append(lines.pop(int(rng.integers(0, len(lines) - 1))))
    run = read_run("".join(lines), name="x")
    qrels = read_qrels("".join(f"{q} 0 d0 1\n" for q in range(1, 12)))
    if kind in (7, 8):
        assert _ranks_follow_scores(run) == (kind == 7)
    # the same lines in batches of 1 to 4 rows: the checks read the columns batch by batch
    batches = pa.Table.from_batches(run.table.to_batches(max_chunksize=int(rng.integers(1, 5))))
    for preset in ("trec_eval-9", "trec_eval-10"):
        for table in (run.table, batches):
            rk = rank_runs(qrels, [Run(name="x", table=table)], Conventions(preset=preset))[0]
            contradicted, reordered = _rank_disagreements(rk)
            assert (list(contradicted), list(reordered)) == _textbook_rank_disagreements(rk)
