"""Every computation the pages show, as cached calls into ``metrics``; nothing here computes a number itself.

Caches are keyed on immutable values only: content digests, names, tuples of options, the conventions. A
computation of the loaded collection is cached one way, :func:`~dashboard.data.cache.on_collection`: keyed on
the collection's key and the other arguments, the :class:`~dashboard.session.state.Loaded` value (its bytes) handed
over unhashed. Parsed files are keyed on their digests, their bytes beside them in arguments whose names
start with ``_`` (Streamlit does not hash those). Parsed files and rankings are shared
read-only between sessions (``cache_resource``); tables are copied per caller (``cache_data``). Each run is
parsed and ranked once per content and conventions, so adding a run, renaming one or changing a measure
never re-reads or re-ranks the others.

The package is split by what the pages ask for; this module re-exports every public name, so a page reads
``from dashboard import data`` and calls ``data.per_query(...)``. Its modules, lowest first (each imports
only modules named before it): :mod:`~dashboard.data.cache` (the cache of a computation of the collection),
:mod:`~dashboard.data.constants` (the fixed choices), :mod:`~dashboard.data.files`
(parsed files, rankings, the collection, texts), :mod:`~dashboard.data.measures` (per-query values and
means), :mod:`~dashboard.data.significance` (paired tests, results table, report),
:mod:`~dashboard.data.statistics` (letter groups, power, agreement, reproducibility),
:mod:`~dashboard.data.queries`, :mod:`~dashboard.data.learn`, :mod:`~dashboard.data.curves`,
:mod:`~dashboard.data.trust` and :mod:`~dashboard.data.judges` (several judgment sets). A test that replaces a private function patches the module that defines it
(e.g. ``dashboard.data.files._ranked``), where its callers look it up.
"""

from __future__ import annotations

from dashboard.data.agreement import agreement, convention_ordering, ordering
from dashboard.data.constants import (CORRECTIONS, DEFAULT_MEASURES, FAMILIES, FILES_KEPT, FILES_TTL, INTERPOLATIONS,
                                      RESAMPLED, RESIDUALS, SEED, TESTS, TEST_CORRECTIONS)
from dashboard.data.curves import (at_k, eleven_point_table, eleven_points, gain_curves, gain_table, identical_curves,
                                   measure_means, ndcg_measure, pr_curves)
from dashboard.data.files import (dataset_files, dataset_relevance, document_texts, judgments, lint, rankings,
                                  read_documents, read_qrels, read_run, read_runs, read_topics, run_lines, run_metadata,
                                  runs, systems, topic_texts, topics_of)
from dashboard.data.judges import (conclusions, judged_differently, judges_provenance, judgment_sets,
                                   label_agreement, pair_labels, ppi_candidates, ppi_means, sets_per_query,
                                   sets_summary, sets_systems, topic_disagreement, unanswered)
from dashboard.data.learn import (anatomy, convention_effects, example_titles, printed, relevant_count,
                                  teaching_examples, typed_grades, typed_ranking, worked)
from dashboard.data.measures import by_mean, per_query, seed_ranges, seeds, summary, tested_on_every_topic
from dashboard.data.queries import extremes, paired, side_by_side, side_by_side_texts, topic_labels, topic_table
from dashboard.data.repro import reproduction
from dashboard.data.significance import comparison, letter_groups, power, reading, report, results, session_file
from dashboard.data.trust import (cautions, judged_gaps, judged_measure, judged_residual, provenance, residual_of,
                                  risk, risk_caption, risk_topics, tie_flips, tie_ranges, tie_summary)

__all__ = [
    "CORRECTIONS", "DEFAULT_MEASURES", "FAMILIES", "FILES_KEPT", "FILES_TTL", "INTERPOLATIONS", "RESAMPLED",
    "RESIDUALS", "SEED", "TESTS", "TEST_CORRECTIONS", "agreement", "anatomy", "at_k", "by_mean", "cautions",
    "comparison", "conclusions", "convention_effects", "convention_ordering", "dataset_files", "dataset_relevance",
    "document_texts",
    "eleven_point_table", "eleven_points", "example_titles", "extremes", "gain_curves", "gain_table",
    "identical_curves", "judged_differently", "judged_gaps", "judges_provenance", "judged_measure", "judged_residual",
    "judgment_sets", "judgments", "label_agreement", "letter_groups", "lint", "measure_means", "ndcg_measure",
    "ordering", "pair_labels", "paired", "per_query", "power", "ppi_candidates", "ppi_means", "pr_curves",
    "printed", "provenance", "rankings", "read_documents", "read_qrels", "read_run", "read_runs", "read_topics", "reading",
    "relevant_count", "report", "reproduction", "residual_of", "results", "risk", "risk_caption", "risk_topics",
    "run_lines", "run_metadata", "runs", "seed_ranges", "seeds", "session_file", "sets_per_query", "sets_summary", "sets_systems", "side_by_side",
    "side_by_side_texts", "summary", "systems", "teaching_examples", "tested_on_every_topic", "tie_flips",
    "tie_ranges", "tie_summary", "topic_disagreement", "topic_labels",
    "topic_table", "topic_texts", "topics_of", "typed_grades", "typed_ranking", "unanswered", "worked",
]
