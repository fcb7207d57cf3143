"""Did a reproduction reproduce? The measures of Breuer et al. (SIGIR 2020).

An *original* experiment has a baseline run ``b`` and an advanced run ``a``; a *reproduction* runs both
again on the same collection, a *replication* on another one. Breuer et al. measure how close the
reproduced results are at three levels:

* **order of documents** (reproduction only), per topic, between the original and the reproduced
  ranking of each run: Kendall's tau "union" (:func:`kendall_tau_union`) and rank-biased overlap
  (:func:`rank_biased_overlap`);
* **scores per topic** (reproduction only): the root mean square error of each measure,
  ``RMSE = sqrt(mean_t (x_t - x'_t)**2)``;
* **overall effect**: the effect ratio ``ER = mean_t(a'_t - b'_t) / mean_t(a_t - b_t)`` (1: the same
  improvement; below 1: a smaller one) and the delta relative improvement ``DeltaRI = RI - RI'`` with
  ``RI = (mean(a) - mean(b)) / mean(b)`` (0: the same relative improvement);
* **significance**: the p-value of the two-sided paired t-test between the original and the reproduced
  scores of each run (reproducibility: the same topics), or of the unpaired (Student, equal variances)
  t-test for a replication (other topics). A large p-value is no proof of equality.

The definitions follow the ``repro_eval`` package (Breuer et al.'s implementation), which the tests use as
their oracle:

* rankings are in trec_eval's order (score descending, then document id descending) and cut at
  ``depth`` documents (default 1,000) for tau;
* tau union of a topic: the documents of both rankings are numbered in the order of their ids; the
  number of the document at each rank of the original ranking is paired with the number of the document
  at the same rank of the reproduced one, and tau is Kendall's tau-b of those pairs (rounded to 14
  decimals, as ``repro_eval``). When the two rankings differ in length (``repro_eval`` refuses them),
  both are cut to the shorter one;
* RBO of a topic with persistence ``p`` (default 0.95) and depth ``D`` (default 1,000):
  ``sum_{i=1}^{D} p**(i-1) |A_i & B_i| / i`` over ``sum_{i=1}^{D} p**(i-1)``, ``A_i`` and ``B_i`` the
  first ``i`` documents of each ranking: the truncated sum normalised by its weights (Clarke et al.'s
  form, ``repro_eval``'s default), not the extrapolated RBO of Webber et al.; so two identical rankings
  shorter than ``D`` score below 1;
* a topic's tau and RBO are for the topics of the reproduced run; scores are for the topics of both runs.

Reference: T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer, I. Soboroff, "How to measure
the reproducibility of system-oriented IR experiments", SIGIR 2020.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from metrics.errors import ValidationError

__all__ = ["DEPTH", "PERSISTENCE", "Reproduction", "effect_measures", "kendall_tau_union", "rank_biased_overlap",
           "ranked_documents", "reproduce", "score_measures"]

DEPTH = 1000
"""Documents compared per topic (tau union's cut and RBO's depth), as ``repro_eval``."""

PERSISTENCE = 0.95
"""RBO's persistence ``p``, as ``repro_eval``."""


def ranked_documents(run: Any) -> dict[str, np.ndarray]:
    """Each topic's document ids in trec_eval's order (score descending, then document id descending).

    Parameters
    ----------
    run : metrics.Run or pandas.DataFrame
        A run (or a frame with columns ``query``, ``docid``, ``score``).
    """
    frame = run.frame if hasattr(run, "table") else run
    if not isinstance(frame, pd.DataFrame) or not {"query", "docid", "score"} <= set(frame.columns):
        raise ValidationError("expected a run, or a frame with columns query, docid, score")
    q = frame["query"].astype(str).to_numpy()
    d = frame["docid"].astype(str).to_numpy()
    s = frame["score"].to_numpy(dtype=np.float64)
    d_code = np.unique(d, return_inverse=True)[1].reshape(-1)
    order = np.lexsort((-d_code, -s, q))  # by query, then score descending, then docid descending
    q, d = q[order], d[order]
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    ends = np.r_[starts[1:], q.size]
    return {str(q[a]): d[a:b] for a, b in zip(starts, ends)}


