"""Can a conclusion be trusted: the provenance card and the cautions of a comparison, the range of each
measure over the orders of tied scores, judged share against the residual, the risk of each system
against a baseline, and the lint's judged-rate gaps.
"""

from __future__ import annotations

import pandas as pd

import metrics
from metrics.judgments import coverage
from metrics.review import topic_by_topic

from dashboard.data.cache import on_collection
from dashboard.data.constants import RESIDUALS
from dashboard.data.files import _ranked_run, rankings, read_qrels, runs
from dashboard.data.measures import per_query, tested_on_every_topic
from dashboard.data.significance import comparison
from dashboard.session.state import Loaded
from dashboard.store import parsed


# ---- can this conclusion be trusted: provenance, cautions, tie ranges, judged and residual, risk --------
@on_collection(max_entries=64)
def _provenance(loaded: Loaded, measures: tuple[str, ...], ties: str, settings: tuple):
    from metrics.review.provenance import build_provenance, provenance_of

    if not measures:  # curves: the conventions and rules, no mean
        return build_provenance(loaded.conventions, (), ties=ties)
    return provenance_of(per_query(loaded, measures), loaded.conventions, list(measures), dict(settings),
                         ties=ties)


def provenance(loaded: Loaded, measures: tuple[str, ...] = (), ties: str = "docid", **settings):
    """The provenance card of the numbers of ``measures`` (:func:`metrics.review.provenance.provenance_of`);
    ``ties``: a rule of :data:`metrics.review.provenance.TIE_RULES`; ``settings``: the paired tests' ``test``,
    ``correction`` and ``family`` when numbers were tested."""
    return _provenance(loaded, tuple(measures), ties, tuple(sorted(settings.items())))


def cautions(loaded: Loaded, measures: tuple[str, ...], test: str, baseline: str | None, correction: str,
             alpha: float, family: str = "per_measure") -> tuple[str, ...]:
    """The sentences of :func:`metrics.review.cautions.comparison_cautions` on the comparison of :func:`comparison`
    (nothing tested when it cannot be), for a page that shows its provenance card (nDCG's gain stated)."""
    from metrics.review.cautions import comparison_cautions

    tests = 0
    if len(loaded.systems) > 1:
        try:
            tests = len(comparison(loaded, measures, test, baseline, correction, alpha, family).frame)
        except metrics.ValidationError:  # nothing to test: no test to caution about
            pass
    topics = max((n for _, n in provenance(loaded, measures).topics), default=0)
    found = comparison_cautions(metrics.resolve_measures(list(measures)), test=test if tests else None,
                                correction=correction, tests=tests, topics=topics, gain_stated=True)
    return tuple(c.sentence for c in found)


