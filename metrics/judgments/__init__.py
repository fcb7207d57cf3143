"""Judgments: transformations of qrels, how they cover the compared runs, and several judgment sets compared.

* :mod:`~metrics.judgments.coverage`: how evenly the judgments cover the systems (mean Judged@k, its gaps);
* :mod:`~metrics.judgments.joint`: joint ideal qrels;
* :mod:`~metrics.judgments.sets`: several named judgment sets of one collection, the reference first
  (:func:`judgment_sets`);
* :mod:`~metrics.judgments.labels`: Cohen's kappa (plain, binary, linear and quadratic), Krippendorff's
  alpha, the confusion matrix of grades and the mean grade shift, for each pair and topic by topic;
* :mod:`~metrics.judgments.support`: how many judged documents each measure rests on, under each set;
* :mod:`~metrics.judgments.disagreement`: the topics the sets disagree on most, and their documents;
* :mod:`~metrics.judgments.ppi`: prediction-powered means when humans judged few topics and an automatic
  judge many;
* :mod:`~metrics.judgments.systems`: every run evaluated under every set through the one pipeline, the
  systems' orders, tau-b, tau_AP, top-k agreement and rank changes;
* :mod:`~metrics.judgments.conclusions`: every pair of systems tested under every set, what the reference
  found and what each other set finds of it;
* :mod:`~metrics.judgments.comparison`: all of it in one call (:func:`compare_judges`).

What to judge next:

* :mod:`~metrics.judgments.candidates`: the runs' documents to a depth, per topic, ranked once;
* :mod:`~metrics.judgments.methods`: the methods declared once, and their one interface (the next documents,
  one judgment at a time);
* :mod:`~metrics.judgments.pools`: depth-k, RBP and RRF pools, as trectools defines them;
* :mod:`~metrics.judgments.adaptive`: move-to-front and MaxMean;
* :mod:`~metrics.judgments.uncertainty`, :mod:`~metrics.judgments.variance` and
  :mod:`~metrics.judgments.decide`: the decision between runs (minimal test collections): each pair's
  probability that its order holds, and the documents it needs;
* :mod:`~metrics.judgments.pooling`: a pool by name with its statistics (:func:`make_pool`);
* :mod:`~metrics.judgments.simulation`: judging replayed from complete judgments (:func:`simulate`).

Built on the core (readers, rankings, measures, :func:`metrics.evaluate`). Only ``systems``,
``conclusions`` and ``comparison``, which compare what the sets say about the *systems*, also use :mod:`metrics.stats`
(:mod:`~metrics.stats.agreement`'s tau-b and tau_AP, :func:`~metrics.stats.significance.compare_systems`);
nothing here imports :mod:`metrics.teaching`. The package imports none of its modules when it is imported
(``import metrics`` reads :mod:`~metrics.judgments.coverage` only): :func:`compare_judges` and
:func:`judgment_sets` are loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Decision", "JudgesComparison", "JudgmentSets", "Pool", "compare_judges", "judgment_sets", "make_pool",
           "simulate"]

_HOMES = {"JudgesComparison": "comparison", "compare_judges": "comparison", "JudgmentSets": "sets",
          "judgment_sets": "sets", "Decision": "decide", "Pool": "pooling", "make_pool": "pooling",
          "simulate": "simulation"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"metrics.judgments.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'metrics.judgments' has no attribute {name!r}")
