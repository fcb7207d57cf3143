"""The dashboard's fixed choices, each stated once: the measures shown first, the tests and corrections
offered with the labels links use, the interpolation rules, the residual of each measure, the seed of the
resampling tests, and how many parsed files the caches keep and for how long.
"""

from __future__ import annotations

import os

import metrics
from metrics.interpolation import RULE_REGISTRY
from metrics.review.compare.marked import SEED as _SEED
from metrics.stats.significance import CORRECTION_REGISTRY, TEST_REGISTRY
from metrics.stats.significance import CORRECTIONS as _CORRECTIONS
from metrics.stats.significance import FAMILIES as _FAMILIES

DEFAULT_MEASURES = metrics.DEFAULT_MEASURES
SEED = _SEED  # the results table's (the notebook's too), for every resampling test
# each choice's label as its declaration gives it: what a picker shows and a link says (?test=Wilcoxon)
TESTS = TEST_REGISTRY.labels()
# the significance page's corrections: every declared one (max-T on the randomisation test's flips too);
# the results table and the report take the ones that adjust p-values only
TEST_CORRECTIONS = CORRECTION_REGISTRY.labels()
CORRECTIONS = {k: TEST_CORRECTIONS[k] for k in _CORRECTIONS}
FAMILIES = {"per_measure": "each measure", "all": "all measures together"}
FAMILIES = {k: FAMILIES.get(k, k) for k in _FAMILIES}  # what a correction counts together
TEST_HELP = "  \n".join(f"**{t.label}**: {t.help}" for t in TEST_REGISTRY)  # each test's help, for its picker
CORRECTION_HELP = "  \n".join(f"**{c.label}**: {c.help}" for c in CORRECTION_REGISTRY)
RESAMPLED = TEST_REGISTRY.names(lambda t: t.resampled)  # run in a worker (dashboard.server.guard) whatever the size
INTERPOLATIONS = RULE_REGISTRY.labels()

# Parsed files are the largest values kept: at most FILES_KEPT of each, none for longer than FILES_TTL.
# runs of one upload parsed side by side (each large one in its own worker): the cores this process may use,
# at most 4 (each worker may take RANKSCOPE_WORKER_MEMORY_MB)
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
READ_SIDE_BY_SIDE = max(1, min(4, _CORES))
FILES_KEPT = 32
FILES_TTL = "1h"

# each measure with a residual (metrics.measures.residual): the residual's name in the registry
RESIDUALS = metrics.measures.RESIDUAL_OF
