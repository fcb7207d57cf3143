"""Many systems at once: every pair (or each against a baseline), every measure, one tidy frame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from metrics.checks import LEVEL, checked
from metrics.errors import MissingTopicsError, ValidationError
from metrics.stats.significance._corrections import adjust_families
from metrics.stats.significance._inputs import (CORRECTION_ALIASES, CORRECTIONS, FAMILIES, FAMILY_ALIASES, FILL,
                                                TEST_ALIASES, TESTS, canonical, check_options, listing, snap,
                                                sorted_queries)
from metrics.stats.significance._kernels import analyse, describe
from metrics.stats.significance._maxt import MAXT, is_maxt, maxt_corrected
from metrics.stats.significance._results import COLUMNS, Comparison
from metrics.stats.significance._tukey import tukey_hsd


def _frame_checked(per_query: Any) -> pd.DataFrame:
    if not isinstance(per_query, pd.DataFrame):
        raise ValidationError(f"per_query: expected a per-query DataFrame, found {type(per_query).__name__}")
    missing = [c for c in ("system", "query", "measure", "value") if c not in per_query.columns]
    if missing:
        raise ValidationError(f"expected a per-query table with columns system, query, measure, value; "
                              f"missing {missing}")
    return per_query


def score_table(rows: pd.DataFrame, measure: str, systems: list[str],
                fill: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Systems x queries scores of one measure (the rows of that measure, of the chosen systems).

    An explicit outer join of the systems on the query id (as text): queries in order of id, a cell
    without a row is an error unless ``fill="zero"``. The row order of ``rows`` changes nothing.
    """
    queries, q_code = sorted_queries(rows["query"].to_numpy())
    s_code = pd.Categorical(rows["system"], categories=systems).codes.astype(np.int64)
    try:
        values = rows["value"].to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValidationError(f"the {measure} values: expected numbers, found {err}") from None
    if not np.all(np.isfinite(values)):
        bad = rows.iloc[int(np.flatnonzero(~np.isfinite(values))[0])]
        raise ValidationError(f"{measure} of system {bad['system']!r} on query {bad['query']!r} is not a finite number")
    seen = np.zeros((len(systems), len(queries)), dtype=np.int64)
    np.add.at(seen, (s_code, q_code), 1)
    if (seen > 1).any():
        s, q = np.argwhere(seen > 1)[0]
        raise ValidationError(f"more than one {measure} value for system {systems[s]!r}, query {queries[q]!r}")
    absent = [systems[s] for s in range(len(systems)) if not seen[s].any()]
    if absent:
        raise ValidationError(f"no {measure} values for system(s) {absent}")
    X = np.zeros((len(systems), len(queries)))
    X[s_code, q_code] = values
    if (seen == 0).any() and fill != "zero":
        parts = [f"{s!r} has no {measure} value for {listing(queries[seen[i] == 0].tolist())}"
                 for i, s in enumerate(systems) if (seen[i] == 0).any()]
        raise MissingTopicsError("the systems were not evaluated on the same queries: " + "; ".join(parts))
    return X, queries


