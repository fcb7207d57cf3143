"""The anatomy of one ranking: every running quantity the measures are made of, rank by rank.

:func:`anatomy` reads one query of a ranked run; :func:`anatomy_of_ranking` a plain list of grades (for
teaching, where the grades are typed in). Both return one row per rank i, whose values are those of the
prefix d_1..d_i: the row of rank i holds precision@i, recall@i, AP cut at i, nDCG@i, and so on, so the
last row holds the measures of the whole ranking.

Columns
-------
rank, docid, score
    The 1-based rank, the document and its score as given in the run.
grade, judged, relevant
    The judged grade (NaN for a document without a grade >= 0: absent from the qrels or judged with a
    negative grade), whether it has one, and whether it counts as relevant (grade >= the relevance level).
precision, recall, f1
    P@i = found_i / i, R@i = found_i / R (0 when R = 0) and their harmonic mean 2PR / (P + R) (0 when both
    are 0); found_i is the number of relevant documents in the top i, R the number in the judgments.
ap_contribution, ap, ap_found
    P@i at a relevant rank, else 0; running average precision as trec_eval computes it (``map_cut_i``: the
    sum of the contributions so far over R, so relevant documents not yet found count 0); and the sum
    over the relevant documents found so far (found_i) instead, the "AP@k" of some textbook tables, which
    reaches AP only once every relevant document is found (0 before the first).
gain, discount, dcg, idcg, ndcg
    The gain of the grade (g or 2^g - 1; 0 for unjudged), the divisor at rank i (log2(i + 1), or
    Järvelin and Kekäläinen's), DCG@i, the ideal DCG@i (the judged documents sorted by grade) and
    nDCG@i = DCG@i / IDCG@i (0 when IDCG@i = 0).
rr
    1 / rank of the first relevant document if it is within the top i, else 0.
err, stop_probability
    Running expected reciprocal rank (Chapelle et al.'s cascade): the user stops at rank i with probability
    R_i = (2^g - 1) / 2^g_max (``stop_probability``; 0 for grades below 1, grades above g_max count as
    g_max); ERR@i = sum_{j <= i} R_j / j * prod_{m < j} (1 - R_m).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from metrics.checks import COUNT, Integer, check, checked, refuse
from metrics.errors import ValidationError
from metrics.gains import check_gain
from metrics.measures.ndcg import discount as discount_divisor
from metrics.measures.ndcg import gains
from metrics.rankings import Rankings, grades_or_nan

__all__ = ["anatomy", "anatomy_of_ranking", "relevant_count", "COLUMNS"]

COLUMNS = ("rank", "docid", "score", "grade", "judged", "relevant", "precision", "recall", "f1",
           "ap_contribution", "ap", "ap_found", "gain", "discount", "dcg", "idcg", "ndcg", "rr", "err",
           "stop_probability")


def anatomy(rankings: Rankings | Sequence[Rankings], query: str, gain: str = "linear", discount: str = "log2",
            base: float = 2.0, rel: int | None = None, err_max_grade: int | None = None) -> pd.DataFrame:
    """Rank by rank, the running values of the measures on one query of one ranked run.

    Parameters
    ----------
    rankings : Rankings
        One system's rankings (from :func:`metrics.rank_runs`; a sequence holding exactly one is accepted).
    query : str
        The query id; it must be one of ``rankings.queries``.
    gain : {"linear", "exp"}, default="linear"
        Gain of grade g: g (trec_eval) or 2^g - 1.
    discount : {"log2", "jk"}, default="log2"
        Divisor at rank i: log2(i + 1) (trec_eval) or Järvelin and Kekäläinen's ``max(1, log_base(i))``.
    base : float, default=2.0
        Logarithm base of the ``jk`` discount.
    rel : int, optional
        Minimum grade counted as relevant (default: the conventions' relevance level). The gain columns
        ignore it, as nDCG does.
    err_max_grade : int, optional
        g_max of ERR's stop probabilities (default: the highest grade judged for this query, at least 1).

    Returns
    -------
    pandas.DataFrame
        One row per ranked document, with the columns of :data:`COLUMNS` (see the module documentation);
        no rows when the query's ranking is empty.

    Raises
    ------
    ValidationError
        For a query that was not evaluated, or bad options.

    Notes
    -----
    The row of rank i holds the measures of the top i. With n the number of documents ranked (after the
    conventions' depth and judged-only cuts), the last row equals trec_eval's ``P_n`` (precision),
    ``recall_n`` (recall), ``map`` (ap), ``ndcg_cut_n`` (ndcg, with the default gain and discount),
    ``recip_rank`` (rr) and the measures ``P@n``, ``R@n``, ``AP``, ``nDCG@n``, ``RR`` of
    :func:`metrics.evaluate` exactly. trec_eval's ``ndcg`` (no cutoff) divides by the whole ideal ranking
    and equals the last ``ndcg`` only when n is at least the number of judged documents with a positive
    grade. ``err`` equals the measure ``ERR(max_grade=g)`` with g the g_max used here; the measure's own
    default g_max is the highest grade of the whole qrels, which may be higher than this query's.

    .. math:: AP@i = \\frac{1}{R} \\sum_{j \\le i} \\mathrm{rel}(d_j) P@j, \\qquad
              nDCG@i = \\frac{\\sum_{j \\le i} g(d_j) / \\mathrm{disc}(j)}
                              {\\sum_{j \\le i} g(d^*_j) / \\mathrm{disc}(j)}

    Examples
    --------
    >>> from metrics import rank_runs
    >>> qrels = "1 0 a 2\\n1 0 b 0\\n1 0 c 1\\n"
    >>> run = "1 Q0 b 1 3.0 x\\n1 Q0 a 2 2.0 x\\n1 Q0 z 3 1.0 x\\n"
    >>> table = anatomy(rank_runs(qrels, {"x": run}), "1")
    >>> table[["rank", "docid", "grade", "precision", "recall", "ap", "ndcg", "rr"]].round(4)
       rank docid  grade  precision  recall    ap    ndcg   rr
    0     1     b    0.0     0.0000     0.0  0.00  0.0000  0.0
    1     2     a    2.0     0.5000     0.5  0.25  0.4796  0.5
    2     3     z    NaN     0.3333     0.5  0.25  0.4796  0.5
    """
    r = _one(rankings)
    check_gain(gain, discount, base)
    where = np.flatnonzero(r.queries == query)
    if not len(where):
        raise ValidationError(f"query {query!r} was not evaluated for {r.system!r}: the run does not answer it "
                              f"or it has no judgments (evaluated: {_few(r.queries)})")
    r = r.select_queries([query])  # one topic: every array below is as long as its ranking
    q = 0
    start, stop = int(r.offsets[q]), int(r.offsets[q + 1])
    codes = r.rel[start:stop]
    level = r.level(rel)
    # gains and ideal gains computed on the same arrays as the measures, so the sums agree to the last bit
    hits = r.hits(1)
    mine = hits.seg == q
    contrib = np.zeros(stop - start)
    contrib[hits.pos[mine] - 1] = (gains(r.rel[hits.index], gain) / discount_divisor(hits.pos, discount, base))[mine]
    grades, offsets = r.ideal_grades()
    iseg = np.repeat(np.arange(r.n_queries), np.diff(offsets))
    ipos = np.arange(len(grades)) - offsets[:-1][iseg] + 1
    ideal = (gains(grades, gain) / discount_divisor(ipos, discount, base))[offsets[q]:offsets[q + 1]]
    top = int(r.top_grades()[q])
    rows = r.rows[start:stop]
    table = r.run.table
    docids = np.asarray(table.column("docid").take(rows).to_pylist(), dtype=object)
    scores = table.column("score").to_numpy()[rows].astype(np.float64)
    return _table(codes, int(r.num_rel(rel)[q]), level, contrib, ideal, gain, discount, base,
                  _max_grade(err_max_grade, top), docids, scores)


@checked(rel=Integer())
def anatomy_of_ranking(grades: Sequence, num_rel: int | None = None, *, ideal: Sequence[int] | None = None,
                       gain: str = "linear", discount: str = "log2", base: float = 2.0, rel: int = 1,
                       err_max_grade: int | None = None, docids: Sequence[str] | None = None,
                       scores: Sequence[float] | None = None) -> pd.DataFrame:
    """Rank by rank, the running values of the measures on a ranking given as its list of grades.

    Parameters
    ----------
    grades : sequence of int (or None)
        The grade of the document at each rank, top first; None, NaN or a negative grade marks a document
        without a judgment.
    num_rel : int, optional
        Number of relevant documents (grade >= ``rel``) in the judgments; by default those in the ranking.
        A larger number stands for relevant documents the ranking missed: they lower recall and AP.
    ideal : sequence of int, optional
        Grades of all judged documents of the query (for the ideal ranking of nDCG), in any order. By
        default the ranking's own grades plus, for each missed relevant document, one of grade
        ``max(rel, 1)``.
    gain, discount, base
        As in :func:`anatomy`.
    rel : int, default=1
        Minimum grade counted as relevant.
    err_max_grade : int, optional
        g_max of ERR (default: the highest grade in ``grades`` and ``ideal``, at least 1).
    docids, scores : sequence, optional
        Shown in the ``docid`` and ``score`` columns (default: d1, d2, ... and NaN).

    Returns
    -------
    pandas.DataFrame
        One row per rank, columns :data:`COLUMNS`; see :func:`anatomy`.

    Raises
    ------
    ValidationError
        For a grade that is not a whole number, ``num_rel`` below the relevant documents in the ranking,
        mismatched lengths or bad options.

    Notes
    -----
    .. math:: P@i = \\frac{found_i}{i}, \\quad R@i = \\frac{found_i}{R}, \\quad
              AP@i = \\frac{1}{R} \\sum_{j \\le i} \\mathrm{rel}(d_j) P@j, \\quad
              nDCG@i = \\frac{DCG@i}{IDCG@i}

    Computed by the same code as :func:`anatomy`: for a ranking whose judgments hold ``num_rel``
    relevant documents and the grades ``ideal``, the last row is what trec_eval prints as ``P_n``,
    ``recall_n``, ``map``, ``ndcg_cut_n`` and ``recip_rank`` (n the length of the ranking).

    Examples
    --------
    Eight documents, relevant at ranks 1, 3, 4 and 6: the running precision, recall, F1, nDCG (exponential
    gain, which for binary grades is the same as linear) and AP as a textbook table computes it (divided
    by the relevant documents found so far) and as trec_eval does.

    >>> table = anatomy_of_ranking([1, 0, 1, 1, 0, 1, 0, 0], gain="exp")
    >>> table[["rank", "precision", "recall", "f1", "dcg", "idcg", "ndcg", "ap_found", "ap"]].round(2)
       rank  precision  recall    f1   dcg  idcg  ndcg  ap_found    ap
    0     1       1.00    0.25  0.40  1.00  1.00  1.00      1.00  0.25
    1     2       0.50    0.25  0.33  1.00  1.63  0.61      1.00  0.25
    2     3       0.67    0.50  0.57  1.50  2.13  0.70      0.83  0.42
    3     4       0.75    0.75  0.75  1.93  2.56  0.75      0.81  0.60
    4     5       0.60    0.75  0.67  1.93  2.56  0.75      0.81  0.60
    5     6       0.67    1.00  0.80  2.29  2.56  0.89      0.77  0.77
    6     7       0.57    1.00  0.73  2.29  2.56  0.89      0.77  0.77
    7     8       0.50    1.00  0.67  2.29  2.56  0.89      0.77  0.77
    """
    check_gain(gain, discount, base)
    codes = _codes(grades, "grades")
    level = max(int(rel), 0)
    found = int((codes >= level).sum())
    if num_rel is None:
        num_rel = found
    elif isinstance(num_rel, bool) or not isinstance(num_rel, (int, np.integer)) or num_rel < found:
        raise refuse("num_rel", f"a whole number >= the {found} relevant documents of the ranking", num_rel)
    if ideal is None:
        ideal_codes = np.concatenate((codes, np.full(int(num_rel) - found, max(level, 1), dtype=np.int64)))
    else:
        ideal_codes = _codes(ideal, "ideal")
    positive = np.sort(ideal_codes[ideal_codes > 0])[::-1]
    n = len(codes)
    pos = np.arange(1, n + 1)
    contrib = gains(codes, gain) / discount_divisor(pos, discount, base)
    ideal_contrib = gains(positive, gain) / discount_divisor(np.arange(1, len(positive) + 1), discount, base)
    top = int(max(codes.max(initial=0), ideal_codes.max(initial=0)))
    if docids is None:
        docids = [f"d{i}" for i in pos]
    if scores is None:
        scores = np.full(n, np.nan)
    if len(docids) != n or len(scores) != n:
        raise ValidationError(f"docids and scores must have one entry per grade ({n})")
    return _table(codes, int(num_rel), level, contrib, ideal_contrib, gain, discount, base,
                  _max_grade(err_max_grade, top), np.asarray(list(docids), dtype=object),
                  np.asarray(scores, dtype=np.float64))


def relevant_count(rankings: Rankings | Sequence[Rankings], query: str, rel: int | None = None) -> int:
    """R: the number of judged documents of a query with a grade >= the relevance level (trec_eval num_rel).

    Examples
    --------
    >>> from metrics import rank_runs
    >>> r = rank_runs("1 0 a 2\\n1 0 b 0\\n1 0 c 1\\n", {"x": "1 Q0 b 1 3.0 x\\n"})
    >>> relevant_count(r, "1"), relevant_count(r, "1", rel=2)
    (2, 1)
    """
    r = _one(rankings)
    where = np.flatnonzero(r.queries == query)
    if not len(where):
        raise ValidationError(f"query {query!r} was not evaluated for {r.system!r} (evaluated: {_few(r.queries)})")
    return int(r.num_rel(rel)[int(where[0])])


# ---- the table -----------------------------------------------------------------------------------------
def _table(codes: np.ndarray, num_rel: int, level: int, contrib: np.ndarray, ideal: np.ndarray, gain: str,
           discount: str, base: float, top: int, docids: np.ndarray, scores: np.ndarray) -> pd.DataFrame:
    """The anatomy of one ranking from its relevance codes and its DCG and ideal DCG contributions."""
    n = len(codes)
    pos = np.arange(1, n + 1)
    relevant = codes >= max(level, 0)
    found = np.cumsum(relevant)
    precision = found / pos
    recall = found / num_rel if num_rel > 0 else np.zeros(n)
    total = precision + recall
    f1 = np.divide(2.0 * precision * recall, total, out=np.zeros(n), where=total > 0)
    ap_contribution = np.where(relevant, precision, 0.0)
    ap_sum = np.cumsum(ap_contribution)
    ap = ap_sum / num_rel if num_rel > 0 else np.zeros(n)
    ap_found = np.divide(ap_sum, found, out=np.zeros(n), where=found > 0)
    dcg = np.cumsum(contrib)
    idcg = _prefix(np.cumsum(ideal), n)
    ndcg = np.divide(dcg, idcg, out=np.zeros(n), where=idcg > 0)
    first = int(pos[relevant][0]) if relevant.any() else 0
    rr = np.where((first > 0) & (pos >= first), 1.0 / max(first, 1), 0.0)
    grade_capped = np.minimum(np.maximum(codes, 0), top).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # past grade 1023, 2**grade overflows: NaN, as ERR
        stop = np.where(codes >= 1, (np.exp2(grade_capped) - 1.0) / np.exp2(top), 0.0)
    reach = np.concatenate(([1.0], np.cumprod(1.0 - stop)[:-1]))
    err = np.cumsum(stop * reach / pos)
    return pd.DataFrame({
        "rank": pos, "docid": docids, "score": scores, "grade": grades_or_nan(codes), "judged": codes >= 0,
        "relevant": relevant, "precision": precision, "recall": recall, "f1": f1,
        "ap_contribution": ap_contribution, "ap": ap, "ap_found": ap_found,
        "gain": gains(codes, gain), "discount": discount_divisor(pos, discount, base), "dcg": dcg, "idcg": idcg,
        "ndcg": ndcg, "rr": rr, "err": err, "stop_probability": stop}, columns=list(COLUMNS))


def _prefix(cumulative: np.ndarray, n: int) -> np.ndarray:
    """The running sum at ranks 1..n, constant after its last element (0 when it is empty)."""
    if not len(cumulative):
        return np.zeros(n)
    idx = np.minimum(np.arange(n), len(cumulative) - 1)
    return cumulative[idx]


def _one(rankings) -> Rankings:
    if isinstance(rankings, Rankings):
        return rankings
    if isinstance(rankings, Sequence) and not isinstance(rankings, (str, bytes)) and len(rankings) == 1 \
            and isinstance(rankings[0], Rankings):
        return rankings[0]
    raise ValidationError("anatomy reads one system: give one Rankings (from metrics.rank_runs)")


def _max_grade(given: int | None, top: int) -> int:
    if given is None:
        return max(top, 1)
    return min(check("err_max_grade", given, COUNT), int(np.iinfo(np.int64).max))  # grades are int64: a larger g_max caps none either


def _codes(values: Sequence, name: str) -> np.ndarray:
    """Grades as int64 relevance codes: a missing or negative grade becomes -1 (not judged)."""
    if isinstance(values, (str, bytes)):
        raise refuse(name, "a sequence of whole numbers", values)
    out = []
    for value in values:
        if value is None or (isinstance(value, (float, np.floating)) and np.isnan(value)):
            out.append(-1)
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer, float, np.floating)) \
                or not float(value).is_integer():
            raise refuse(name, "whole numbers (or None for unjudged)", value)
        out.append(max(int(value), -1))
    return np.asarray(out, dtype=np.int64)


def _few(values: np.ndarray, n: int = 5) -> str:
    shown = ", ".join(str(v) for v in values[:n])
    return (shown + ", ..." if len(values) > n else shown) or "none"
