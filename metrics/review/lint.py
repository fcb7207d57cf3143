"""The lint report: legal but suspicious things about a collection, returned as data.

Nothing here stops an evaluation; each finding says what it changes. The dashboard shows the list, the CLI
can print it, and tests read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow.compute as pc

from metrics.io import Qrels, Run
from metrics.io.arrays import distinct_ascending, take_rows, to_numpy
from metrics.rankings import TIE_CUTOFFS, Rankings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LintItem", "judged_topics_not_in_run", "lint", "lint_frame"]

_EXAMPLES = 5


@dataclass(frozen=True)
class LintItem:
    """One finding of the lint report.

    Attributes
    ----------
    code : str
        Stable identifier, e.g. ``"run-topics-not-judged"``.
    severity : {"warning", "info"}
    source : str
        The system (run) or ``"qrels"`` the finding is about.
    message : str
        One sentence for people: what was found and what it does to the numbers.
    count : int
        How many topics, rows or groups are concerned.
    examples : tuple of str
        A few of them (topic ids).
    """

    code: str
    severity: str
    source: str
    message: str
    count: int
    examples: tuple[str, ...] = ()


def _sample(values) -> tuple[str, ...]:
    return tuple(str(v) for v in list(values)[:_EXAMPLES])


def lint(qrels: Qrels, runs: Sequence[Run], rankings: Sequence[Rankings] | None = None, *,
         measures: Sequence[str] = (), judged_cutoff: int = 10, judged_gap: float = 0.1) -> list[LintItem]:
    """Check a collection and its runs for suspicious but legal input.

    Parameters
    ----------
    qrels : Qrels
    runs : sequence of Run
    rankings : sequence of Rankings, optional
        The runs already ranked (``metrics.rank_runs``); ranked here when not given.
    measures : sequence of str, optional
        Measures to be reported: for each one with a cutoff k, the topics where tied scores straddle rank
        k, with how far the mean moves between the worst and best order of the ties (:mod:`metrics.stats.ties`).
    judged_cutoff, judged_gap : int, float, default=10, 0.1
        Systems whose mean Judged@k (k = ``judged_cutoff``) differ by more than ``judged_gap`` are named
        (:func:`metrics.judgments.coverage.judged_rate_gaps`): unjudged documents count as non-relevant, so the
        less judged system is disadvantaged.

    Returns
    -------
    list of LintItem
        Topics without relevant documents; per run: topics not judged, judged topics not answered,
        tied scores and ties straddling the cutoffs 5, 10, 20, scores beyond the float32 range (under
        the float32 presets), a rank column that contradicts the scores (a warning) and one that only
        orders tied scores differently from trec_eval (harmless, for information).
    """
    if rankings is None:
        from metrics.evaluate import rank_runs

        rankings = rank_runs(qrels, list(runs))
    judged = set(qrels.queries)
    items: list[LintItem] = []
    frame = qrels.table.to_pandas()
    best = frame.groupby("query")["relevance"].max()
    empty = sorted(best.index[best < 1])
    if empty:
        items.append(LintItem("topics-without-relevant", "warning", "qrels",
                              f"{len(empty)} judged topic(s) have no relevant document: AP, nDCG and recall "
                              f"are 0 for them in every run", len(empty), _sample(empty)))
    for run, rk in zip(runs, rankings):
        answered = set(run.queries)
        extra = sorted(answered - judged)
        if extra:
            items.append(LintItem("run-topics-not-judged", "warning", run.name,
                                  f"{len(extra)} topic(s) of the run have no judgments and are not evaluated",
                                  len(extra), _sample(extra)))
        missing = sorted(judged - answered, key=lambda t: t.encode())
        if missing:
            items.append(judged_topics_not_in_run(run.name, missing))
        tied = rk.ties.get("tied_rows", 0)
        if tied:
            straddles = rk.ties["straddles"]
            where = ", ".join(f"@{k}: {straddles[k]}" for k in TIE_CUTOFFS)
            items.append(LintItem("tied-scores", "info", run.name,
                                  f"{tied} ranked document(s) share a score with a neighbour; ties are broken by "
                                  f"document id, descending (trec_eval's rule). Topics with a tie across the "
                                  f"cutoff {where}", tied))
        if rk.conventions.score_dtype == "float32":
            score = run.table.column("score").to_numpy()
            huge = int(np.count_nonzero(np.abs(score) > np.finfo(np.float32).max))
            if huge:
                items.append(LintItem("scores-beyond-float32", "warning", run.name,
                                      f"{huge} score(s) exceed the float32 range and become infinite (and tie "
                                      f"with each other) under {rk.conventions.preset}, as in trec_eval 9; "
                                      f"the trec_eval-10 preset keeps them apart", huge))
        contradicted, reordered = _rank_disagreements(rk)
        if len(contradicted):
            items.append(LintItem("rank-contradicts-score", "warning", run.name,
                                  f"in {len(contradicted)} topic(s) the rank column contradicts the scores (a "
                                  f"document ranks above one with a higher score); the rank column is ignored, "
                                  f"documents are ordered by score", len(contradicted), _sample(contradicted)))
        if len(reordered):
            items.append(LintItem("rank-reorders-ties", "info", run.name,
                                  f"in {len(reordered)} topic(s) the rank column orders tied scores differently "
                                  f"from trec_eval; harmless: trec_eval ignores the rank column and breaks ties "
                                  f"by document id, descending", len(reordered), _sample(reordered)))
    items += _tie_straddles(rankings, measures) + _judged_gaps(rankings, judged_cutoff, judged_gap)
    return items


def _tie_straddles(rankings: Sequence[Rankings], measures: Sequence[str]) -> list[LintItem]:
    """A warning per run and measure whose cutoff splits a group of tied scores in some topic."""
    from metrics.evaluate import resolve_measures
    from metrics.stats.ties import is_exact, tie_ranges, tie_straddles

    labels = [label for label, m in resolve_measures(measures) if is_exact(m)] if measures else []
    if not labels:
        return []
    ranges = tie_ranges(None, list(rankings), labels)
    found = tie_straddles(ranges, list(rankings))
    items = []
    for (system, label), part in found.groupby(["system", "measure"], sort=False):
        whole = ranges[(ranges["system"] == system) & (ranges["measure"] == label)]
        low, reported, high = (whole[c].mean() for c in ("low", "reported", "high"))
        items.append(LintItem("ties-straddle-cutoff", "warning", system,
                              f"in {len(part)} topic(s) tied scores straddle rank {int(part['cutoff'].iloc[0])} of "
                              f"{label}: by the order of the ties alone its mean ranges {low:.4f}..{high:.4f} "
                              f"(reported {reported:.4f})", len(part), _sample(part["query"])))
    return items


def _judged_gaps(rankings: Sequence[Rankings], cutoff: int, gap: float) -> list[LintItem]:
    """A warning per pair of systems whose mean Judged@k differ by more than ``gap``."""
    from metrics.judgments.coverage import judged_rate_gaps

    pairs = judged_rate_gaps(rankings, cutoff=cutoff, threshold=gap)
    return [LintItem("judged-rate-gap", "warning", str(row.less_judged),
                     f"mean Judged@{cutoff} is {row.judged_less:.2f} against {row.judged_more:.2f} for "
                     f"{row.more_judged}: more of its unjudged documents count as non-relevant, which biases the "
                     f"comparison (a run outside the pool?); see the condensed measures (AP_condensed, ...)", 1,
                     (str(row.more_judged),)) for row in pairs.itertuples()]


def judged_topics_not_in_run(source: str, missing: Sequence[str]) -> LintItem:
    """The finding for judged topics a run does not rank (``missing``, byte-wise sorted), with what trec_eval
    10.0 does instead: it stops at the first of them (exit status 4) unless ``-c``."""
    return LintItem("judged-topics-not-in-run", "warning", source,
                    f"{len(missing)} judged topic(s) are missing from the run: left out of the mean, or scored 0 "
                    f"with 'complete topics' (-c); trec_eval 10.0 stops at topic {missing[0]} instead, with exit "
                    f"status 4 (\"result qid '{missing[0]}' not found in qrels\"), unless -c is given",
                    len(missing), _sample(missing))


def _rank_disagreements(rk: Rankings) -> tuple[np.ndarray, np.ndarray]:
    """Topics whose rank column contradicts the scores (some document has a higher score but a larger rank
    than another), and the other topics whose rank column only orders tied scores differently from the ranked
    order (score descending, document id descending). Ranks that are not numbers are left out."""
    none = np.array([], dtype=object)
    if len(rk.rows) < 2:
        return none, none
    if _ranks_follow_scores(rk.run):  # the usual file: nothing contradicts; ties perhaps listed otherwise
        return none, rk.queries[_reordered_topics(rk)]
    ranks = rk.run.table.column("rank").to_numpy()[rk.rows]
    seg = rk.seg
    same_topic = seg[1:] == seg[:-1]
    if bool(np.all(~same_topic | (ranks[1:] > ranks[:-1]))):  # the usual file: ranks rise down each ranking
        return none, none
    score = rk.scores()
    new_group = np.r_[True, ~same_topic | (score[1:] != score[:-1])]  # groups of tied scores, in ranked order
    known = ~np.isnan(ranks)
    dense = _dense_ranks(ranks, known)
    width = int(dense.max()) + 2
    key = seg.astype(np.int64)  # by topic, then rank; an unknown rank is its topic's least ...
    key *= width
    key += dense
    # the greatest key above each row's group of ties: the rows of earlier topics have smaller keys, so a
    # running maximum needs no reset between topics (arrays of millions of rows are reused, not made anew:
    # each new one is page faults)
    above = np.maximum.accumulate(key, out=dense)
    prior = np.empty_like(key)
    prior[0] = -1
    prior[1:] = above[:-1]
    np.putmask(prior[1:], ~new_group[1:], -1)
    del above, dense
    np.maximum.accumulate(prior, out=prior)
    if not known.all():
        key[~known] += width - 1  # ... and, below, its topic's greatest
    # a row contradicts the scores when a row of an earlier group of its topic (a higher score) holds a larger rank
    contradicted = distinct_ascending(seg[prior > key])
    del key, prior
    swapped = ~new_group[1:] & (ranks[1:] < ranks[:-1])  # an unknown rank compares false
    reordered = distinct_ascending(seg[1:][swapped])
    reordered = reordered[~np.isin(reordered, contradicted, assume_unique=True)]
    return rk.queries[contradicted], rk.queries[reordered]


def _ranks_follow_scores(run: Run) -> bool:
    """Whether the file lists each query's lines in one block, scores never rising and ranks always rising
    down each block. Then no document ranks above one with a higher score (a pair in file order has the
    higher score, or an equal one, and the smaller rank: rounding to float32 keeps that order), and the rank
    column orders each topic as the file does. Reads the score and rank columns in place, batch by batch."""
    starts = run.query_starts
    if len(pc.unique(take_rows(run.table.column("query"), starts))) != len(starts):
        return False
    opens = np.zeros(run.table.num_rows + 1, dtype=bool)  # opens[i]: row i starts a query's block
    opens[starts] = True
    at, rank_before, score_before = 0, np.inf, -np.inf  # what the batch before ended with
    for batch in run.table.select(["rank", "score"]).to_batches():
        if not batch.num_rows:
            continue
        rank, score = (to_numpy(batch.column(i)) for i in (0, 1))
        fresh = opens[at:at + batch.num_rows]
        rises = (np.r_[rank_before, rank[:-1]] < rank) & (np.r_[score_before, score[:-1]] >= score)
        if not bool(np.all(rises | fresh)):  # (a rank that is not a number compares false: the full check)
            return False
        at, rank_before, score_before = at + batch.num_rows, rank[-1], score[-1]
    return True


def _reordered_topics(rk: Rankings) -> np.ndarray:
    """The topics (indices) whose ranked order lists rows of the file out of their order: where the file's
    rank column rises down each topic's block, those whose rank column orders tied scores differently."""
    down = np.flatnonzero(rk.rows[1:] < rk.rows[:-1])  # position i + 1 holds an earlier row than i
    topic = np.searchsorted(rk.offsets, down, side="right") - 1
    return distinct_ascending(topic[rk.offsets[topic + 1] > down + 1])  # both positions in one topic


def _dense_ranks(ranks: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Integers in the order of the known ranks (equal ranks equal, the least 1), 0 where a rank is unknown.

    Whole-number ranks no further apart than there are rows (1, 2, 3 ... as files give them) are their
    distance from the least one, plus 1: no sort of millions of ranks. Other ranks are numbered by a sort.
    """
    every = bool(known.all())
    values = ranks if every else ranks[known]
    if not len(values):
        return np.zeros(len(ranks), dtype=np.int64)
    low, high = float(values.min()), float(values.max())
    whole = values.astype(np.int64) if high - low < len(values) and abs(low) < 2.0 ** 62 else None
    if whole is not None and np.array_equal(whole, values):
        numbered = whole - (int(low) - 1)
    else:
        numbered = np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64) + 1
    if every:
        return numbered
    dense = np.zeros(len(ranks), dtype=np.int64)
    dense[known] = numbered
    return dense


def lint_frame(items: Sequence[LintItem]) -> "pd.DataFrame":
    """The lint report as a table (one row per finding)."""
    import pandas as pd

    columns = ["code", "severity", "source", "message", "count", "examples"]
    return pd.DataFrame([{**asdict(i), "examples": ", ".join(i.examples)} for i in items], columns=columns)
