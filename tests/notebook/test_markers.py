"""The notebook's significance markers: the dashboard overview's, through the same rule
(:mod:`metrics.review.compare.marked`), and p-values that scipy and statsmodels compute the same."""

from __future__ import annotations

import itertools
import string

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metrics
from metrics.review.compare import to_csv

pytest.importorskip("plotly", reason="the notebook's figures need the dashboard extra (plotly)")
pytest.importorskip("streamlit", reason="the overview's markers come from the dashboard extra (streamlit)")
multitest = pytest.importorskip("statsmodels.stats.multitest", reason="the oracle of Holm's correction is statsmodels")

from dashboard import data, figures
from dashboard.session import state  # noqa: E402
from rankscope.notebook import Collection  # noqa: E402
from sample_data import demo_paths  # noqa: E402

MEASURES = (*metrics.DEFAULT_MEASURES, "num_rel_ret")  # a count: shown, never tested


@pytest.fixture(scope="module")
def demo():
    qrels, runs = demo_paths()
    return Collection(qrels, runs, measures=MEASURES), state.demo()


def _labels(fig) -> dict[str, str]:
    return {trace.name: trace.y[0] for trace in fig.data}


@pytest.mark.parametrize("baseline, test", [("bm25", "t"), (None, "t"), ("dense_precise", "wilcoxon")])
def test_the_notebooks_markers_are_the_overviews_on_the_demo_files(demo, baseline, test):
    nb, loaded = demo
    assert [r.n_queries for r in nb._ranked] != [nb._ranked[0].n_queries] * len(nb._ranked)  # tests on every topic

    page, untested = data.results(loaded, MEASURES, baseline, test, "holm", 0.05)  # what the overview shows
    table = nb.results(baseline=baseline, test=test)
    assert untested is None and nb.summary(baseline=baseline, test=test).attrs["untested"] is None
    pd.testing.assert_frame_equal(table.markers, page.markers)
    assert to_csv(table) == to_csv(page) and table.caption(ci=True) == page.caption(ci=True)  # the export
    shown = set(page.markers.to_numpy().ravel())
    assert ({"", "†", "‡"} <= shown) if baseline else (len(shown - {""}) > 3)  # not a table of blanks
    assert (page.markers["num_rel_ret"] == "").all()

    summary = nb.summary(baseline=baseline, test=test)
    assert summary.drop(columns="marker").equals(metrics.summarise(nb.per_query()))
    by_cell = page.cells().set_index(["system", "measure"])["marker"]
    assert list(summary["marker"]) == [by_cell[s, m] for s, m in zip(summary["system"], summary["measure"])]

    colors = figures.system_colors(loaded.systems)
    for measure in ("AP", "RR", "num_rel_ret"):
        drawn = nb.figure("summary", measure=measure, baseline=baseline, test=test)
        markers = page.markers[measure].to_dict() if baseline else None  # the overview always has a baseline
        overview = figures.summary_chart(data.summary(loaded, MEASURES), measure, colors, markers, baseline)
        assert _labels(drawn) == _labels(overview)
        if baseline:
            assert _labels(drawn)[baseline] == f"{baseline} (baseline)"
            marked = any(label.endswith(("†", "‡")) for label in _labels(drawn).values())
            assert marked == (measure != "num_rel_ret")  # a count is not tested


# ---- the p-values against scipy and statsmodels ---------------------------------------------------------------
SYSTEMS = {"base": 0.0, "near": 0.15, "good": 1.6, "also_good": 1.75}  # strength of the relevant documents' scores
TOPICS, DOCS, RELEVANT = 24, 60, 8


def _seeded(missing: bool) -> tuple[str, dict[str, str]]:
    """A seeded collection: two weak systems and two strong ones, each pair within a group close. With
    ``missing``, ``near`` answers neither topic 1 nor topic 2 (the tests then score them 0, trec_eval -c)."""
    rng = np.random.default_rng(20261127)
    qrels = [f"{q} 0 d{d} {int(d < RELEVANT)}" for q in range(1, TOPICS + 1) for d in range(DOCS)]
    runs = {}
    for system, strength in SYSTEMS.items():
        lines = []
        for q in range(1, TOPICS + 1):
            if missing and system == "near" and q <= 2:
                continue
            scores = rng.normal(size=DOCS) + strength * (np.arange(DOCS) < RELEVANT) * rng.uniform(0.5, 1.5)
            order = np.argsort(-scores, kind="stable")
            lines += [f"{q} Q0 d{d} {rank + 1} {scores[d]:.6f} {system}" for rank, d in enumerate(order)]
        runs[system] = "\n".join(lines) + "\n"
    return "\n".join(qrels) + "\n", runs


