"""The public Python API, declared once: the modules users import, each with what it is for.

A module named here is public, and what its ``__all__`` lists is its API: documented by a numpydoc docstring
and kept stable. The documentation site's Python reference is generated from this table (a page per group,
in this order), and ``tests/docs/test_public_api.py`` checks it: every module imports and declares
``__all__``, every name in it has a docstring, and every module the README's and the site's Python examples
import is one of these. Every other module, and every name outside an ``__all__``, is internal: it may
change in any release. This module imports nothing, so reading the table loads no part of rankscope.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GROUPS", "PUBLIC_MODULES", "PublicModule"]


@dataclass(frozen=True)
class PublicModule:
    """One public module: its dotted name, the reference page it is on, and one line on what it is for."""

    name: str
    group: str
    summary: str


GROUPS = {
    "evaluate": "Reading and evaluating",
    "statistics": "Statistics",
    "judgments": "Judgment sets",
    "review": "Reviewing a comparison",
    "teaching": "Teaching",
    "data": "Many runs, other tools' files, the demo data",
    "notebook": "In a notebook",
}
"""Reference page -> its title, in the order the site shows them."""

PUBLIC_MODULES = (
    PublicModule("metrics", "evaluate", "read qrels and runs, rank them once, evaluate, aggregate and summarise"),
    PublicModule("metrics.measures", "evaluate", "the measure registry: names, parameters, declarations"),
    PublicModule("metrics.gains", "evaluate", "the gain, discount and ideal-ranking choices of the DCG family"),
    PublicModule("metrics.curves", "evaluate", "precision-recall, interpolated, 11-point, P@k/R@k and DCG curves"),
    PublicModule("metrics.errors", "evaluate", "the exceptions rankscope raises on bad input"),
    PublicModule("metrics.stats.significance", "statistics",
                 "paired tests, multiple-comparison corrections, effect sizes, significance groups"),
    PublicModule("metrics.stats.power", "statistics", "topic-set size, minimum detectable effect, power"),
    PublicModule("metrics.stats.agreement", "statistics", "how alike two measures order the systems"),
    PublicModule("metrics.stats.ties", "statistics", "each value's range over the orders of tied scores"),
    PublicModule("metrics.stats.risk", "statistics", "URisk, TRisk, ZRisk and GeoRisk against a baseline"),
    PublicModule("metrics.stats.reproducibility", "statistics",
                 "a reproduction against its original (Breuer et al.): KTU, RBO, RMSE, ER, DeltaRI"),
    PublicModule("metrics.stats.seeds", "statistics", "systems of several runs (seeds, folds) and their spread"),
    PublicModule("metrics.stats.mixed", "statistics", "the linear mixed model that compares such systems"),
    PublicModule("metrics.judgments", "judgments",
                 "several judgment sets of one collection: labels, orders of systems, conclusions"),
    PublicModule("metrics.review.compare", "review", "the results table of a paper, with its significance markers"),
    PublicModule("metrics.review.claims", "review", "claims about results, checked (and checked again)"),
    PublicModule("metrics.review.provenance", "review", "the one line that says how the numbers were made"),
    PublicModule("metrics.review.cautions", "review", "the warnings a comparison deserves"),
    PublicModule("metrics.teaching.anatomy", "teaching", "one ranking, rank by rank"),
    PublicModule("metrics.teaching.worked", "teaching", "each measure worked through with a ranking's numbers"),
    PublicModule("metrics.teaching.mistakes", "teaching", "the usual mistakes, each computing its wrong value"),
    PublicModule("metrics.scale", "data", "many runs on local workers or a Dask cluster, and their datasets"),
    PublicModule("metrics.io.pyterrier", "data", "PyTerrier's saved result tables"),
    PublicModule("metrics.io.irds", "data", "qrels and topics by ir_datasets id, from its local store"),
    PublicModule("metrics.io.writers", "data", "qrels, runs and topics held in memory, written as TREC files"),
    PublicModule("sample_data", "data", "the demo collection and the worked examples"),
    PublicModule("rankscope.notebook", "notebook", "the dashboard's tables and charts in a notebook, and the dashboard"),
)
"""Every public module, grouped by reference page."""

