"""rankscope's metrics: trec_eval-exact evaluation of ranked retrieval, and more, in pure Python.

The public API is re-exported here; ``__all__`` lists it (a test keeps it in step).
"""

from __future__ import annotations

from metrics.conventions import PRESETS, Conventions
from metrics.errors import ParseError, RankscopeError, UnknownMeasureError, ValidationError
from metrics.evaluate import DEFAULT_MEASURES, aggregate, evaluate, rank_runs, resolve_measures, summarise
from metrics.io import Qrels, Run, read_qrels, read_run, system_name
from metrics.io.texts import DocText, Documents, Topics, read_documents, read_topics
from metrics.judgments.coverage import judged_rate_gaps, judged_rates
from metrics.measures import Measure, PerQuery, list_measures, parse_measure
from metrics.rankings import Rankings
from metrics.review.lint import LintItem, lint, lint_frame
from metrics.scale import evaluate_parallel, read_dataset, write_dataset
from metrics.stats.ties import tie_flips, tie_ranges, tie_straddles, tie_summary

__version__ = "0.1.0"

__all__ = [
    "Conventions",
    "DEFAULT_MEASURES",
    "DocText",
    "Documents",
    "LintItem",
    "Measure",
    "PRESETS",
    "ParseError",
    "PerQuery",
    "Qrels",
    "Rankings",
    "RankscopeError",
    "Run",
    "Topics",
    "UnknownMeasureError",
    "ValidationError",
    "__version__",
    "aggregate",
    "evaluate",
    "evaluate_parallel",
    "judged_rate_gaps",
    "judged_rates",
    "lint",
    "lint_frame",
    "list_measures",
    "parse_measure",
    "rank_runs",
    "read_dataset",
    "read_documents",
    "read_qrels",
    "read_run",
    "read_topics",
    "resolve_measures",
    "summarise",
    "system_name",
    "tie_flips",
    "tie_ranges",
    "tie_straddles",
    "tie_summary",
    "write_dataset",
]
