"""The measure checklist: every registered measure has its values checked against something other than itself.

A measure's values are checked when an oracle computes them too, or a textbook loop does:

* oracle: pytrec_eval (trec_eval 9's C code) on seeded random collections, the families of
  ``test_oracle_pytrec_eval.FAMILIES``; trec_eval's own printed values, the labels of
  ``test_golden_trec_eval`` and the measures the command lines of ``test_trec_eval_conformance.CASES``
  print;
* textbook: the slow per-query loops of ``test_textbook_measures.MEASURES`` (one per entry of its
  ``CASES``, every one of them compared on every seed and convention).

Each list is read from the module whose tests use it, so the checklist cannot count a measure those tests
leave out. An oracle counts only where its tests run: pytrec_eval installed, trec_eval's test files present.
"""

from __future__ import annotations

import pytest

from metrics import list_measures, parse_measure
from metrics.measures.trec_names import expand_trec, trec_table
from rankscope.cli import build_parser
from tests.metrics.measures import test_golden_trec_eval as golden
from tests.cli import test_trec_eval_conformance as conformance
from tests.metrics.measures.test_textbook_measures import MEASURES as TEXTBOOK_MEASURES

try:
    from tests.metrics.measures.test_oracle_pytrec_eval import FAMILIES as PYTREC_FAMILIES
except pytest.skip.Exception:  # pytrec_eval is not installed: its tests are skipped, so they check nothing
    PYTREC_FAMILIES = None


def _names(measures) -> set[str]:
    """The registered names (``cls.name``) of measure objects."""
    return {type(m).name for m in measures}


def pytrec_eval_checked() -> set[str]:
    table = trec_table()
    return {table[family][0].name for family in PYTREC_FAMILIES}


def golden_checked() -> set[str]:
    labels = {*golden.SUMMARY, *golden.SUMMARY_9, *(label for values in golden.PER_QUERY.values() for label in values)}
    return _names(parse_measure(label) for label in labels)


def conformance_checked() -> set[str]:
    """The measures trec_eval prints for the conformance cases' command lines (as ``rankscope eval`` reads them)."""
    parser = build_parser("eval")
    names = set()
    for _expected, flags, qrels, run, versions in conformance.CASES:
        specs = parser.parse_args(["eval", *flags, qrels, run]).measures or ["official"]
        specs = [s for s in specs if s != "runid" and not s.startswith("relstring")]  # text, not numbers
        names |= _names(m for version in versions for spec in specs for m in expand_trec(spec, version=version))
    return names


def textbook_checked() -> set[str]:
    return _names(parse_measure(label) for label in TEXTBOOK_MEASURES)


def oracle_sources() -> dict[str, set[str] | None]:
    """Each oracle's checked measure names; None where its tests do not run here."""
    return {
        "pytrec_eval (test_oracle_pytrec_eval.FAMILIES)":
            None if PYTREC_FAMILIES is None else pytrec_eval_checked(),
        "trec_eval's printed values (test_golden_trec_eval)": golden_checked() if golden.DATA.is_dir() else None,
        "trec_eval's test suite (test_trec_eval_conformance.CASES)":
            conformance_checked() if conformance.DATA.is_dir() else None,
    }


def test_every_measure_has_an_oracle_or_a_textbook_case():
    oracles = oracle_sources()
    checked = textbook_checked().union(*(names for names in oracles.values() if names is not None))
    unchecked = sorted(cls.name for cls in list_measures() if cls.name not in checked)
    idle = [source for source, names in oracles.items() if names is None]
    assert unchecked == [], (
        f"no value test for {', '.join(unchecked)}: add a slow textbook loop and an entry of CASES in "
        "tests/metrics/measures/test_textbook_measures.py, or compare the measure with an oracle"
        + (f" (not running here: {'; '.join(idle)})" if idle else ""))


def test_the_oracle_families_are_trec_eval_measures():
    """A family misspelt in the oracle's list would check nothing and still claim coverage."""
    if PYTREC_FAMILIES is None:
        pytest.skip("pytrec_eval is not installed")
    table = trec_table()
    assert [family for family in PYTREC_FAMILIES if family not in table] == []

