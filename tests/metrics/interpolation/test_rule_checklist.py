"""The checklist of the interpolation rules: every declared rule has its values checked against something other
than its own kernel.

* trec_eval's printed values: the rules of ``test_interpolation.TREC_EVAL_OUTPUTS`` (its expected outputs,
  where trec_eval's test data are present);
* pytrec_eval (trec_eval 9's C code): the default conventions' rule, when ``iprec_at_recall`` is one of the
  families of ``test_oracle_pytrec_eval.FAMILIES`` and pytrec_eval is installed;
* a slow per-query loop: ``test_interpolation.SLOW_LOOP_RULE``.

Each is read from the module whose tests use it, so the checklist cannot count a rule those tests leave out.
"""

from __future__ import annotations

import pytest

from metrics.conventions import Conventions
from metrics.interpolation import RULE_REGISTRY
from tests.metrics.curves import test_interpolation as interpolation

try:
    from tests.metrics.measures.test_oracle_pytrec_eval import FAMILIES as PYTREC_FAMILIES
except pytest.skip.Exception:  # pytrec_eval is not installed: its tests are skipped, so they check nothing
    PYTREC_FAMILIES = None


def test_every_rule_has_an_oracle():
    checked = {interpolation.SLOW_LOOP_RULE}
    if interpolation.TREC_TEST.is_dir():
        checked |= set(interpolation.TREC_EVAL_OUTPUTS)
    if PYTREC_FAMILIES is not None and "iprec_at_recall" in PYTREC_FAMILIES:
        checked.add(Conventions().interpolation)
    unchecked = [rule.name for rule in RULE_REGISTRY if rule.name not in checked]
    assert unchecked == [], (f"no value test for the interpolation rule(s) {', '.join(unchecked)}: compare it with "
                             "trec_eval's output (TREC_EVAL_OUTPUTS) or a slow loop in tests/metrics/curves/test_interpolation.py")


def test_the_checked_rules_are_declared():
    """A rule misspelt in the tests' lists would check nothing and still claim coverage."""
    declared = set(RULE_REGISTRY.names())
    assert {interpolation.SLOW_LOOP_RULE, *interpolation.TREC_EVAL_OUTPUTS} <= declared
