"""evaluate(): per-query values of any measures for any runs, as one tidy table; aggregate(): the summary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from metrics.checks import LEVEL, checked
from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.io.readers import Qrels, Run, Source, as_qrels, is_dataframe, read_run
from metrics.measures import Measure, parse_measure
from metrics.measures.per_query import (COLUMNS, DEFAULT_MEASURES, MeasureSpec, PerQuery, per_query_frame,
                                        per_query_values, resolve_measures)
from metrics.rankings import Judgments, Rankings, rank

if TYPE_CHECKING:  # pandas is imported where a table is built, not at start-up
    import pandas as pd

__all__ = ["evaluate", "aggregate", "summarise", "rank_runs", "resolve_measures", "per_query_frame", "per_query_values",
           "DEFAULT_MEASURES", "COLUMNS"]

Runs = Union[Run, Source, Sequence[Union[Run, Source]], Mapping[str, Union[Run, Source]]]


def _as_runs(runs: Runs) -> list[Run]:
    if isinstance(runs, Run) or isinstance(runs, (str, bytes, bytearray)) or hasattr(runs, "__fspath__") \
            or is_dataframe(runs):
        runs = [runs]
    if isinstance(runs, Mapping):
        out = [(r if isinstance(r, Run) else read_run(r, name=name)).renamed(name) for name, r in runs.items()]
    else:
        out = [r if isinstance(r, Run) else read_run(r) for r in runs]
    names = [r.name for r in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValidationError(f"two runs share the system name(s) {dupes}; rename one")
    if not out:
        raise ValidationError("no runs given")
    return out


def rank_runs(qrels: Qrels | Source, runs: Runs, conventions: Conventions | None = None,
              **options: Any) -> list[Rankings]:
    """Read (if needed) and rank every run once against the judgments; the input of every computation."""
    conventions = Conventions.coerce(conventions, **options)
    judgments = Judgments.from_qrels(as_qrels(qrels))
    return [rank(judgments, run, conventions) for run in _as_runs(runs)]


def evaluate(qrels: Qrels | Source, runs: Runs, measures: MeasureSpec | Iterable[MeasureSpec] = DEFAULT_MEASURES,
             *, conventions: Conventions | None = None, jobs: int | None = None, client: Any = None,
             **options: Any) -> "pd.DataFrame":
    """Evaluate runs against judgments: one row per (system, query, measure).

    Parameters
    ----------
    qrels : Qrels or path, bytes, text
    runs : Run, path, bytes, or a sequence of them, or a mapping {system name: run}
    measures : str, Measure, or a sequence of them, default=("AP", "nDCG@10", "P@10", "R@100", "RR")
        trec_eval names (``map``, ``P_10``, ``ndcg_cut.10,20``, ``all_trec``) or ir_measures-style names
        (``AP``, ``nDCG@10``, ``P(rel=2)@5``); see :func:`resolve_measures` for the labels.
    conventions : Conventions, optional
    jobs : int, optional
        Evaluate the runs on that many local worker processes, one task per run (see :mod:`metrics.scale`);
        None: in this process.
    client : dask.distributed.Client, optional
        Evaluate the runs on that Dask cluster, one task per run; workers read paths and URLs themselves.
    **options
        Fields of :class:`~metrics.conventions.Conventions` (``preset``, ``relevance_level``, ``depth``,
        ``judged_only``, ``complete``, ...), overriding ``conventions``.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``value`` (float64); systems in the order given (sorted
        by name when ``jobs`` or ``client`` is given: the same frame whatever the workers and the order of
        the runs), queries in trec_eval's order, measures in the order asked. Same shape for one or many
        measures.

    Notes
    -----
    Each run is ranked once (see :mod:`metrics.rankings`) and every measure reads the same arrays.
    Summaries come from :func:`aggregate`, which applies each measure's own rule (mean, sum, geometric).

    Examples
    --------
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n1 0 c 1\\n"
    >>> run = "1 Q0 a 1 3.0 x\\n1 Q0 b 2 2.0 x\\n1 Q0 c 3 1.0 x\\n"
    >>> evaluate(qrels, {"x": run}, ["map", "P@2"])
      system query measure     value
    0      x     1     map  0.833333
    1      x     1     P@2  0.500000
    """
    pairs = resolve_measures(measures)
    if jobs is not None or client is not None:  # one task per run on workers
        from metrics.scale.pool import evaluate_spread

        return evaluate_spread(as_qrels(qrels), runs, pairs, per_query_frame,
                               Conventions.coerce(conventions, **options), jobs=jobs, client=client)
    frames = []
    for rankings in rank_runs(qrels, runs, conventions, **options):
        frames.append(per_query_frame(rankings, pairs))
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def aggregate(per_query: "pd.DataFrame") -> "pd.DataFrame":
    """Summarise a per-query table by each measure's rule (trec_eval's ``all`` line).

    Parameters
    ----------
    per_query : pandas.DataFrame
        As returned by :func:`evaluate`.

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``measure``, ``value``, ``n_queries``: one row per (system, measure), in the
        order of the input.
    """
    per_query = PerQuery.of(per_query).frame
    rows = []
    measures: dict[str, Measure] = {}
    for (system, label), group in per_query.groupby(["system", "measure"], sort=False):
        measure = measures.setdefault(label, parse_measure(label))
        rows.append((system, label, measure.aggregate(group["value"].to_numpy()), len(group)))
    import pandas as pd

    return pd.DataFrame(rows, columns=["system", "measure", "value", "n_queries"])


@checked(confidence=LEVEL)
def summarise(per_query: "pd.DataFrame", confidence: float = 0.95) -> "pd.DataFrame":
    """Each system's value of each measure with a confidence interval over queries.

    Parameters
    ----------
    per_query : pandas.DataFrame
        As returned by :func:`evaluate`.
    confidence : float, default=0.95
        Coverage of the interval.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`aggregate` plus ``std`` (sample standard deviation over queries), ``ci_low``
        and ``ci_high``: the Student-t interval ``mean ± t(n-1) · s / √n`` for measures averaged with the
        arithmetic mean (NaN for sums, geometric means and fewer than two queries).

    Notes
    -----
    The interval treats the queries as a sample from a population of queries; it says how far the mean
    could move with other queries of the same kind, not how two systems compare (use
    :mod:`metrics.stats.significance` for that: paired tests are far more sensitive).
    """
    from scipy import stats

    summary = aggregate(per_query)
    grouped = per_query.groupby(["system", "measure"], sort=False)["value"]
    std = grouped.std(ddof=1).rename("std")
    summary = summary.join(std, on=["system", "measure"])
    n = summary["n_queries"].to_numpy(dtype=np.float64)
    mean_kind = np.array([parse_measure(m).aggregation == "mean" for m in summary["measure"]], dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = stats.t.ppf(0.5 + confidence / 2.0, np.maximum(n - 1.0, 1.0)) * summary["std"].to_numpy() / np.sqrt(n)
    half = np.where(mean_kind & (n >= 2), half, np.nan)
    summary["ci_low"] = summary["value"] - half
    summary["ci_high"] = summary["value"] + half
    return summary
