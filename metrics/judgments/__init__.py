"""Several judgment sets of one collection: does a conclusion survive another judge?

A collection may be judged by assessors, a crowd and language models. The modules here compare what the
sets say, from the labels up to the conclusions:

* :mod:`~metrics.judgments.sets`: the named sets, the reference first (:func:`judgment_sets`);
* :mod:`~metrics.judgments.labels`: Cohen's kappa (plain, binary, linear and quadratic), Krippendorff's
  alpha, the confusion matrix of grades and the mean grade shift, for each pair and topic by topic;
* :mod:`~metrics.judgments.systems`: every run evaluated under every set through the one pipeline, the
  systems' orders, tau-b, tau_AP, top-k agreement, rank changes, and the pairwise conclusions under each
  set with :func:`metrics.significance.compare_systems`;
* :mod:`~metrics.judgments.support`: how many judged documents each measure rests on, under each set;
* :mod:`~metrics.judgments.disagreement`: the topics the sets disagree on most, and their documents;
* :mod:`~metrics.judgments.ppi`: prediction-powered means when humans judged few topics and an automatic
  judge many;
* :mod:`~metrics.judgments.comparison`: all of it in one call (:func:`compare_judges`).
"""

from __future__ import annotations

from metrics.judgments.comparison import JudgesComparison, compare_judges
from metrics.judgments.sets import JudgmentSets, judgment_sets

__all__ = ["JudgesComparison", "JudgmentSets", "compare_judges", "judgment_sets"]
