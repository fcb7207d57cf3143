"""What a page shows, read off the browser: the charts' data, the demo collection's means on the overview."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from metrics import aggregate, evaluate, system_name
from sample_data import demo_paths
from tests.e2e.conftest import settled

# The data of the first chart on the overview: each trace is one system, its x the mean of the measure.
CHART_DATA = """() => {
  const plot = document.querySelector('[data-testid="stMain"] [data-testid="stPlotlyChart"] .js-plotly-plot');
  return plot ? plot.data.map(t => [t.name, Array.from(t.x)]) : null;
}"""


def _demo_means(measure: str) -> dict[str, float]:
    qrels, runs = demo_paths()
    means = aggregate(evaluate(qrels, {system_name(p.name): p for p in runs}, [measure]))
    return dict(zip(means["system"], means["value"]))


def overview_means(tab) -> tuple[str, dict[str, float]]:
    """The overview once drawn without an exception: the measure of its first chart and each system's mean there."""
    expect(tab.locator('[data-testid="stMain"] h1').first).to_have_text("Overview")
    settled(tab)
    expect(tab.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').first).to_be_attached()
    expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
    measure = tab.locator('[data-testid="stSelectbox"]', has_text="Chart of").locator("input").input_value()
    return measure, {name: x[0] for name, x in tab.evaluate(CHART_DATA)}


def shows_the_demo_means(tab) -> None:
    measure, shown = overview_means(tab)
    expected = _demo_means(measure)
    assert shown.keys() == expected.keys()
    for system, value in expected.items():
        assert shown[system] == pytest.approx(value, rel=0, abs=1e-12), system