def _oracle(wide: pd.DataFrame, pairs: list[tuple[str, str]], alpha: float) -> pd.DataFrame:
    """Paired t-tests of ``b - a`` (scipy) and Holm's correction over the pairs (statsmodels)."""
    p = [stats.ttest_rel(wide[b], wide[a]).pvalue for a, b in pairs]
    adjusted = multitest.multipletests(p, alpha=alpha, method="holm")[1]
    return pd.DataFrame({"pair": [frozenset(x) for x in pairs], "a": [a for a, _ in pairs], "b": [b for _, b in pairs],
                         "p": p, "adjusted": adjusted, "diff": [(wide[b] - wide[a]).mean() for a, b in pairs]})


@pytest.mark.parametrize("missing", [False, True], ids=["same topics", "a run misses topics"])
@pytest.mark.parametrize("baseline", ["base", None], ids=["baseline", "all pairs"])
def test_the_markers_p_values_are_scipys_t_test_with_statsmodels_holm(missing, baseline):
    qrels, runs = _seeded(missing)
    nb = Collection(qrels, runs, measures=["AP", "P@10", "num_rel_ret"])
    systems, alpha = list(SYSTEMS), 0.05
    values = nb.per_query(["AP", "P@10"])
    pairs = [(baseline, s) for s in systems if s != baseline] if baseline else list(itertools.combinations(systems, 2))
    letters = dict(zip(systems, string.ascii_lowercase))
    tested = nb.comparison(baseline=baseline).frame
    table = nb.results(baseline=baseline)
    assert sorted(set(tested["measure"])) == ["AP", "P@10"] and (table.markers["num_rel_ret"] == "").all()
    outcomes = set()
    for measure in ("AP", "P@10"):
        wide = values[values["measure"] == measure].pivot(index="query", columns="system", values="value")
        if missing:  # a judged topic a run did not answer scores 0 in the tests
            assert wide["near"].isna().sum() == 2
            wide = wide.fillna(0.0)
        expected = _oracle(wide, pairs, alpha)
        by_pair = dict(zip(expected["pair"], expected.to_dict("records")))
        got = tested[tested["measure"] == measure]
        assert len(got) == len(expected)
        for row in got.itertuples(index=False):
            want = by_pair[frozenset((row.system_a, row.system_b))]
            sign = 1.0 if (row.system_a, row.system_b) == (want["a"], want["b"]) else -1.0
            assert row.p_value == pytest.approx(want["p"], rel=0, abs=1e-12)
            assert row.p_adjusted == pytest.approx(want["adjusted"], rel=0, abs=1e-12)
            assert row.mean_diff == pytest.approx(sign * want["diff"], rel=0, abs=1e-12)
            assert bool(row.significant) == (want["adjusted"] < alpha)
            outcomes.add(bool(row.significant))
        marks = {}
        for a, b, adjusted, diff in zip(expected["a"], expected["b"], expected["adjusted"], expected["diff"]):
            if adjusted < alpha and diff != 0:
                winner, loser = (b, a) if diff > 0 else (a, b)
                marks.setdefault(winner, []).append(loser)
        if baseline:  # better than the baseline: it beat the baseline; worse: the baseline beat it
            want = {s: "†" if baseline in marks.get(s, []) else "‡" if s in marks.get(baseline, []) else ""
                    for s in systems}
        else:
            want = {s: "".join(letters[t] for t in systems if t in marks.get(s, [])) for s in systems}
        assert table.markers[measure].to_dict() == want
        summary = nb.summary(baseline=baseline)
        assert summary[summary["measure"] == measure].set_index("system")["marker"].to_dict() == want
    assert outcomes == {True, False}  # some pairs significant, some not