@on_collection(max_entries=32, show_spinner="Ordering the tied scores…")
def tie_ranges(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Per system, topic and measure: ``low``, ``reported`` and ``high`` over the orders of tied scores
    (:func:`metrics.stats.ties.tie_ranges`; NaN bounds for a measure without exact ones)."""
    from metrics.stats.ties import tie_ranges as ranges

    return pd.concat([parsed.run_table("tie_ranges", loaded, name, up, {"measures": list(measures)},
                                     lambda name=name, up=up: ranges(None, [_ranked_run(loaded, name, up)],
                                                                     list(measures), inexact="nan"))
                      for name, up in loaded.runs], ignore_index=True)


def tie_summary(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Each system's ``low``, ``reported`` and ``high`` mean per measure (:func:`metrics.stats.ties.tie_summary`)."""
    from metrics.stats.ties import tie_summary as summarised

    return summarised(tie_ranges(loaded, measures))


def tie_flips(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """The pairs whose reported order some order of their tied scores reverses
    (:func:`metrics.stats.ties.tie_flips`)."""
    from metrics.stats.ties import tie_flips as flips

    return flips(tie_summary(loaded, measures))


def residual_of(spec: str) -> str | None:
    """The residual of a measure with the same parameters, or None
    (:func:`metrics.judgments.coverage.residual_spec`)."""
    return coverage.residual_spec(spec)


def judged_residual(loaded: Loaded, measure: str, judged: str, systems: tuple[str, ...]) -> pd.DataFrame:
    """Per system and topic: the measure, its residual, the gap between them and Judged@k
    (:func:`metrics.judgments.coverage.residual_gaps`). Raises :class:`metrics.ValidationError` for a measure
    without a residual.
    """
    residual = residual_of(measure)
    if residual is None:
        raise metrics.ValidationError(f"{measure}: no residual measure (those of {', '.join(RESIDUALS)} have one)")
    return coverage.residual_gaps(per_query(loaded, (measure, residual, judged)), measure, residual, judged,
                                    systems)


@on_collection(max_entries=32, show_spinner="Weighing the losses…")
def risk(loaded: Loaded, measure: str, baseline: str, alpha: float) -> pd.DataFrame:
    """Every system against the baseline: URisk, TRisk (flagged when its two-sided p-value is below 0.05),
    ZRisk and GeoRisk, on the topics of :func:`tested_on_every_topic` (:func:`metrics.stats.risk.risk_table`)."""
    from metrics.stats.risk import risk_table

    return risk_table(per_query(tested_on_every_topic(loaded), (measure,)), baseline, float(alpha), [measure])


def risk_caption(risks: pd.DataFrame) -> str:
    """What the risk table's flag and loss count mean, in words, with the critical value of its topics."""
    from metrics.stats.risk import TRISK_LEVEL

    if risks.empty:
        return ""
    first = risks.iloc[0]
    return (f"A system is flagged riskier (TRisk below 0) or safer (above 0) than the baseline when TRisk's "
            f"two-sided p-value is below {TRISK_LEVEL:g}: here |TRisk| beyond {first['t_critical']:.2f}, with "
            f"{int(first['n'])} topics (the rule of thumb |TRisk| > 2 holds only for many topics). "
            f"weighted_loss_count is the number of losses times 1 + α = {1 + float(first['alpha']):g}, a count. "
            "GeoRisk weighs the mean with the risk against every system at once.")


def risk_topics(loaded: Loaded, measure: str, system: str, baseline: str, alpha: float) -> pd.DataFrame:
    """Per topic: ``query``, ``baseline``, ``system``, ``delta`` (system − baseline) and ``adjusted`` (a loss
    times 1 + α, :func:`metrics.stats.risk.risk_adjusted_deltas`), the largest gain first."""
    from metrics.stats.risk import risk_adjusted_deltas

    rows = topic_by_topic.paired_topics(per_query(tested_on_every_topic(loaded), (measure,)), measure, baseline,
                                system).frame
    return pd.DataFrame({"query": rows["query"].to_numpy(), "baseline": rows["a"].to_numpy(),
                         "system": rows["b"].to_numpy(), "delta": rows["diff"].to_numpy(),
                         "adjusted": risk_adjusted_deltas(rows["b"], rows["a"], alpha)})


def judged_measure(measure: str) -> str:
    """Judged@k at the measure's cutoff, or at :data:`metrics.judgments.coverage.JUDGED_CUTOFF` without one."""
    from metrics.judgments.coverage import JUDGED_CUTOFF

    cutoff = metrics.parse_measure(measure).values.get("cutoff")
    return f"Judged@{cutoff or JUDGED_CUTOFF}"


@on_collection(max_entries=16)
def _judged_gaps(loaded: Loaded, cutoff: int) -> tuple[str, ...]:
    found = metrics.lint(read_qrels(loaded.qrels), runs(loaded), rankings(loaded), judged_cutoff=cutoff)
    return tuple(f"{item.source}: {item.message}" for item in found if item.code == "judged-rate-gap")


def judged_gaps(loaded: Loaded, judged: str) -> tuple[str, ...]:
    """The lint's judged-rate warnings at the k of ``judged`` (``Judged@k``): pairs of systems whose mean
    Judged@k differ enough to bias their comparison (:func:`metrics.judgments.coverage.judged_rate_gaps`)."""
    return _judged_gaps(loaded, int(metrics.parse_measure(judged).values["cutoff"]))
