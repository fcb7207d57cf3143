"""The checklist of the statistical tests and corrections: every declared one has its values checked against an
oracle that does not share its code (scipy, statsmodels, or a textbook loop).

The oracles are read from the module whose tests use them (``test_significance_oracles.py``), so the checklist cannot
count a test those tests leave out; an oracle named for nothing declared (a misspelt name) fails too.
"""

from __future__ import annotations

from metrics.stats.significance import CORRECTION_REGISTRY, TEST_REGISTRY
from tests.metrics.stats.test_significance_oracles import CORRECTION_ORACLES, TEST_ORACLES


def test_every_declared_test_has_an_oracle():
    unchecked = [t.name for t in TEST_REGISTRY if t.name not in TEST_ORACLES]
    assert unchecked == [], (f"no value test for the test(s) {', '.join(unchecked)}: add an oracle (scipy, "
                             "statsmodels) to TEST_ORACLES in tests/metrics/stats/test_significance_oracles.py")
    assert sorted(set(TEST_ORACLES) - set(TEST_REGISTRY.names())) == []


def test_every_declared_correction_has_an_oracle():
    unchecked = [c.name for c in CORRECTION_REGISTRY if c.name not in CORRECTION_ORACLES]
    assert unchecked == [], (f"no value test for the correction(s) {', '.join(unchecked)}: add an oracle to "
                             "CORRECTION_ORACLES in tests/metrics/stats/test_significance_oracles.py")
    assert sorted(set(CORRECTION_ORACLES) - set(CORRECTION_REGISTRY.names())) == []