@checked(alpha=LEVEL, fill=FILL)
def compare_systems(per_query: pd.DataFrame, measures: str | Sequence[str] | None = None, test: str = "t",
                    baseline: str | None = None, correction: str = "holm", family: str = "per_measure",
                    alpha: float = 0.05, seed: int = 0, n_resamples: int = 10000, *, confidence: float = 0.95,
                    ci: str = "bca", zero_method: str = "wilcox", wilcoxon_method: str = "auto",
                    tie_tolerance: float = 0.0, fill: str | None = None,
                    systems: Sequence[str] | None = None, client: Any = None) -> Comparison:
    """Paired tests between many systems, on one or more measures, corrected for multiple comparisons.

    Parameters
    ----------
    per_query : pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``value``, as :func:`metrics.evaluate` returns.
        System, query and measure names are compared as text.
    measures : str or sequence of str, optional
        The measures to test (default: all in the table, in order of first appearance).
    test : {"t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey"}, default="t"
        ``randomization``/``randomisation`` mean ``permutation``.
    baseline : str, optional
        Test each other system against this one (``system_a`` = baseline); default: every pair
        ``(a, b)`` with ``a`` before ``b`` in the order of ``systems``.
    correction : {"holm", "bonferroni", "bh", "by", "maxt", "none"}, default="holm"
        See :func:`adjust_pvalues`. ``maxt`` (with ``test="permutation"`` only) is Westfall and Young's
        step-down max-T on the same sign flips as the randomisation test, over each family.
    family : {"per_measure", "all"}, default="per_measure"
        The tests a correction counts together: those of each measure separately (``measure`` is also
        accepted), or every test of the comparison, all measures together (stricter). The sizes are in
        :attr:`Comparison.family_sizes`.
    alpha : float, default=0.05
        ``significant`` is ``p_adjusted < alpha``.
    seed : int, default=0
        Seed of the randomisation and bootstrap tests.
    n_resamples : int, default=10000
    confidence : float, default=0.95
        Coverage of the intervals (t, bootstrap, or Tukey's simultaneous ones).
    ci : {"bca", "percentile"}, default="bca"
        The bootstrap test's interval.
    zero_method, wilcoxon_method : str
        See :func:`wilcoxon_test` (its ``zero_method`` and ``method``).
    tie_tolerance : float, default=0.0
        Differences with ``|d| <= tie_tolerance`` are ties (win/tie/loss counts and the sign test).
    fill : {None, "zero"}, default=None
        A system with no value for a query another has: error (None) or score 0 (``"zero"``, trec_eval
        ``-c``).
    systems : sequence of str, optional
        The systems to compare, in this order (default: all, in order of first appearance). It sets
        which of two systems is ``system_a``.
    client : distributed.Client, optional
        Spread the randomisation test's chunks of pairs over this Dask cluster (``dask`` is used only
        then); the p-values are the same as without it. The other tests run here.

    Returns
    -------
    Comparison
        Its ``frame`` has one row per (measure, pair): measures in order, then pairs in order.

    Raises
    ------
    ValidationError
        Fewer than two systems or queries, an unknown measure, system or baseline, query sets that
        differ (without ``fill``), duplicate or non-finite values, a bad option.

    Notes
    -----
    * Each row equals the two-system function (:func:`paired_test`) on that pair's two Series: the
      queries are joined on their id and put in order of id, and the randomisation and bootstrap tests
      of all pairs and measures share one random matrix over those queries (one matrix product per block
      of resamples and chunk of pairs, the chunks sized to a memory budget, here or on ``client``'s
      workers). So the same data and seed give the same p-values, bit for bit, whatever the order of the
      rows of ``per_query``, the chunking or the cluster; the order of ``systems`` only decides which
      system is ``system_a``. All 44,850 pairs of 300 systems on 250 topics with 10,000 sign flips take
      seconds (``benchmarks/significance.py``).
    * A pair the two-system functions refuse does not stop the comparison: systems identical on every
      query get ``statistic`` NaN and ``p_value`` 1 (the observed value is the only one the null
      distribution holds), and count in the family; under the t-test, a pair whose differences are all
      the same non-zero number gets NaN for both (t is undefined) and is left out of the family.
    * ``tukey``: the p-values are Tukey's HSD over all the systems of each measure (an ANOVA of all of
      them, even with a baseline), already adjusted for all their pairs, so ``p_adjusted`` equals
      ``p_value`` and ``correction`` and ``family`` are not applied.

    Examples
    --------
    >>> frame = pd.DataFrame({"system": ["x"] * 4 + ["y"] * 4, "query": ["1", "2", "3", "4"] * 2,
    ...                       "measure": "AP", "value": [0.1, 0.2, 0.3, 0.4, 0.2, 0.4, 0.3, 0.6]})
    >>> c = compare_systems(frame, test="permutation")
    >>> c.frame[["system_a", "system_b", "p_value", "mean_diff", "wins"]].round(4).to_dict("records")
    [{'system_a': 'x', 'system_b': 'y', 'p_value': 0.25, 'mean_diff': 0.125, 'wins': 3}]
    """
    test, correction, family, opts = _checked_options(test, correction, family, n_resamples=n_resamples,
                                                      seed=seed, confidence=confidence, tie_tolerance=tie_tolerance,
                                                      zero_method=zero_method, wilcoxon_method=wilcoxon_method, ci=ci)
    frame, systems = _chosen_systems(_frame_checked(per_query), systems)
    measures = _chosen_measures(frame, measures)
    baseline, ia, ib = _pairs(systems, baseline)
    tables = _score_tables(frame, measures, systems, fill)
    if test == "tukey":
        results = _tukey_results(tables, systems, ia, ib, opts)
    else:
        results = _resampled_results(tables, ia, ib, test, opts, client)
    rows = _rows(tables, results, measures, systems, ia, ib, test)
    out = maxt_corrected(rows, tables, ia, ib, family, alpha, opts) if correction == MAXT else \
        _corrected(rows, test, family, correction, alpha)
    return Comparison(frame=out, test=test, correction=correction, family=family, alpha=float(alpha),
                      baseline=baseline, systems=tuple(systems), measures=tuple(measures), seed=opts["seed"],
                      n_resamples=opts["n_resamples"], confidence=opts["confidence"])


