"""Measures worked through on one ranking, for teaching: the formula, then the same formula with this
ranking's numbers in it, and what each convention does to a number.

:func:`worked` reads the last row of an anatomy table (:mod:`metrics.teaching.anatomy`) and writes each measure
as LaTeX with the numbers substituted; the formula and the description come from the measure's registry
entry. :func:`convention_effects` evaluates one topic under each choice of a convention (gain, discount,
ideal ranking, interpolation rule, AP's denominator, relevance level). :func:`ranking_files` turns a
ranking typed in as grades into a qrels and a run, so that it is evaluated by the same code as any run.
:func:`comparison_in_words` reads the result of paired significance tests in plain sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from metrics.checks import COUNT, Integer, check, checked, refuse
from metrics.errors import ValidationError
from metrics.gains import DISCOUNTS, GAINS, IDEALS, TREC_EVAL
from metrics.measures import parse_measure
from metrics.rankings import Rankings

__all__ = ["WorkedMeasure", "worked", "convention_effects", "ranking_files", "comparison_in_words", "MAX_TERMS"]

MAX_TERMS = 8
"""Sums with more terms than this are written with their first and last terms only."""


@dataclass(frozen=True)
class WorkedMeasure:
    """One measure of one ranking, worked through.

    Attributes
    ----------
    measure : str
        The measure as the registry spells it (``P@8``, ``nDCG(gain="exp")@8``); :func:`metrics.evaluate`
        on the same ranking gives ``value``.
    value : float
    description, formula : str
        The registry's description and LaTeX formula of the measure.
    substituted : str
        LaTeX: the formula with this ranking's numbers, ending ``= value``.
    """

    measure: str
    value: float
    description: str
    formula: str
    substituted: str


def _n(value: float, digits: int = 4) -> str:
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _sum(terms: Sequence[str]) -> str:
    if not terms:
        return "0"
    if len(terms) > MAX_TERMS:
        terms = [*terms[: MAX_TERMS - 2], r"\cdots", terms[-1]]
    return " + ".join(terms)


@checked(num_rel=Integer(0))
def worked(table: pd.DataFrame, num_rel: int, *, gain: str = "linear", discount: str = "log2",
           complete: bool = True) -> tuple[WorkedMeasure, ...]:
    """P, R, F1, AP, RR, DCG, nDCG and ERR of a ranking, each with its formula and its numbers.

    Parameters
    ----------
    table : pandas.DataFrame
        An anatomy table (:func:`metrics.teaching.anatomy.anatomy` or
        :func:`~metrics.teaching.anatomy.anatomy_of_ranking`), or its first n rows; its last row holds the measures of the top n.
    num_rel : int
        R, the number of relevant documents of the topic in the judgments.
    gain, discount : str
        The gain and discount the table was computed with (they name the DCG measures).
    complete : bool, default=True
        Whether the table holds the whole ranking: then AP and RR are the measures without a cutoff,
        otherwise ``AP@n`` and ``RR@n``.

    Returns
    -------
    tuple of WorkedMeasure

    Examples
    --------
    >>> from metrics.teaching.anatomy import anatomy_of_ranking
    >>> items = worked(anatomy_of_ranking([1, 0, 1, 1, 0, 1, 0, 0]), 4)
    >>> [(w.measure, round(w.value, 4)) for w in items][:4]
    [('P@8', 0.5), ('R@8', 1.0), ('F@8', 0.6667), ('AP', 0.7708)]
    >>> print(items[3].substituted)
    AP = \\frac{1}{4}\\left(1 + 0.6667 + 0.75 + 0.6667\\right) = 0.7708
    """
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise ValidationError("worked() needs an anatomy table with at least one row")
    last = table.iloc[-1]
    n = int(last["rank"])
    relevant = table["relevant"].to_numpy(dtype=bool)
    found = int(relevant.sum())
    ranks = table["rank"].to_numpy()[relevant]
    params = [f'{name}="{value}"' for name, value in (("gain", gain), ("discount", discount))
              if value != TREC_EVAL[name]]
    dcg_name = "DCG" + (f"({','.join(params)})" if params else "")
    ndcg_name = "n" + dcg_name
    ap_name, rr_name = ("AP", "RR") if complete else (f"AP@{n}", f"RR@{n}")

    gains = table["gain"].to_numpy(dtype=np.float64)
    discounts = table["discount"].to_numpy(dtype=np.float64)
    dcg_terms = [rf"\frac{{{_n(g)}}}{{{_n(d)}}}" for g, d in zip(gains, discounts) if g > 0]
    stop = table["stop_probability"].to_numpy(dtype=np.float64)
    reach = np.concatenate(([1.0], np.cumprod(1.0 - stop)[:-1]))
    err_terms = [_n(s * c / i) for s, c, i in zip(stop, reach, table["rank"].to_numpy()) if s > 0]
    p, r = float(last["precision"]), float(last["recall"])

    formulas = [
        (f"P@{n}", last["precision"], rf"P@{n} = \frac{{{found}}}{{{n}}} = {_n(p)}"),
        (f"R@{n}", last["recall"], rf"R@{n} = \frac{{{found}}}{{{num_rel}}} = {_n(r)}" if num_rel
         else rf"R@{n} = 0 \quad (\text{{no relevant documents}})"),
        (f"F@{n}", last["f1"], rf"F_1@{n} = \frac{{2 \cdot {_n(p)} \cdot {_n(r)}}}{{{_n(p)} + {_n(r)}}} = "
                               rf"{_n(float(last['f1']))}" if p + r > 0 else rf"F_1@{n} = 0"),
        (ap_name, last["ap"], rf"AP = \frac{{1}}{{{num_rel}}}\left("
                              rf"{_sum([_n(v) for v in table['ap_contribution'].to_numpy()[relevant]])}\right) = "
                              rf"{_n(float(last['ap']))}" if num_rel else r"AP = 0 \quad (\text{no relevant documents})"),
        (rr_name, last["rr"], rf"RR = \frac{{1}}{{{int(ranks[0])}}} = {_n(float(last['rr']))}" if found
         else rf"RR = 0 \quad (\text{{no relevant document in the top {n}}})"),
        (f"{dcg_name}@{n}", last["dcg"], rf"DCG@{n} = {_sum(dcg_terms)} = {_n(float(last['dcg']))}"),
        (f"{ndcg_name}@{n}", last["ndcg"], rf"nDCG@{n} = \frac{{DCG@{n}}}{{IDCG@{n}}} = "
                                            rf"\frac{{{_n(float(last['dcg']))}}}{{{_n(float(last['idcg']))}}} = "
                                            rf"{_n(float(last['ndcg']))}" if last["idcg"] > 0
         else rf"nDCG@{n} = 0 \quad (IDCG@{n} = 0)"),
        (f"ERR@{n}", last["err"], rf"ERR@{n} = {_sum(err_terms)} = {_n(float(last['err']))}"),
    ]
    out = []
    for spec, value, substituted in formulas:
        measure = parse_measure(spec)
        out.append(WorkedMeasure(measure=str(measure), value=float(value), description=type(measure).description,
                                 formula=type(measure).latex, substituted=substituted))
    return tuple(out)


@checked(cutoff=COUNT)
def convention_effects(rankings, query: str, cutoff: int) -> pd.DataFrame:
    """One topic's numbers under each choice of each convention that changes them.

    Parameters
    ----------
    rankings : Rankings
        One system's rankings (from :func:`metrics.rank_runs`).
    query : str
    cutoff : int
        The k of nDCG@k.

    Returns
    -------
    pandas.DataFrame
        Columns ``convention``, ``choice``, ``measure`` (a registry spelling, or ``11pt_avg`` for the
        interpolation rules), ``value`` and ``default`` (the choice trec_eval makes). Conventions:
        gain, discount and ideal ranking of nDCG@k, the interpolation rule of the 11-point average, the
        denominator of AP (relevant documents in the judgments, or those found), and the relevance level
        of AP (when the topic has grades above 1).

    Examples
    --------
    A ranking that misses the best document (grade 2): only the ideal ranking formed from every judged
    document holds that against it.

    >>> from metrics import rank_runs
    >>> r = rank_runs("1 0 a 1\\n1 0 b 1\\n1 0 c 2\\n", {"x": "1 Q0 b 1 2 x\\n1 Q0 a 2 1 x\\n"})[0]
    >>> effects = convention_effects(r, "1", 2)
    >>> effects[effects["convention"] == "ideal ranking"][["choice", "value"]].round(4).values.tolist()
    [['all judged (trec_eval)', 0.6199], ['retrieved only', 1.0]]
    """
    from metrics.curves import eleven_point_rules, eleven_point_table
    from metrics.evaluate import per_query_frame, resolve_measures
    from metrics.teaching.anatomy import anatomy

    if not isinstance(rankings, Rankings):
        raise refuse("rankings", "Rankings (from metrics.rank_runs)", rankings)
    one = rankings.select_queries([query])
    if not one.n_queries:
        raise ValidationError(f"query {query!r} was not evaluated for {rankings.system!r}")
    k = int(cutoff)
    rows = []
    for convention, param, choices in (("gain", "gain", GAINS), ("discount", "discount", DISCOUNTS),
                                       ("ideal ranking", "ideal", IDEALS)):
        for name, label in choices.items():
            default = name == TREC_EVAL[param]
            rows.append((convention, f"{label} (trec_eval)" if default else label,
                         f"nDCG@{k}" if default else f'nDCG({param}="{name}")@{k}', default))
    rows.append(("AP denominator", "relevant documents judged (trec_eval)", "AP", True))
    present = one.grade_values[(one.rel_levels[0] > 0) & (one.grade_values > 0)].tolist()  # never a dense range
    level = one.conventions.relevance_level
    for grade in sorted(set(present) | ({level} if present and 1 <= level <= present[-1] else set())):
        if grade != level:
            rows.append(("relevance level", f"grade ≥ {grade}", f"AP(rel={grade})", False))
        else:
            rows.append(("relevance level", f"grade ≥ {grade} (as loaded)", "AP", True))
    rows = [(c, choice, str(parse_measure(spec)), default) for c, choice, spec, default in rows]
    pairs = resolve_measures(list(dict.fromkeys(spec for _, _, spec, _ in rows)))
    values = per_query_frame(one, pairs).set_index("measure")["value"]
    frame = pd.DataFrame([(c, choice, spec, float(values[spec]), default) for c, choice, spec, default in rows],
                         columns=["convention", "choice", "measure", "value", "default"])
    table = anatomy(one, str(query))
    ap_found = float(table["ap_found"].iloc[-1]) if len(table) else 0.0
    found = pd.DataFrame([("AP denominator", "relevant documents found (some textbooks)", "AP_found", ap_found,
                           False)], columns=frame.columns)
    rules = eleven_point_table(eleven_point_rules(one, average=False), str(query))
    rule_rows = pd.DataFrame({"convention": "interpolation rule", "choice": rules["rule"].to_numpy(),
                              "measure": "11pt_avg", "value": rules["11pt_avg"].to_numpy(dtype=np.float64),
                              "default": (rules["rule"] == "trec_eval-9").to_numpy()})
    ap_index = int(np.flatnonzero(frame["convention"] == "AP denominator")[0])
    parts = [frame.iloc[: ap_index + 1], found, frame.iloc[ap_index + 1:], rule_rows]
    return pd.concat([p for p in parts if len(p)], ignore_index=True)


@checked(missing_grade=COUNT)
def ranking_files(grades: Sequence, missing: int | Sequence[int] = 0, *, missing_grade: int = 1,
                  query: str = "1") -> tuple[str, str]:
    """A qrels and a run (TREC text) holding one topic's ranking given as its list of grades.

    Parameters
    ----------
    grades : sequence of int or None
        The grade of the document at each rank, top first; None (or NaN) for a document without a judgment.
    missing : int or sequence of int, default=0
        Judged relevant documents the ranking does not retrieve (they lower recall and AP): how many, or
        the grade of each.
    missing_grade : int, default=1
        Their grade, when ``missing`` is a number.
    query : str, default="1"

    Returns
    -------
    qrels, run : str
        Documents ``d1``, ``d2``, ... ranked in that order (scores n, n - 1, ..., 1) and judged with their
        grades; missed documents ``m1``, ``m2``, ... in the qrels only.

    Examples
    --------
    >>> qrels, run = ranking_files([2, None, 0], missing=1)
    >>> print(qrels, end="")
    1 0 d1 2
    1 0 d3 0
    1 0 m1 1
    >>> print(run.splitlines()[0])
    1 Q0 d1 1 3 rankscope
    """
    if isinstance(grades, (str, bytes)):
        raise refuse("grades", "a sequence of whole numbers (or None for unjudged)", grades)
    if isinstance(missing, (list, tuple, np.ndarray)):
        missed = list(missing)
        for g in missed:
            check("missing grades", g, Integer(1))
    elif isinstance(missing, bool) or not isinstance(missing, (int, np.integer)) or missing < 0:
        raise refuse("missing", "a whole number >= 0 or a list of grades", missing)
    else:
        missed = [int(missing_grade)] * int(missing)
    clean = []
    for g in grades:
        if g is None or (isinstance(g, (float, np.floating)) and np.isnan(g)):
            clean.append(None)
        elif isinstance(g, bool) or not isinstance(g, (int, np.integer, float, np.floating)) \
                or not float(g).is_integer() or g < 0:
            raise refuse("grades", "whole numbers >= 0 (or empty for unjudged)", g)
        else:
            clean.append(int(g))
    if not clean:
        raise ValidationError("the ranking needs at least one document")
    n = len(clean)
    qrels = "".join(f"{query} 0 d{i + 1} {g}\n" for i, g in enumerate(clean) if g is not None)
    qrels += "".join(f"{query} 0 m{i + 1} {int(g)}\n" for i, g in enumerate(missed))
    run = "".join(f"{query} Q0 d{i + 1} {i + 1} {n - i} rankscope\n" for i in range(n))
    return qrels, run


_TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
               "permutation": "randomisation test", "bootstrap": "bootstrap test", "tukey": "Tukey's HSD"}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli"}


def comparison_in_words(comparison, limit: int = 4) -> tuple[str, ...]:
    """Paired tests of systems (a :class:`metrics.stats.significance.Comparison`) read in plain sentences.

    Parameters
    ----------
    comparison : Comparison
    limit : int, default=4
        At most this many significant differences are spelled out (smallest p-values first).

    Returns
    -------
    tuple of str
        How many comparisons are significant and how the p-values were adjusted; then each significant
        difference (which system is better, by how much on average, its adjusted p-value and its topic
        counts); then, when there is one, the non-significant pair with the smallest p-value, said to be
        within chance. "Better" follows each measure's direction.

    Examples
    --------
    >>> from metrics.stats.significance import compare_systems
    >>> per_query = pd.DataFrame({"system": ["b"] * 6 + ["x"] * 6, "query": list("123456") * 2,
    ...                           "measure": "AP", "value": [0.1, 0.2, 0.3, 0.2, 0.1, 0.2,
    ...                                                      0.5, 0.6, 0.7, 0.6, 0.6, 0.5]})
    >>> for line in comparison_in_words(compare_systems(per_query, baseline="b")):
    ...     print(line)
    1 of 1 comparisons is significant at alpha = 0.05 (paired t-test on 6 topics, Holm-adjusted p-values).
    x is better than b on AP by 0.4000 on average (adjusted p = 2.04e-05; better on 6 topics, worse on 0, equal on 0).
    """
    frame = comparison.frame
    if frame.empty:
        return ("There is nothing to compare.",)
    test = _TEST_NAMES.get(comparison.test, f"{comparison.test} test")
    adjusted = "p-values adjusted by the test itself" if comparison.test == "tukey" else (
        "unadjusted p-values" if comparison.correction == "none"
        else f"{_CORRECTION_NAMES.get(comparison.correction, comparison.correction)}-adjusted p-values")
    significant = frame[frame["significant"].astype(bool)]
    n = int(frame["n"].max())
    verb = "is" if len(significant) == 1 else "are"
    lines = [f"{len(significant)} of {len(frame)} comparisons {verb} significant at alpha = {comparison.alpha:g} "
             f"({test} on {n} topics, {adjusted})."]
    for row in significant.sort_values(["p_adjusted", "measure"], kind="stable").head(int(limit)).itertuples(index=False):
        higher = parse_measure(row.measure).higher_is_better
        b_better = (row.mean_diff > 0) == higher
        better, worse = (row.system_b, row.system_a) if b_better else (row.system_a, row.system_b)
        # wins: topics where system_b scores numerically higher; "better" follows the measure's direction
        wins, losses = (row.wins, row.losses) if b_better == higher else (row.losses, row.wins)
        lines.append(f"{better} is better than {worse} on {row.measure} by {abs(row.mean_diff):.4f} on average "
                     f"(adjusted p = {row.p_adjusted:.3g}; better on {wins} topics, worse on {losses}, "
                     f"equal on {row.ties}).")
    if len(significant) > limit:
        lines.append(f"{len(significant) - int(limit)} more significant differences are in the table.")
    quiet = frame[~frame["significant"].astype(bool)]
    if len(quiet):
        row = quiet.sort_values(["p_adjusted", "measure"], kind="stable").iloc[0]
        lines.append(f"{row.system_a} and {row.system_b} differ by {abs(row.mean_diff):.4f} on {row.measure} on "
                     f"average, within what chance produces on these topics (adjusted p = {row.p_adjusted:.3g}): "
                     "the test does not show that either is better.")
    return tuple(lines)
