"""The dashboard's fixed choices, each stated once: the measures shown first, the tests and corrections
offered with the labels links use, the interpolation rules, the residual of each measure, the seed of the
resampling tests, and how many parsed files the caches keep and for how long.
"""

from __future__ import annotations

import os

import metrics
from metrics.review.compare.marked import SEED as _SEED
from metrics.stats.significance import CORRECTIONS as _CORRECTIONS
from metrics.stats.significance import FAMILIES as _FAMILIES
from metrics.stats.significance import MAXT
from metrics.stats.significance import TESTS as _TESTS

DEFAULT_MEASURES = metrics.DEFAULT_MEASURES
SEED = _SEED  # the results table's (the notebook's too), for every resampling test
# the labels are what a link says (?test=Wilcoxon), so they stay short
TESTS = {"t": "t-test", "wilcoxon": "Wilcoxon", "sign": "sign test", "permutation": "randomisation",
         "bootstrap": "bootstrap", "tukey": "Tukey HSD"}
TESTS = {k: v for k, v in TESTS.items() if k in _TESTS}
CORRECTIONS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli",
               "none": "none", MAXT: "max-T (randomisation only)"}
# the significance page's corrections: metrics' names in metrics' order, and max-T on the randomisation test's flips;
# the results table and the report take the p-value corrections only
TEST_CORRECTIONS = {k: CORRECTIONS.get(k, k) for k in (*_CORRECTIONS, MAXT)}
CORRECTIONS = {k: CORRECTIONS.get(k, k) for k in _CORRECTIONS}
FAMILIES = {"per_measure": "each measure", "all": "all measures together"}
FAMILIES = {k: FAMILIES.get(k, k) for k in _FAMILIES}  # what a correction counts together
RESAMPLED = ("permutation", "bootstrap")  # tests that run in a worker (dashboard.server.guard) whatever the size
INTERPOLATIONS = {"trec_eval-9": "trec_eval 9", "trec_eval-10": "trec_eval 10", "textbook": "textbook"}

# Parsed files are the largest values kept: at most FILES_KEPT of each, none for longer than FILES_TTL.
# runs of one upload parsed side by side (each large one in its own worker): the cores this process may use,
# at most 4 (each worker may take RANKSCOPE_WORKER_MEMORY_MB)
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
READ_SIDE_BY_SIDE = max(1, min(4, _CORES))
FILES_KEPT = 32
FILES_TTL = "1h"

# each measure with a residual (metrics.measures.residual): the residual's name in the registry
RESIDUALS = metrics.measures.RESIDUAL_OF