# ---- the steps of compare_systems, in the order it takes them ------------------------------------------------
def _checked_options(test: str, correction: str, family: str,
                     **options: Any) -> tuple[str, str, str, dict[str, Any]]:
    """The test, correction and family by their canonical names, and the tests' options normalised (alpha and
    fill are checked by :func:`compare_systems`'s declaration)."""
    test = canonical(test, TESTS, TEST_ALIASES, "test")
    correction = MAXT if is_maxt(correction) else canonical(correction, CORRECTIONS + (MAXT,), CORRECTION_ALIASES,
                                                            "correction")
    family = canonical(family, FAMILIES, FAMILY_ALIASES, "family")
    if correction == MAXT and test != "permutation":
        raise ValidationError(f"the maxt correction resamples the permutation test's sign flips: use test "
                              f"'permutation', not {test!r}")
    return test, correction, family, check_options(**options)


def _chosen_systems(frame: pd.DataFrame, systems: Sequence[str] | None) -> tuple[pd.DataFrame, list[str]]:
    """The rows of the systems compared (names as text) and those systems, in order: at least two."""
    frame = frame.assign(system=frame["system"].astype(str), measure=frame["measure"].astype(str))
    present = list(pd.unique(frame["system"]))
    if systems is None:
        systems = present
    else:
        systems = [systems] if isinstance(systems, str) else [str(s) for s in systems]
        unknown = [s for s in systems if s not in present]
        if unknown:
            raise ValidationError(f"no values for system(s) {unknown} in the table; it has {present}")
        if len(set(systems)) != len(systems):
            raise ValidationError(f"systems: expected distinct names, found {systems}")
        frame = frame[frame["system"].isin(systems)]
    if len(systems) < 2:
        raise ValidationError(f"comparing systems: expected at least two, found {len(systems)}: {systems}")
    return frame, systems


def _chosen_measures(frame: pd.DataFrame, measures: str | Sequence[str] | None) -> list[str]:
    """The measures tested, in order, each once: all of the table's unless named."""
    available = list(pd.unique(frame["measure"]))
    if measures is None:
        measures = available
    else:
        measures = list(dict.fromkeys([measures] if isinstance(measures, str) else [str(m) for m in measures]))
        unknown = [m for m in measures if m not in available]
        if unknown:
            raise ValidationError(f"no values of measure(s) {unknown} in the table; it has {available}")
    if not measures:
        raise ValidationError("no measures to compare")
    return measures


def _pairs(systems: list[str], baseline: str | None) -> tuple[str | None, np.ndarray, np.ndarray]:
    """The baseline (as text) and the pairs tested, as indices ``ia``, ``ib`` into ``systems``.

    With a baseline: the baseline against each other system in order; without: every ``(a, b)`` with
    ``a`` before ``b``.
    """
    k = len(systems)
    if baseline is None:
        ia, ib = (np.asarray(x, dtype=np.int64) for x in np.triu_indices(k, 1))
        return None, ia, ib
    baseline = str(baseline)
    if baseline not in systems:
        raise ValidationError(f"baseline {baseline!r} is not one of the systems {systems}")
    ia = np.full(k - 1, systems.index(baseline))
    ib = np.array([s for s in range(k) if systems[s] != baseline], dtype=np.int64)
    return baseline, ia, ib