def kendall_tau_union(original: Sequence[str], reproduced: Sequence[str], depth: int = DEPTH) -> float:
    """Kendall's tau union of two rankings of one topic (see the module's notes); NaN when undefined."""
    from scipy import stats

    a, b = np.asarray(original[:depth], dtype=object), np.asarray(reproduced[:depth], dtype=object)
    n = min(a.size, b.size)
    a, b = a[:n], b[:n]
    if n < 2:
        return float("nan")
    inverse = np.unique(np.concatenate([a, b]).astype(str), return_inverse=True)[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = stats.kendalltau(inverse[:n], inverse[n:]).statistic
    return float(round(tau, 14)) if np.isfinite(tau) else float("nan")


def rank_biased_overlap(original: Sequence[str], reproduced: Sequence[str], p: float = PERSISTENCE,
                        depth: int = DEPTH) -> float:
    """Rank-biased overlap of two rankings of one topic, truncated at ``depth`` and normalised.

    Examples
    --------
    >>> round(rank_biased_overlap(["a", "b"], ["a", "b"], p=0.5, depth=2), 6)
    1.0
    >>> round(rank_biased_overlap(["a", "b"], ["b", "a"], p=0.5, depth=2), 6)
    0.333333
    """
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 < p < 1.0:
        raise ValidationError(f"RBO's persistence p must be between 0 and 1, got {p!r}")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValidationError(f"depth must be a positive integer, got {depth!r}")
    a = [str(x) for x in original[:depth]]
    b = [str(x) for x in reproduced[:depth]]
    rank_a = {doc: i for i, doc in reversed(list(enumerate(a)))}  # first occurrence
    rank_b = {doc: i for i, doc in reversed(list(enumerate(b)))}
    entered = np.zeros(depth, dtype=np.int64)  # a document shared by both prefixes from depth max(ranks) + 1
    for doc, i in rank_a.items():
        j = rank_b.get(doc)
        if j is not None:
            entered[max(i, j)] += 1
    overlap = np.cumsum(entered)
    weights = p ** np.arange(depth, dtype=np.float64)
    return float((weights * overlap / np.arange(1, depth + 1)).sum() / weights.sum())


def _scores(per_query: pd.DataFrame, measure: str) -> pd.Series:
    rows = per_query[per_query["measure"].astype(str) == measure]
    out = pd.Series(rows["value"].to_numpy(dtype=np.float64), index=rows["query"].astype(str).to_numpy())
    if out.index.has_duplicates:
        raise ValidationError(f"more than one {measure} value for a query")
    return out.sort_index()


def score_measures(original: pd.DataFrame, reproduced: pd.DataFrame, measures: Sequence[str], *,
                   paired: bool = True) -> pd.DataFrame:
    """RMSE (paired only) and the t-test p-value between one run's original and reproduced per-topic scores.

    Parameters
    ----------
    original, reproduced : pandas.DataFrame
        Per-query tables (``query``, ``measure``, ``value``) of one system each.
    measures : sequence of str
    paired : bool, default=True
        Reproducibility (same topics: RMSE and the paired t-test) or replicability (other topics: the
        unpaired t-test, RMSE NaN).

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``rmse``, ``p_value``.
    """
    from scipy import stats

    rows = []
    for measure in measures:
        x, y = _scores(original, measure), _scores(reproduced, measure)
        if paired:
            common = x.index.intersection(y.index)
            if len(common) < 2:
                raise ValidationError(f"{measure}: the original and reproduced runs share {len(common)} topics; "
                                      "a reproduction needs at least two")
            x, y = x[common].to_numpy(), y[common].to_numpy()
            rmse = float(np.sqrt(np.mean((x - y) ** 2)))
            with np.errstate(divide="ignore", invalid="ignore"):
                p = float(stats.ttest_rel(x, y).pvalue)
        else:
            if len(x) < 2 or len(y) < 2:
                raise ValidationError(f"{measure}: a replication needs at least two topics on each side")
            x, y = x.to_numpy(), y.to_numpy()
            rmse = float("nan")
            with np.errstate(divide="ignore", invalid="ignore"):
                p = float(stats.ttest_ind(x, y).pvalue)
        if np.isnan(p) and x.shape == y.shape and np.array_equal(x, y):
            p = 1.0  # identical scores: nothing differs (scipy and repro_eval give NaN here)
        rows.append({"measure": measure, "rmse": rmse, "p_value": p})
    return pd.DataFrame(rows, columns=["measure", "rmse", "p_value"])


def effect_measures(orig_b: pd.DataFrame, orig_a: pd.DataFrame, rep_b: pd.DataFrame, rep_a: pd.DataFrame,
                    measures: Sequence[str]) -> pd.DataFrame:
    """Effect ratio and delta relative improvement of each measure.

    Returns
    -------
    pandas.DataFrame
        Columns ``measure``, ``improvement_original`` (``mean(a - b)``), ``improvement_reproduced``,
        ``er``, ``ri_original``, ``ri_reproduced``, ``delta_ri``. A zero denominator gives infinity or NaN.
    """
    rows = []
    for measure in measures:
        ob, oa, rb, ra = (_scores(f, measure) for f in (orig_b, orig_a, rep_b, rep_a))
        mi_o = float((oa - ob.reindex(oa.index)).mean())
        mi_r = float((ra - rb.reindex(ra.index)).mean())
        with np.errstate(divide="ignore", invalid="ignore"):
            er = float(np.float64(mi_r) / np.float64(mi_o))
            ri_o = float((np.float64(oa.mean()) - ob.mean()) / np.float64(ob.mean()))
            ri_r = float((np.float64(ra.mean()) - rb.mean()) / np.float64(rb.mean()))
        rows.append({"measure": measure, "improvement_original": mi_o, "improvement_reproduced": mi_r, "er": er,
                     "ri_original": ri_o, "ri_reproduced": ri_r, "delta_ri": ri_o - ri_r})
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class Reproduction:
    """The reproducibility (or replicability) measures of a baseline and an advanced run.

    Attributes
    ----------
    kind : str
        ``"reproducibility"`` (same collection) or ``"replicability"`` (another one).
    order : pandas.DataFrame
        Per topic and run (``baseline``, ``advanced``): ``run``, ``query``, ``ktu``, ``rbo``; empty for a
        replication.
    scores : pandas.DataFrame
        Per measure and run: ``run``, ``measure``, ``rmse``, ``p_value``.
    effects : pandas.DataFrame
        Per measure: see :func:`effect_measures`.
    p, depth : float, int
        RBO's persistence and the depth compared.
    """

    kind: str
    order: pd.DataFrame
    scores: pd.DataFrame
    effects: pd.DataFrame
    p: float
    depth: int

    def summary(self) -> pd.DataFrame:
        """One row per measure: ER, DeltaRI, and per run RMSE and p-value; then mean tau union and RBO."""
        wide = self.scores.pivot(index="measure", columns="run", values=["rmse", "p_value"])
        wide.columns = [f"{stat}_{run}" for stat, run in wide.columns]
        out = self.effects[["measure", "er", "delta_ri"]].merge(wide.reset_index(), on="measure", how="left")
        return out


def reproduce(qrels: Any, orig_b: Any, orig_a: Any, rep_b: Any, rep_a: Any,
              measures: Sequence[str] = ("AP", "nDCG@10", "P@10"), *, replication_qrels: Any = None,
              p: float = PERSISTENCE, depth: int = DEPTH, conventions: Any = None) -> Reproduction:
    """Every measure of Breuer et al. for an original and a reproduced (or replicated) pair of runs.

    Parameters
    ----------
    qrels : Qrels or path
        The original collection's judgments.
    orig_b, orig_a, rep_b, rep_a : Run or path
        The original baseline and advanced runs and their reproductions.
    measures : sequence of str, default=("AP", "nDCG@10", "P@10")
    replication_qrels : Qrels or path, optional
        The judgments of another collection the reproduced runs were made on: a replication (the
        unpaired t-test; no document order or RMSE).
    p : float, default=0.95
        RBO's persistence.
    depth : int, default=1000
    conventions : Conventions, optional
        Of the evaluation (see :func:`metrics.evaluate`).

    Returns
    -------
    Reproduction
    """
    from metrics.evaluate import evaluate, resolve_measures
    from metrics.io import read_run

    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValidationError(f"depth must be a positive integer, got {depth!r}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 < p < 1.0:
        raise ValidationError(f"RBO's persistence p must be between 0 and 1, got {p!r}")
    runs = [r if hasattr(r, "table") else read_run(r) for r in (orig_b, orig_a, rep_b, rep_a)]
    measures = [str(m) for m in measures]
    original = evaluate(qrels, {"b": runs[0], "a": runs[1]}, measures, conventions=conventions)
    replicated = replication_qrels is not None
    again = evaluate(replication_qrels if replicated else qrels, {"b": runs[2], "a": runs[3]}, measures,
                     conventions=conventions)
    measures = [label for label, _ in resolve_measures(measures)]
    part = {(src, s): f[f["system"] == s] for src, f in (("o", original), ("r", again)) for s in ("a", "b")}
    scores = []
    for run, s in (("baseline", "b"), ("advanced", "a")):
        scores.append(score_measures(part["o", s], part["r", s], measures, paired=not replicated).assign(run=run))
    scores_frame = pd.concat(scores, ignore_index=True)[["run", "measure", "rmse", "p_value"]]
    effects = effect_measures(part["o", "b"], part["o", "a"], part["r", "b"], part["r", "a"], measures)
    rows = []
    if not replicated:
        for run, before, after in (("baseline", runs[0], runs[2]), ("advanced", runs[1], runs[3])):
            first, second = ranked_documents(before), ranked_documents(after)
            for query in sorted(second):
                if query not in first:
                    continue
                rows.append({"run": run, "query": query, "ktu": kendall_tau_union(first[query], second[query], depth),
                             "rbo": rank_biased_overlap(first[query], second[query], p, depth)})
    order = pd.DataFrame(rows, columns=["run", "query", "ktu", "rbo"])
    return Reproduction(kind="replicability" if replicated else "reproducibility", order=order,
                        scores=scores_frame, effects=effects, p=float(p), depth=int(depth))
