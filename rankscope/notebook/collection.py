"""A collection held in a notebook: judgments and named runs, the dashboard's tables and its charts.

Every number comes from the one pipeline: the runs are read by :func:`metrics.read_run` (paths, or frames
of the shapes of :data:`metrics.io.frames.FRAME_SHAPES`), ranked once by :func:`metrics.rank_runs`, measured
by :func:`metrics.evaluate.per_query_frame` (what :func:`metrics.evaluate` and the dashboard's pages call),
summarised by :func:`metrics.summarise`, marked where a difference is significant by the overview's rule
(:func:`metrics.review.compare.marked_results`), and drawn by the dashboard's pure builders of
:mod:`dashboard.figures`, with the same arguments as its pages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import metrics
from metrics import Conventions, Qrels, Run, ValidationError
from metrics.evaluate import per_query_frame
from metrics.io.readers import Source, is_dataframe

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from metrics.review.compare import SummaryTable
    from metrics.stats.significance import Comparison
    from rankscope.notebook.serve import Dashboard

__all__ = ["FIGURES", "Collection"]

FIGURES = {
    "summary": "each system's mean of one measure with its 95% confidence interval, † / ‡ after a system "
               "significantly better / worse than the baseline (the overview's chart)",
    "distribution": "one measure over the topics, a box per system (the queries page)",
    "topics": "the per-topic difference b - a of one measure, sorted (the queries page)",
    "pr": "interpolated precision at 11 recall levels, or one topic's precision-recall curve (the curves page)",
    "at_k": "P@k and R@k for k up to depth, over all topics or one (the curves page)",
}
"""The charts :meth:`Collection.figure` draws, by name."""

WIDTH = 760  # pixels: a notebook's output column, the width the figures' texts are fitted to


class Collection:
    """Judgments and named runs, evaluated as the dashboard evaluates them.

    Parameters
    ----------
    qrels : path, bytes, text, pandas.DataFrame or Qrels
        The judgments: a TREC qrels file, or a frame of ``query, docid, relevance``, PyTerrier's
        ``qid, docno, label`` or ir_measures' ``query_id, doc_id, relevance``.
    runs : mapping or sequence
        ``{system name: run}``, or a list of paths (each named after its file by
        :func:`metrics.system_name`, ``bm25.run.gz`` -> ``bm25``). A run is a path, bytes, a
        :class:`metrics.Run`, or a frame of ``query, docid, score``, PyTerrier's ``qid, docno, score,
        rank`` or ir_measures' ``query_id, doc_id, score`` (a frame only in a mapping: it has no name).
    measures : sequence of str, optional
        The measures of :meth:`per_query` and :meth:`summary` when none are asked (default
        :data:`metrics.DEFAULT_MEASURES`, the dashboard's).
    conventions : metrics.Conventions, optional
        How ties, missing topics and relevance levels are treated (default trec_eval's).
    **options
        Fields of :class:`metrics.Conventions` (``relevance_level=2``, ``complete=True`` ...).

    Raises
    ------
    metrics.RankscopeError
        A file or frame cannot be read (one line naming it), two runs share a name, no run is given.

    Examples
    --------
    >>> from rankscope.notebook import Collection
    >>> qrels = "1 0 a 1\\n1 0 b 0\\n2 0 c 1\\n"
    >>> nb = Collection(qrels, {"x": "1 Q0 a 1 2.0 x\\n1 Q0 b 2 1.0 x\\n2 Q0 c 1 1.0 x\\n"}, measures=["AP"])
    >>> nb.summary()[["system", "measure", "value", "n_queries"]]
      system measure  value  n_queries
    0      x      AP    1.0          2
    """

    def __init__(self, qrels: Qrels | Source, runs: Mapping[str, Any] | Sequence[Any], *,
                 measures: Sequence[str] | None = None, conventions: Conventions | None = None,
                 **options: Any) -> None:
        self.qrels: Qrels = qrels if isinstance(qrels, Qrels) else metrics.read_qrels(qrels)
        self._qrels_source = qrels
        self._sources: dict[str, Any] = {}
        read = []
        for name, source in _named(runs):
            run = source if isinstance(source, Run) else metrics.read_run(source, name=name)
            run = run.renamed(name) if name is not None else run
            if run.name in self._sources:
                raise ValidationError(f"two runs are both called {run.name!r}: give the runs as a mapping "
                                      "{system name: run}")
            self._sources[run.name] = source
            read.append(run)
        self.runs: tuple[Run, ...] = tuple(read)
        self.conventions: Conventions = Conventions.coerce(conventions, **options)
        self.measures: tuple[str, ...] = tuple(metrics.DEFAULT_MEASURES if measures is None else measures)
        self._ranked = metrics.rank_runs(self.qrels, list(self.runs), self.conventions)
        self._tables: dict[tuple[str, ...], pd.DataFrame] = {}
        self._paired: dict[tuple[str, ...], pd.DataFrame] = {}  # per-topic values of the tests (every topic)
        self._compared: dict[tuple, Comparison] = {}

    def __repr__(self) -> str:
        return f"Collection({self.qrels.name!r}, {len(self.runs)} runs: {', '.join(self.systems)})"

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems' names, in the order given."""
        return tuple(run.name for run in self.runs)

    # -- tables -------------------------------------------------------------------------------------------
    def per_query(self, measures: Sequence[str] | str | None = None) -> "pd.DataFrame":
        """Each system's value of each measure on each topic: the dashboard's tidy table.

        Parameters
        ----------
        measures : str or sequence of str, optional
            ir_measures or trec_eval names (``nDCG@10``, ``P(rel=2)@5``, ``map``); default the
            collection's ``measures``.

        Returns
        -------
        pandas.DataFrame
            Columns ``system``, ``query``, ``measure``, ``value``, as :func:`metrics.evaluate` returns them.
        """
        import pandas as pd

        key = self._measures(measures)
        if key not in self._tables:
            pairs = metrics.resolve_measures(list(key))
            self._tables[key] = pd.concat([per_query_frame(r, pairs) for r in self._ranked], ignore_index=True)
        return self._tables[key].copy()

    def summary(self, measures: Sequence[str] | str | None = None, *, baseline: str | None = None,
                test: str = "t", correction: str = "holm", alpha: float = 0.05) -> "pd.DataFrame":
        """Each system's mean (or each measure's own aggregate) with its 95% confidence interval and its
        significance marker, as the dashboard's overview shows them.

        Parameters
        ----------
        measures : str or sequence of str, optional
            As for :meth:`per_query`.
        baseline : str, optional
            Mark each system significantly better (``†``) or worse (``‡``) than this one; None: each system
            gets a letter (:meth:`results`' ``letters``) and each value the letters of the systems it is
            significantly better than.
        test : str, default="t"
            The paired test (:data:`metrics.stats.significance.TESTS`: ``t``, ``wilcoxon``, ``sign``,
            ``permutation``, ``bootstrap``, ``tukey``).
        correction : str, default="holm"
            The correction within each measure (:data:`metrics.stats.significance.CORRECTIONS`).
        alpha : float, default=0.05
            The significance level.

        Returns
        -------
        pandas.DataFrame
            :func:`metrics.summarise` of :meth:`per_query` (``system``, ``measure``, ``value``,
            ``n_queries``, ``std``, ``ci_low``, ``ci_high``) and ``marker``, the overview's (``""`` when not
            significant, and for counts and sums, which are not tested). When nothing could be tested (one
            system, one topic), every marker is ``""`` and ``attrs["untested"]`` says why (else None).

        Raises
        ------
        metrics.ValidationError
            An unknown baseline, test or correction, or a level outside (0, 1).

        See Also
        --------
        results : the same markers in the table the dashboard exports (LaTeX, Markdown, CSV).
        """
        table, reason = self._results(self._measures(measures), baseline, test, correction, alpha)
        means = metrics.summarise(self.per_query(measures))
        marks = table.cells().set_index(["system", "measure"])["marker"]
        means["marker"] = [marks.get((s, m), "") for s, m in zip(means["system"].astype(str), means["measure"])]
        means.attrs["untested"] = reason
        return means

    def results(self, measures: Sequence[str] | str | None = None, *, baseline: str | None = None,
                test: str = "t", correction: str = "holm", alpha: float = 0.05) -> "SummaryTable":
        """The overview's results table: systems x measures with intervals and significance markers.

        The same table the dashboard exports: render it with :func:`metrics.review.compare.to_latex`,
        ``to_markdown``, ``to_csv`` or ``to_text``; its ``caption()`` says what the markers mean.

        Parameters
        ----------
        measures, baseline, test, correction, alpha
            As for :meth:`summary`.

        Returns
        -------
        metrics.review.compare.SummaryTable
            From :func:`metrics.review.compare.marked_results`, the overview's rule: the means of per-topic
            values tested on every topic (:func:`metrics.stats.significance.topics.paired_conventions`),
            corrected within each measure, randomised tests seeded with
            :data:`metrics.review.compare.marked.SEED`.

        Raises
        ------
        metrics.ValidationError
            As for :meth:`summary`.
        """
        return self._results(self._measures(measures), baseline, test, correction, alpha)[0]

    def comparison(self, measures: Sequence[str] | str | None = None, *, baseline: str | None = None,
                   test: str = "t", correction: str = "holm", alpha: float = 0.05) -> "Comparison":
        """The paired tests behind the markers of :meth:`summary`, :meth:`results` and the summary chart.

        Parameters
        ----------
        measures, baseline, test, correction, alpha
            As for :meth:`summary`.

        Returns
        -------
        metrics.stats.significance.Comparison
            :func:`metrics.review.compare.results_comparison`: its ``frame`` holds each pair's
            ``mean_diff`` (``system_b - system_a``), ``p_value``, ``p_adjusted`` and ``significant``.

        Raises
        ------
        metrics.ValidationError
            As for :meth:`summary`; also when there is nothing to test (one system, one topic, only counts
            and sums), which :meth:`summary` reports in ``attrs["untested"]`` instead.
        """
        return self._comparison(self._measures(measures), *self._options(baseline, test, correction, alpha))

    def _options(self, baseline: str | None, test: str, correction: str, alpha: float) -> tuple:
        from metrics.review.compare.marked import results_options

        return (None if baseline is None else self._system(baseline), *results_options(test, correction, alpha))

    def _comparison(self, key: tuple[str, ...], baseline: str | None, test: str, correction: str,
                    alpha: float) -> "Comparison":
        from metrics.review.compare import results_comparison
        from metrics.review.compare.marked import ONE_SYSTEM

        chosen = (key, baseline, test, correction, alpha)
        if chosen not in self._compared:
            if len(self.systems) < 2:
                raise ValidationError(ONE_SYSTEM)
            self._compared[chosen] = results_comparison(self._tested(key), key, test=test, baseline=baseline,
                                                        correction=correction, alpha=alpha)
        return self._compared[chosen]

    def _results(self, key: tuple[str, ...], baseline: str | None, test: str, correction: str,
                 alpha: float) -> "tuple[SummaryTable, str | None]":
        """The results table and why it has no markers (None when it has them)."""
        from metrics.review.compare import marked_results

        options = self._options(baseline, test, correction, alpha)
        return marked_results(metrics.summarise(self.per_query(key)), lambda: self._comparison(key, *options),
                              baseline=options[0])

    def _tested(self, key: tuple[str, ...]) -> "pd.DataFrame":
        """The per-topic values the tests compare: every system on every topic (the report's rule)."""
        import pandas as pd

        from metrics.stats.significance.topics import paired_conventions

        paired = paired_conventions(self.conventions, self._ranked)
        if paired == self.conventions:
            return self.per_query(key)
        if key not in self._paired:
            ranked = metrics.rank_runs(self.qrels, list(self.runs), paired)
            pairs = metrics.resolve_measures(list(key))
            self._paired[key] = pd.concat([per_query_frame(r, pairs) for r in ranked], ignore_index=True)
        return self._paired[key].copy()

    def compare(self, a: str, b: str, measure: str | None = None) -> "pd.DataFrame":
        """Systems ``a`` and ``b`` topic by topic on one measure, as the queries page shows them.

        Parameters
        ----------
        a, b : str
            System names; ``b - a`` is the difference.
        measure : str, optional
            Default the collection's first measure.

        Returns
        -------
        pandas.DataFrame
            One row per topic both answer, sorted by the difference: ``query``, ``a``, ``b``, ``diff``
            (:func:`metrics.review.topic_by_topic.paired_topics`).
        """
        from metrics.review.topic_by_topic import paired_topics

        measure = self._measure(measure)
        self._system(a), self._system(b)
        return paired_topics(self.per_query((measure,)), measure, a, b).frame.reset_index(drop=True)

    # -- figures ------------------------------------------------------------------------------------------
    def figure(self, kind: str = "summary", *, measure: str | None = None, a: str | None = None,
               b: str | None = None, topic: str | None = None, depth: int = 100, baseline: str | None = None,
               test: str = "t", correction: str = "holm", alpha: float = 0.05) -> "go.Figure":
        """One of the dashboard's charts of this collection, drawn by its own builder.

        Parameters
        ----------
        kind : str, default="summary"
            A name of :data:`FIGURES`: ``summary``, ``distribution``, ``topics``, ``pr``, ``at_k``.
        measure : str, optional
            The measure of ``summary``, ``distribution`` and ``topics`` (default the first measure).
        a, b : str, optional
            The two systems of ``topics`` (default the first two).
        topic : str, optional
            ``pr`` and ``at_k``: one topic instead of the mean over topics.
        depth : int, default=100
            ``at_k``: the deepest rank shown.
        baseline : str, optional
            ``summary``: ``†`` / ``‡`` after each system significantly better / worse than this one, which is
            named "(baseline)" and drawn as a dotted line, exactly as the overview draws it (the markers of
            :meth:`results`). None: no markers (letters, whose key is the table's, are left to
            :meth:`summary` and :meth:`results`).
        test, correction, alpha
            ``summary`` with a ``baseline``: as for :meth:`summary`.

        Returns
        -------
        plotly.graph_objects.Figure
            Shown in a notebook through plotly's JSON mime type (no script loaded from the network).

        Raises
        ------
        metrics.ValidationError
            An unknown kind, system, topic, baseline, test or correction.
        """
        from dashboard import figures

        if kind not in FIGURES:
            raise ValidationError(f"figure: expected one of {', '.join(FIGURES)}, found {kind!r}")
        colors = figures.system_colors(self.systems)
        if kind in ("summary", "distribution", "topics"):
            measure = self._measure(measure)
        if kind == "summary":
            markers = None
            if baseline is not None:
                table, _ = self._results((measure,), baseline, test, correction, alpha)
                markers = table.markers[measure].to_dict()
            fig = figures.summary_chart(metrics.summarise(self.per_query((measure,))), measure, colors, markers,
                                        baseline)
        elif kind == "distribution":
            fig = figures.distribution_chart(self.per_query((measure,)), measure, colors)
        elif kind == "topics":
            a, b = (a, b) if a is not None and b is not None else self._pair(a, b)
            fig = figures.difference_bars(self.compare(a, b, measure), a, b, measure)
        elif kind == "pr":
            fig = self._pr(figures, colors, self._topic(topic))
        else:
            fig = self._at_k(figures, colors, self._topic(topic), int(depth))
        return figures.fitted(fig, WIDTH)

    def _pr(self, figures, colors: dict[str, str], topic: str | None) -> "go.Figure":
        """The curves page's first chart: the 11 points over all topics, or one topic's raw curve."""
        from metrics import curves

        rule = self.conventions.interpolation
        where = f"topic {figures.safe(topic)}" if topic else "mean over topics"
        points = curves.eleven_point_rules(self._ranked, queries=None if topic is None else [topic])
        chosen = points[(points["rule"] == rule) & (points["query"] == (topic or curves.ALL))]
        if topic is None:
            return figures.eleven_point_chart(chosen, colors, f"Interpolated precision at 11 recall levels, "
                                                              f"{where} ({rule} rule)")
        raw = curves.pr_curve(self._ranked, queries=[topic])
        envelope = curves.interpolated_pr(self._ranked, rule=rule, queries=[topic]).envelope
        return figures.pr_chart(raw, envelope, colors, f"Precision–recall, {where}: raw, interpolated ({rule} "
                                                       f"rule) and the 11 points", chosen)

    def _at_k(self, figures, colors: dict[str, str], topic: str | None, depth: int) -> "go.Figure":
        from metrics import curves

        where = f"topic {figures.safe(topic)}" if topic else "mean over topics"
        frame = curves.precision_recall_at_k(self._ranked, depth=depth, queries=None if topic is None else [topic],
                                             per_query=False)
        return figures.at_k_chart(frame, colors, f"P@k and R@k, {where}")

    # -- the dashboard ------------------------------------------------------------------------------------
    def open(self, name: str | None = None, *, workspace: str | os.PathLike | None = None,
             show: bool = True, timeout: float = 120.0) -> "Dashboard":
        """Store this collection in the workspace and open the dashboard on it: see
        :func:`rankscope.notebook.open_dashboard`, which takes the same arguments."""
        from rankscope.notebook.serve import open_dashboard

        return open_dashboard(self, name, workspace=workspace, show=show, timeout=timeout)

    # -- checks -------------------------------------------------------------------------------------------
    def _measures(self, measures: Sequence[str] | str | None) -> tuple[str, ...]:
        chosen = self.measures if measures is None else (measures,) if isinstance(measures, str) else measures
        if not chosen:
            raise ValidationError("no measure asked")
        return tuple(str(m) for m in chosen)

    def _measure(self, measure: str | None) -> str:
        return self.measures[0] if measure is None else str(measure)

    def _system(self, name: str) -> str:
        if name not in self.systems:
            raise ValidationError(f"expected a system of {list(self.systems)}, found {name!r}")
        return name

    def _pair(self, a: str | None, b: str | None) -> tuple[str, str]:
        if len(self.systems) < 2:
            raise ValidationError("the topics chart compares two systems: this collection has one")
        return a or self.systems[0], b or next(s for s in self.systems if s != (a or self.systems[0]))

    def _topic(self, topic: Any) -> str | None:
        if topic is None:
            return None
        if str(topic) not in set(self.qrels.queries).union(*(r.queries for r in self.runs)):
            raise ValidationError(f"no topic {str(topic)!r} in the judgments or the runs")
        return str(topic)


def _named(runs: Any) -> list[tuple[str | None, Any]]:
    """``(name or None, source)`` for each run; a list's paths are named by the readers' rule."""
    if isinstance(runs, Mapping):
        for name in runs:
            if not isinstance(name, str) or not name.strip():
                raise ValidationError(f"system names: expected non-empty text, found {name!r}")
        items = list(runs.items())
    elif isinstance(runs, (str, bytes, bytearray, os.PathLike, Run)) or is_dataframe(runs):
        raise ValidationError("runs: expected a mapping {system name: run} or a list of run files")
    else:
        items = []
        for source in runs:
            if isinstance(source, (bytes, bytearray)) or is_dataframe(source) or \
                    (isinstance(source, str) and "\n" in source):
                raise ValidationError(f"a run given as {type(source).__name__} has no name: give the runs as a "
                                      "mapping {system name: run}")
            items.append((None if isinstance(source, Run) else metrics.system_name(Path(source).name), source))
    if not items:
        raise ValidationError("no runs given")
    return items