def _score_tables(frame: pd.DataFrame, measures: list[str], systems: list[str],
                  fill: str | None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each measure's systems x queries scores and query ids (:func:`score_table`): two queries at least."""
    by_measure = dict(tuple(frame[frame["measure"].isin(measures)].groupby("measure", sort=False)))
    tables = {}
    for measure in measures:  # in the order asked, not of the rows: the tests' stacking must not depend on it
        X, queries = score_table(by_measure[measure], measure, systems, fill)
        if X.shape[1] < 2:
            raise ValidationError(f"a paired test needs at least two queries; {measure} has {X.shape[1]}")
        tables[measure] = (X, queries)
    return tables


def _differences(X: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The differences ``b - a`` of every pair (pairs x queries) and their snapped keys (see :func:`snap`)."""
    D = X[ib] - X[ia]
    return D, snap(D, np.maximum(np.abs(X[ia]).max(axis=1), np.abs(X[ib]).max(axis=1)))


def _tukey_results(tables: dict[str, tuple[np.ndarray, np.ndarray]], systems: list[str], ia: np.ndarray,
                   ib: np.ndarray, opts: dict[str, Any]) -> dict[str, dict[str, np.ndarray]]:
    """Per measure, each pair's description with Tukey's HSD statistic, p-value and interval."""
    k = len(systems)
    row_of = {pair: r for r, pair in enumerate(zip(*np.triu_indices(k, 1)))}
    rows = np.array([row_of[(min(a, b), max(a, b))] for a, b in zip(ia, ib)], dtype=np.int64)
    flip = ia > ib  # the baseline comes after the other system: the interval changes sides
    results = {}
    for measure, (X, _) in tables.items():
        hsd = tukey_hsd(X, systems, confidence=opts["confidence"]).frame
        info = describe(*_differences(X, ia, ib), opts["tie_tolerance"], opts["confidence"])
        info["statistic"] = hsd["statistic"].to_numpy()[rows]
        info["p_value"] = hsd["p_value"].to_numpy()[rows]
        low, high = hsd["ci_low"].to_numpy()[rows], hsd["ci_high"].to_numpy()[rows]
        info["ci_low"], info["ci_high"] = np.where(flip, -high, low), np.where(flip, -low, high)
        results[measure] = info
    return results


def _resampled_results(tables: dict[str, tuple[np.ndarray, np.ndarray]], ia: np.ndarray, ib: np.ndarray,
                       test: str, opts: dict[str, Any], client: Any = None) -> dict[str, dict[str, np.ndarray]]:
    """Per measure, each pair's test; measures on the same queries are tested together, so that the
    randomisation and bootstrap tests of all of them share one random matrix."""
    groups: dict[tuple, list[str]] = {}
    for measure in sorted(tables):  # a fixed stacking, whatever the order of the measures asked
        groups.setdefault(tuple(tables[measure][1].tolist()), []).append(measure)
    results = {}
    for members in groups.values():
        pairs = [_differences(tables[m][0], ia, ib) for m in members]
        D = np.concatenate([d for d, _ in pairs], axis=0)
        K = np.concatenate([r for _, r in pairs], axis=0)
        info = analyse(D, K, test, client=client, **opts)
        for pos, m in enumerate(members):
            part = slice(pos * len(ia), (pos + 1) * len(ia))
            results[m] = {key: np.asarray(value)[part] for key, value in info.items()}
    return results


def _rows(tables: dict[str, tuple[np.ndarray, np.ndarray]], results: dict[str, dict[str, np.ndarray]],
          measures: list[str], systems: list[str], ia: np.ndarray, ib: np.ndarray, test: str) -> pd.DataFrame:
    """The comparison's table, uncorrected: one row per (measure, pair), measures in order, then pairs."""
    names = np.asarray(systems, dtype=object)
    parts = []
    for measure in measures:
        X, _ = tables[measure]
        info = results[measure]
        parts.append(pd.DataFrame({
            "system_a": names[ia], "system_b": names[ib], "measure": measure, "test": test,
            "statistic": info["statistic"], "p_value": info["p_value"], "p_adjusted": np.nan, "significant": False,
            "mean_a": X[ia].mean(axis=1), "mean_b": X[ib].mean(axis=1), "mean_diff": info["mean"],
            "ci_low": info["ci_low"], "ci_high": info["ci_high"], "effect_size": info["effect_size"],
            "rank_biserial": info["rank_biserial"], "wins": info["wins"].astype(np.int64),
            "ties": info["ties"].astype(np.int64), "losses": info["losses"].astype(np.int64),
            "n": np.full(len(ia), X.shape[1], dtype=np.int64)}))
    return pd.concat(parts, ignore_index=True)[list(COLUMNS)]


def _corrected(out: pd.DataFrame, test: str, family: str, correction: str, alpha: float) -> pd.DataFrame:
    """``out`` with ``p_adjusted`` and ``significant`` filled: each family corrected (Tukey's are already)."""
    p = out["p_value"].to_numpy(dtype=np.float64)
    if test == "tukey":
        adjusted = p.copy()
    else:
        labels = np.zeros(len(out), dtype=np.int64) if family == "all" else \
            pd.factorize(out["measure"])[0].astype(np.int64)
        adjusted = adjust_families(p, labels, correction)
    return out.assign(p_adjusted=adjusted, significant=np.nan_to_num(adjusted, nan=1.0) < alpha)
