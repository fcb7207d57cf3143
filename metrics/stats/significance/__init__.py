"""Paired significance tests of retrieval systems over queries, effect sizes, and multiple-comparison corrections.

Two systems evaluated on the same queries give two aligned vectors of per-query scores ``a`` and ``b``.
Every test here works on the per-query differences ``d = b - a`` (the gain of ``b`` over ``a``), so a
positive statistic or mean difference means ``b`` scores higher; the t statistic is that of
``scipy.stats.ttest_rel(b, a)``. All tests are two-sided.

========================  ======================================================================
``t``                     paired t-test (:func:`t_test`), equal to :func:`scipy.stats.ttest_rel`
``wilcoxon``              Wilcoxon signed-rank test (:func:`wilcoxon_test`), by :func:`scipy.stats.wilcoxon`
``sign``                  sign test (:func:`sign_test`): binomial test of the wins among non-tied queries
``permutation``           paired randomisation test (:func:`permutation_test`): random sign flips,
                          ``(b + 1) / (B + 1)``; exact enumeration up to :data:`EXACT_MAX` queries
``bootstrap``             paired bootstrap test (:func:`bootstrap_test`), with a percentile or BCa interval
``tukey``                 Tukey's HSD on the two-way (system x topic) ANOVA (:func:`tukey_hsd`), many systems
========================  ======================================================================

Each test is declared once, beside its kernel, in ``tests/`` (one file each, registered in
:data:`TEST_REGISTRY`): its names, its label and help, the phrase a report uses, and what it is (resampled,
adjusted for all pairs by itself, parametric, ...); each correction likewise in ``corrections/``
(:data:`CORRECTION_REGISTRY`). Every list of names, label, help text and check of a property reads them.

Conventions, fixed once here:

* **Alignment.** Two Series (or the rows of a per-query table) are joined on the query id, compared as
  text, and put in order of id; a query one system lacks is an error unless ``fill="zero"`` (trec_eval
  ``-c``). Plain arrays are taken as aligned, in the order given.
* **Differences.** ``b - a`` is rounded to multiples of ``2**-40`` times the pair's largest ``|score|``, so
  that scores equal up to floating-point rounding give 0 and differences equal up to rounding tie.
* **Reproducibility.** A seed fixes every random draw (``numpy.random.Generator(PCG64(seed))``), never the
  global generator; the draws depend only on the seed and the number of queries. With the alignment
  above, the same data and seed give the same p-value bit for bit whatever the order of the input rows.
* **Degenerate data.** The two-system functions raise :class:`~metrics.errors.ValidationError` for fewer
  than two queries, identical systems (every difference 0), and constant differences under the t-test
  (the t statistic is undefined); :func:`compare_systems` reports such pairs in its table instead.

:func:`compare_systems` runs one test over every pair of systems (or every system against a baseline)
and every measure, vectorised over pairs, then corrects the p-values for multiple comparisons
(:func:`adjust_pvalues`: Holm, Bonferroni, Benjamini-Hochberg, Benjamini-Yekutieli) over a family of
tests: each measure on its own, or all measures together; with the randomisation test, ``correction="maxt"``
is Westfall and Young's step-down max-T on the same sign flips (:func:`maxt_adjust`). :func:`letter_display`
and :func:`grouped_leaderboard` give the compact letter display of the pairs. :mod:`metrics.review.compare` turns its
:class:`Comparison` into a paper's results table.

References: M. D. Smucker, J. Allan, B. Carterette, "A comparison of statistical significance tests
for information retrieval evaluation", CIKM 2007; B. Carterette, "Multiple testing in statistical
analysis of systems-based information retrieval experiments", ACM TOIS 30(1), 2012; B. Efron and
R. Tibshirani, *An Introduction to the Bootstrap*, 1993; B. Phipson and G. K. Smyth, "Permutation
p-values should never be zero", SAGMB 9(1), 2010; D. S. Kerby, "The simple difference formula",
Comprehensive Psychology 3, 2014.
"""

from __future__ import annotations

from metrics.stats.significance._corrections import adjust_pvalues, on_p_values, test_and_correction
from metrics.stats.significance._effects import cohens_dz, rank_biserial, win_tie_loss
from metrics.stats.significance._inputs import (
    CI_METHODS,
    EXACT_MAX,
    FAMILIES,
    FAMILY_ALIASES,
    WILCOXON_METHODS,
    ZERO_METHODS,
    align_scores,
    canonical,
    check_options,
)
from metrics.stats.significance._letters import grouped_leaderboard, letter_display, letter_groups
from metrics.stats.significance._many import MAX_DIFFERENCES, check_comparison_size, compare_systems
from metrics.stats.significance._paired import (
    bootstrap_ci,
    bootstrap_test,
    paired_test,
    permutation_test,
    sign_test,
    t_test,
    wilcoxon_test,
)
from metrics.stats.significance._resampling import sign_flip_matrix
from metrics.stats.significance._results import Comparison, TestResult, TukeyResult
from metrics.stats.significance.corrections import CORRECTION_REGISTRY, Correction
from metrics.stats.significance.corrections.maxt import MaxT, maxt_adjust
from metrics.stats.significance.tests import TEST_REGISTRY, Test
from metrics.stats.significance.tests.tukey import tukey_hsd

TESTS = TEST_REGISTRY.names()
"""The names of the declared tests, in order (the aliases of each are in :data:`TEST_ALIASES`)."""
TEST_ALIASES = TEST_REGISTRY.aliases()
"""Each other name of a test (``randomization``) and the test's name (``permutation``)."""
CORRECTIONS = CORRECTION_REGISTRY.names(on_p_values)
"""The corrections of p-values (:func:`adjust_pvalues`), in order; :func:`compare_systems` also takes those made
from a test's resamples (:data:`MAXT`)."""
CORRECTION_ALIASES = CORRECTION_REGISTRY.aliases(on_p_values)
"""Each other name of a correction of p-values (``fdr_bh``) and the correction's name (``bh``)."""
MAXT = MaxT.name
"""The name of Westfall and Young's max-T correction (``--correction maxt``)."""

__all__ = [
    "CI_METHODS",
    "CORRECTIONS",
    "CORRECTION_ALIASES",
    "CORRECTION_REGISTRY",
    "Comparison",
    "Correction",
    "EXACT_MAX",
    "FAMILIES",
    "FAMILY_ALIASES",
    "MAXT",
    "MAX_DIFFERENCES",
    "TESTS",
    "TEST_ALIASES",
    "TEST_REGISTRY",
    "Test",
    "TestResult",
    "TukeyResult",
    "WILCOXON_METHODS",
    "ZERO_METHODS",
    "adjust_pvalues",
    "align_scores",
    "bootstrap_ci",
    "bootstrap_test",
    "canonical",
    "check_comparison_size",
    "check_options",
    "cohens_dz",
    "compare_systems",
    "grouped_leaderboard",
    "letter_display",
    "letter_groups",
    "maxt_adjust",
    "paired_test",
    "permutation_test",
    "rank_biserial",
    "sign_flip_matrix",
    "sign_test",
    "t_test",
    "test_and_correction",
    "tukey_hsd",
    "wilcoxon_test",
    "win_tie_loss",
]
