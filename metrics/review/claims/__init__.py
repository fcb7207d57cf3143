"""Claims that check themselves: a comparison, a threshold or a rank, checked against a per-query table.

A review ends with conclusions ("dense beats BM25 on nDCG@10", "MAP stays above .25"); a claim states one so
that rankscope can check it again whenever the runs, the judgments or the conventions change. The three
kinds (:mod:`~metrics.review.claims.kinds`):

==================  ===================================================================================
:class:`Threshold`  a system's value of a measure equals a value within a tolerance, or is at least or
                    at most a value (the expected scores of a regression file)
:class:`Better`     one system is better than another on a measure, optionally significantly under a
                    named paired test, correction and alpha
:class:`Rank`       a system is among the first k systems by a measure
==================  ===================================================================================

:func:`check_claims` checks claims against :func:`metrics.evaluate`'s table (the one pipeline: the values
are :func:`metrics.aggregate`'s, the tests :func:`metrics.stats.significance.compare_systems`'s) and gives one
:class:`ClaimResult` per claim: it holds, fails, or cannot be checked (a system or measure the table
lacks), with the numbers behind it. :func:`read_expectations` checks the plain data of an expectations
file (``rankscope check``) and :func:`expectations_data` writes it; :func:`claim_from_entry` reads one
claim from its plain form (every claim's ``entry()`` gives it back), and :func:`junit_xml` writes results
as JUnit XML for a CI system. :func:`recheck` checks claims again on each version of a collection and gives
a :class:`Trail` per claim: its result on every version, and whether (and by which version) it has flipped.
"""

from __future__ import annotations

from metrics.review.claims.check import check_claims
from metrics.review.claims.junit import junit_xml
from metrics.review.claims.kinds import (FAILS, HOLDS, PAIRS, STATUSES, TIES, UNCHECKABLE, Better, Claim, ClaimResult,
                                         Rank, Threshold)
from metrics.review.claims.schema import (ENTRY_KEYS, TOP_KEYS, Expectations, claim_from_entry, expectations_data,
                                          read_expectations)
from metrics.review.claims.trail import FLIPPED, Trail, recheck

__all__ = ["Better", "Claim", "ClaimResult", "ENTRY_KEYS", "Expectations", "FAILS", "FLIPPED", "HOLDS", "PAIRS",
           "Rank", "STATUSES", "TIES", "TOP_KEYS", "Threshold", "Trail", "UNCHECKABLE", "check_claims",
           "claim_from_entry", "expectations_data", "junit_xml", "read_expectations", "recheck"]
