"""The replay against its oracles: at every check, Kendall's tau-b (scipy) of the runs' MAP (pytrec_eval) under
the judgments made so far against their MAP under the complete judgments, on a part of Cranfield."""

from __future__ import annotations

import math
import os

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")

from scipy.stats import kendalltau  # noqa: E402

from metrics.conventions import Conventions  # noqa: E402
from metrics.io import read_qrels, read_run  # noqa: E402
from metrics.judgments.candidates import gather  # noqa: E402
from metrics.judgments.pooling import make_proposer  # noqa: E402
from metrics.judgments.simulation import TAU, simulate  # noqa: E402
from tests import pool_runs  # noqa: E402

RANKERS = ("bm25", "tfidf", "overlap", "lm")
TOPICS = 12
DEPTH = 10
EXACT = Conventions(preset="trec_eval-10")  # 64-bit scores, as pytrec_eval reads them


@pytest.fixture(scope="module")
def cranfield():
    if not pool_runs.available("cranfield"):
        if os.environ.get("CI") == "true":
            pytest.fail(f"Cranfield not found at {pool_runs.COLLECTIONS['cranfield']}")
        pytest.skip(f"Cranfield not found at {pool_runs.COLLECTIONS['cranfield']}")
    wanted = {str(t) for t in range(1, TOPICS + 1)}
    runs = {r: "".join(line + "\n" for line in pool_runs.runs("cranfield")[r].splitlines()
                       if line.split()[0] in wanted) for r in RANKERS}
    qrels = "".join(line + "\n" for line in pool_runs.collection("cranfield")[3].splitlines()
                    if line.split()[0] in wanted)
    return runs, qrels


def top(text: str) -> dict[str, dict[str, float]]:
    """Each topic's first DEPTH documents in trec_eval's order (score descending, then id descending)."""
    rows: dict[str, list] = {}
    for q, _, d, _, s, _ in (line.split() for line in text.splitlines()):
        rows.setdefault(q, []).append((float(s), d))
    out = {}
    for q, found in rows.items():
        found.sort(key=lambda x: (-x[0], tuple(-c for c in x[1].encode())))
        out[q] = {d: s for s, d in found[:DEPTH]}
    return out


def mean_ap(runs: dict[str, str], judged: dict[str, dict[str, int]]) -> list[float]:
    """Each run's MAP by pytrec_eval over the topics (one without judgments scores 0)."""
    kept = {q: docs for q, docs in judged.items() if docs}
    out = []
    for text in runs.values():
        found = pytrec_eval.RelevanceEvaluator(kept, {"map"}).evaluate(top(text)) if kept else {}
        out.append(math.fsum(v["map"] for v in found.values()) / TOPICS)
    return out


@pytest.mark.parametrize("method", ["depth", "mtf", "decide"])
def test_every_check_equals_the_oracles(cranfield, method):
    texts, qrels = cranfield
    runs = [read_run(t, name=n) for n, t in texts.items()]
    complete = read_qrels(qrels, name="cranfield")
    found = simulate(runs, complete, methods=[method], depth=DEPTH, step=7, budget=90, conventions=EXACT)
    truth = {}
    for q, _, d, g in (line.split() for line in qrels.splitlines()):
        truth.setdefault(q, {})[d] = int(g)
    true_map = mean_ap(texts, truth)
    # the same judgments, one at a time, in the method's order
    proposer = make_proposer(gather(runs, None, depth=DEPTH, conventions=EXACT), method)
    judged: dict[str, dict[str, int]] = {}
    checks = found.checks.set_index("judgments")
    for n in range(1, 91):
        step = proposer.next(1)
        topic, docid = step["topic"][0], step["docid"][0]
        grade = truth.get(topic, {}).get(docid, 0)
        judged.setdefault(topic, {})[docid] = grade
        proposer.judge(topic, docid, grade)
        if n % 7 == 0 or n == 90:
            ours = mean_ap(texts, judged)
            tau = kendalltau(ours, true_map).statistic
            row = checks.loc[n]
            assert (math.isnan(tau) and math.isnan(row.tau)) or row.tau == pytest.approx(tau, abs=1e-12), n
            assert row.relevant == sum(g >= 1 for docs in judged.values() for g in docs.values())
    assert checks["tau"].notna().sum() >= 5  # the checks compared numbers, not only undefined taus
    summary = found.summary.iloc[0]
    reached = [n for n, row in checks.iterrows() if row.tau >= TAU]
    assert (summary.to_tau == reached[0]) if reached else math.isnan(summary.to_tau)
    assert summary.judged == 90
