"""Depth-k, RBP and RRF pools against trectools' own (``TrecPoolMaker``), the package as the oracle.

trectools orders a run by score descending, then document id ascending, and weighs RBP and RRF by the run
file's rank column; rankscope's ``trectools`` order does the same, and its ``trec_eval`` order (document id
descending, ranks from the scores) is checked against trectools given the runs as trec_eval ranks them, with
document ids renamed so that trectools' ascending order is their descending one. A pool with judgments
already made is trectools' pool without the judged documents.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

trectools = pytest.importorskip("trectools", reason="trectools (the pool oracle) is not installed")

import pandas as pd  # noqa: E402

from metrics.io import read_qrels, read_run  # noqa: E402
from metrics.judgments.candidates import gather  # noqa: E402
from metrics.judgments.pooling import make_proposer  # noqa: E402
from tests.metrics.judgments.pool_cases import random_case  # noqa: E402

STRATEGIES = {"depth": "topX", "rbp": "rbp", "rrf": "rrf"}
COLUMNS = ["query", "q0", "docid", "rank", "score", "system"]


def _frame(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), sep=r"\s+", names=COLUMNS, dtype={"query": str, "docid": str})


def oracle(case, strategy: str, k: int, order: str, **options) -> dict[str, set[str]]:
    """trectools' pool of the case's runs, per topic, without the documents already judged."""
    frames = {name: _frame(text) for name, text in case.runs.items()}
    rename = back = None
    if order == "trec_eval":
        ids = sorted({d for f in frames.values() for d in f["docid"]}, key=lambda d: d.encode(), reverse=True)
        rename = {d: f"n{i:06d}" for i, d in enumerate(ids)}  # ascending new ids: descending old ones
        back = {v: k for k, v in rename.items()}
    runs = []
    for name, f in frames.items():
        f = f.copy()
        if rename is not None:
            f["docid"] = f["docid"].map(rename)
            f = f.sort_values(["query", "score", "docid"], ascending=[True, False, True], kind="stable")
            f["rank"] = f.groupby("query").cumcount() + 1  # the rank trec_eval's order gives
        else:
            f = f.sort_values(["query", "score", "docid"], ascending=[True, False, True], kind="stable")
        run = trectools.TrecRun()
        run.load_run_from_dataframe(f)
        runs.append(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pool = trectools.TrecPoolMaker().make_pool(runs, strategy=strategy, topX=k, **options).pool
    judged = {(q, d) for q, _, d, g in (line.split() for line in case.qrels.splitlines()) if int(g) >= 0}
    out = {}
    for topic, docs in pool.items():
        docs = {back[d] if back else d for d in docs}
        kept = {d for d in docs if (str(topic), d) not in judged}
        if kept:
            out[str(topic)] = kept
    return out


def ours(case, method: str, k: int, order: str, **options) -> dict[str, set[str]]:
    runs = [read_run(text, name=name) for name, text in case.runs.items()]
    qrels = read_qrels(case.qrels, name="qrels") if case.qrels else None
    whole = method != "depth"
    candidates = gather(runs, qrels, depth=None if whole else k, order=order, conventions=None)
    pool = make_proposer(candidates, method, size=k, **options).next()
    out: dict[str, set[str]] = {}
    for topic, docid in zip(pool["topic"], pool["docid"]):
        out.setdefault(str(topic), set()).add(docid)
    return out


@pytest.mark.parametrize("order", ["trectools", "trec_eval"])
@pytest.mark.parametrize("method", list(STRATEGIES))
@pytest.mark.parametrize("seed", range(40))
def test_pools_equal_trectools(seed, method, order):
    case = random_case(seed)
    k = int(np.random.default_rng(seed).integers(1, 15))
    assert ours(case, method, k, order) == oracle(case, STRATEGIES[method], k, order)


@pytest.mark.parametrize("order", ["trectools", "trec_eval"])
@pytest.mark.parametrize("seed", range(10))
def test_rbp_options_equal_trectools(seed, order):
    case = random_case(100 + seed)
    for p, strategy in ((0.5, "max"), (0.95, "sum"), (0.3, "max")):
        assert ours(case, "rbp", 7, order, rbp_p=p, rbp_strategy=strategy) == \
            oracle(case, "rbp", 7, order, rbp_p=p, rbp_strategy=strategy)


@pytest.mark.parametrize("seed", range(10))
def test_rrf_constant_equals_trectools(seed):
    case = random_case(200 + seed)
    assert ours(case, "rrf", 5, "trectools", rrf_c=10.0) == oracle(case, "rrf", 5, "trectools", rrf_den=10)


def test_the_orders_differ_where_ties_or_rank_columns_do():
    """Both conventions are live: on these cases they give different pools (so each test above tests one)."""
    differ = {m: sum(ours(random_case(s), m, 5, "trectools") != ours(random_case(s), m, 5, "trec_eval")
                     for s in range(40)) for m in STRATEGIES}
    assert all(n > 0 for n in differ.values()), differ


def test_a_trectools_pool_by_the_file_ranks_refuses_a_rank_that_is_not_a_number():
    from metrics.errors import ValidationError

    runs = [read_run("1 Q0 a x 3 s\n1 Q0 b 2 2 s\n", name="s"), read_run("1 Q0 a 1 3 t\n", name="t")]
    with pytest.raises(ValidationError, match="rank column; s has a rank that is not a number"):
        make_proposer(gather(runs, None, depth=None, order="trectools"), "rbp", size=2)
