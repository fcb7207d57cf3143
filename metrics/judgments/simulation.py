"""Judging replayed: complete judgments hidden behind each method, and how many judgments each one needs.

For each method, the judging starts from nothing; the method proposes one document at a time and the
complete judgments answer it (a document they do not hold is not relevant). Every ``step`` judgments the
replay looks at two things:

* **the systems' order**: each run's mean of the measure under the judgments made so far (an unjudged document
  is not relevant, as trec_eval has it), against its mean under the complete judgments, by Kendall's tau-b
  (:func:`metrics.stats.agreement.kendall_tau`); the first check at which tau reaches ``tau``;
* **the decisions**: every pair's probability that its order holds
  (:class:`~metrics.judgments.decide.Decision`, the same model for every method); the first check at which
  every pair is decided at ``confidence``, and how many of those decisions contradict the complete
  judgments' order (a tie there counts as a contradiction).

Every method judges the same documents: those the runs retrieve to ``depth`` on the topics they all answer
(RBP and RRF order all of them, not only the ``depth`` heaviest). A count is the number of judgments made
when the check happened, so it is exact to within ``step``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.checks import COUNT, LEVEL, Integer, Number, Options, check
from metrics.conventions import Conventions
from metrics.errors import ValidationError
from metrics.io import Qrels, Run
from metrics.judgments.candidates import NOT_JUDGED, Candidates, gather
from metrics.judgments.decide import PRIOR, Decision
from metrics.judgments.pooling import METHODS, make_proposer
from metrics.measures import parse_measure
from metrics.rankings import NONPOOL
from metrics.stats.agreement import kendall_tau

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Simulation", "TAU", "simulate"]

TAU = 0.9
"""The Kendall's tau at which the systems' order counts as found."""


@dataclass(frozen=True, eq=False)
class Simulation:
    """What a replay found.

    Attributes
    ----------
    summary : pandas.DataFrame
        Per method: ``method``, ``to_tau`` (judgments until tau reached ``tau``; NaN: never),
        ``to_decided`` (until every pair was decided; NaN: never), ``wrong`` (decisions then contradicting the
        complete judgments), ``judged`` (judgments made when the replay stopped).
    checks : pandas.DataFrame
        Every check: ``method``, ``judgments``, ``tau``, ``decided`` (pairs), ``wrong``, ``relevant`` (relevant
        documents found).
    pool : int
        The documents there are to judge.
    relevant : int
        How many of them the complete judgments hold relevant.
    pairs : int
        The pairs of runs.
    step : int
        Judgments between two checks.
    """

    summary: "pd.DataFrame"
    checks: "pd.DataFrame"
    pool: int
    relevant: int
    pairs: int
    step: int


def simulate(runs: Sequence[Run] | Mapping[str, Run], complete: Qrels, *, methods: Sequence[str] | None = None,
             depth: int = 100, measure: str = "AP", prior: float = PRIOR, confidence: float = 0.95, tau: float = TAU,
             step: int | None = None, budget: int | None = None, order: str = "trec_eval",
             conventions: Conventions | None = None, **options: Any) -> Simulation:
    """Replay judging with the complete judgments hidden behind each method.

    Parameters
    ----------
    runs : sequence of Run, or mapping {name: Run}
        Two runs or more.
    complete : Qrels
        The complete judgments.
    methods : sequence of str, optional
        Names of :data:`~metrics.judgments.methods.METHODS` (default: every one).
    depth : int, default=100
        How deep the runs are read: the documents there are to judge.
    measure : str, default="AP"
        The measure of the systems' order and of the decisions (AP, AP@k, P@k, nDCG@k).
    prior, confidence : float
        The decision model's prior probability of relevance and the probability at which a pair is decided.
    tau : float, default=0.9
    step : int, optional
        Judgments between two checks (default: one per topic).
    budget : int, optional
        The most judgments per method (default: until both targets are reached, or nothing is left).
    order : {"trec_eval", "trectools"}, default="trec_eval"
    conventions : Conventions, optional
    **options
        The methods' options (:attr:`~metrics.judgments.methods.Method.options`).

    Returns
    -------
    Simulation
    """
    check("depth", depth, COUNT)
    check("tau", tau, Number(-1, 1))
    check("confidence", confidence, LEVEL)
    check("step", step, Integer(1, none=True))
    check("budget", budget, Integer(1, none=True))
    methods = list(METHODS) if methods is None else list(methods)
    for name in methods:
        check("method", name, Options(*METHODS))
    runs = [r.renamed(n) for n, r in runs.items()] if isinstance(runs, Mapping) else list(runs)
    if len(runs) < 2:
        raise ValidationError(f"a replay compares two runs or more, found {len(runs)}")
    runs = _on_common_topics(runs)
    blank = gather(runs, None, depth=depth, order=order, conventions=conventions)
    full = gather(runs, complete, depth=depth, order=order, conventions=conventions)
    truth = np.where(full.grades == NOT_JUDGED, 0, full.grades)
    scorer = parse_measure(measure)
    true_means = _means(full, full.grades, scorer, (full.judged_levels, full.grade_values))
    step = step or blank.n_topics
    decision = {k: options[k] for k in ("pairs", "unjudged_grade") if options.get(k) is not None}
    decision.update(measure=measure, prior=prior, confidence=confidence)
    rows, checks = [], []
    for name in methods:
        proposer = make_proposer(blank, name, **{**options, **decision})
        tracker = proposer if isinstance(proposer, Decision) else Decision(blank, proposing=False, **decision)
        found = _replay(name, proposer, tracker, truth, full, scorer, true_means, tau, step, budget)
        checks.extend(found)
        reached = [c for c in found if c["tau"] >= tau]
        decided = [c for c in found if c["decided"] == len(tracker.first)]
        rows.append({"method": name, "to_tau": reached[0]["judgments"] if reached else np.nan,
                     "to_decided": decided[0]["judgments"] if decided else np.nan,
                     "wrong": decided[0]["wrong"] if decided else np.nan, "judged": found[-1]["judgments"]})
    import pandas as pd

    return Simulation(summary=pd.DataFrame(rows), checks=pd.DataFrame(checks), pool=len(blank),
                      relevant=int((truth >= max(blank.level, 0)).sum()), pairs=len(tracker.first), step=step)


def _on_common_topics(runs: list[Run]) -> list[Run]:
    """The runs restricted to the topics all of them answer."""
    common = set.intersection(*(set(r.queries) for r in runs))
    if not common:
        gather(runs, None, depth=1)  # says which runs share nothing
    wanted = pa.array(sorted(common), type=pa.string())
    return [dataclasses.replace(r, table=r.table.filter(pc.is_in(r.table["query"].cast(pa.string()),
                                                                 value_set=wanted)))
            for r in runs]


def _replay(name: str, proposer, tracker: Decision, truth: np.ndarray, full: Candidates, scorer, true_means,
            tau: float, step: int, budget: int | None) -> list[dict]:
    """One method's judgments, one at a time, with a check every ``step`` and at the end."""
    checks = [_check(name, 0, tracker, full, scorer, true_means)]
    judged = 0
    while budget is None or judged < budget:
        index, _, _ = proposer.propose(1)
        if not len(index):
            break
        grade = int(truth[index[0]])
        proposer.judge_candidate(int(index[0]), grade)
        if tracker is not proposer:
            tracker.judge_candidate(int(index[0]), grade)
        judged += 1
        if judged % step == 0:
            checks.append(_check(name, judged, tracker, full, scorer, true_means))
            if _done(checks, tau, len(tracker.first)):
                break
    if checks[-1]["judgments"] != judged:
        checks.append(_check(name, judged, tracker, full, scorer, true_means))
    return checks


def _done(checks: list[dict], tau: float, pairs: int) -> bool:
    """Whether both targets have been reached by some check."""
    return any(c["tau"] >= tau for c in checks) and any(c["decided"] == pairs for c in checks)


def _check(name: str, judged: int, tracker: Decision, full: Candidates, scorer, true_means) -> dict:
    table = tracker.decisions()
    means = _means(full, tracker.grades, scorer)
    with np.errstate(invalid="ignore"):
        agreement = kendall_tau(means, true_means)
    systems = list(full.systems)
    better = np.array([systems.index(s) for s in table["better"]], dtype=np.int64)
    worse = np.array([systems.index(s) for s in table["worse"]], dtype=np.int64)
    wrong = table["decided"].to_numpy() & (true_means[better] <= true_means[worse])
    return {"method": name, "judgments": judged, "tau": agreement, "decided": int(table["decided"].sum()),
            "wrong": int(wrong.sum()), "relevant": int((tracker.grades >= max(full.level, 0)).sum())}


def _means(full: Candidates, grades: np.ndarray, scorer, counted: tuple | None = None) -> np.ndarray:
    """Each run's mean of the measure over the topics when only ``grades`` (per candidate) are judged;
    ``counted``: the judged documents per topic and grade, when others than the candidates are judged too."""
    judged = grades != NOT_JUDGED
    if counted is not None:
        levels, values = counted
    else:
        values, code = np.unique(grades[judged], return_inverse=True)
        if not len(values):
            values = np.zeros(1, dtype=np.int64)
        levels = np.zeros((full.n_topics, len(values)), dtype=np.int64)
        np.add.at(levels, (full.topic_of[judged], code.ravel()), 1)
    out = np.zeros(full.n_systems)
    for s, r in enumerate(full.rankings):
        mine = grades[full.candidate[full.system == s]]
        now = dataclasses.replace(r, rel=np.where(mine != NOT_JUDGED, mine, NONPOOL), rel_levels=levels,
                                  grade_values=values.astype(np.int64))
        out[s] = float(np.mean(scorer.compute(now)))
    return out
