"""The statistics behind decisions in the dashboard: significance groups on the overview, the correction family,
max-T and power on the significance page, the Agreement and Reproducibility pages, and their figure builders.

Every number shown is checked against the ``metrics`` function that makes it and, where one exists, against an
independent oracle: scipy and statsmodels (t-tests, Holm, power), repro_eval (Breuer et al.'s measures), or a
textbook loop written here.
"""

from __future__ import annotations

import gzip
import math
from collections import OrderedDict
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metrics
from dashboard import figures
from dashboard.data import leaderboard
from dashboard.exports.tables import groups_latex
from metrics import Conventions
from metrics.io import system_name
from metrics.review.compare import summary_table
from metrics.stats.agreement import agreement_matrix, ordering_agreement, swapped_pairs, system_means
from metrics.stats.power import power_analysis
from metrics.stats.reproducibility import reproduce
from metrics.stats.significance import CORRECTIONS, FAMILIES, MAXT, compare_systems, grouped_leaderboard, letter_display
from sample_data import demo_paths

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from streamlit.testing.v1 import AppTest  # noqa: E402

from tests.dashboard.conftest import errors as problems  # noqa: E402
from tests.dashboard.conftest import open_page as dashboard_page  # noqa: E402
from tests.dashboard.conftest import unescaped  # noqa: E402
from tests.dashboard.app_pages.arrays import array  # noqa: E402

DEFAULT = tuple(metrics.DEFAULT_MEASURES)
ALPHA = 0.05


# ---- helpers ----------------------------------------------------------------------------------------------
def open_page(page: str, at: AppTest | None = None) -> AppTest:
    """A statistics page: the tests behind them take longer than other pages."""
    return dashboard_page(page, at=at, timeout=180)


def shown_metrics(at: AppTest) -> dict[str, str]:
    return {unescaped(m.label): m.value for m in at.metric}


def charts_of(at: AppTest) -> list[dict]:
    import json

    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def demo_runs() -> tuple[Path, dict[str, Path]]:
    qrels, paths = demo_paths()
    return qrels, {system_name(p.name): p for p in paths}


def demo_frame(measures=DEFAULT, complete: bool = False) -> pd.DataFrame:
    """The demo collection evaluated by metrics directly (complete: every system on every judged topic, as the
    paired tests are)."""
    qrels, paths = demo_runs()
    runs = {name: metrics.read_run(path) for name, path in paths.items()}
    return metrics.evaluate(qrels, runs, list(measures), conventions=Conventions(complete=complete))


def score_matrix(frame: pd.DataFrame, measure: str) -> pd.DataFrame:
    """Systems x topics, by a plain pivot (the oracle's own alignment)."""
    rows = frame[frame["measure"] == measure]
    return rows.pivot(index="system", columns="query", values="value")


def holm(p: np.ndarray) -> np.ndarray:
    from statsmodels.stats.multitest import multipletests

    return multipletests(p, method="holm")[1]


def t_oracle(frame: pd.DataFrame, measures, family: str) -> dict[tuple[str, str, str], float]:
    """Holm-adjusted two-sided paired t-test p-values of every pair (scipy, statsmodels), by measure or all
    measures together; identical systems count with p = 1."""
    keys, raw = [], []
    for measure in measures:
        X = score_matrix(frame, measure)
        for a, b in combinations(list(X.index), 2):
            d = X.loc[b].to_numpy() - X.loc[a].to_numpy()
            if np.all(np.abs(d) < 1e-12):
                p = 1.0
            else:
                p = float(stats.ttest_rel(X.loc[b].to_numpy(), X.loc[a].to_numpy()).pvalue)
            keys.append((measure, a, b))
            raw.append(p)
    raw = np.asarray(raw)
    out = np.empty_like(raw)
    groups = [list(measures)] if family == "all" else [[m] for m in measures]
    for group in groups:
        mask = np.array([k[0] in group for k in keys])
        out[mask] = holm(raw[mask])
    return dict(zip(keys, out))


def share_letter(groups: dict[str, str], a: str, b: str) -> bool:
    return bool(set(groups[a]) & set(groups[b]))


def residual_variance(X: np.ndarray) -> float:
    """Two-way ANOVA residual mean square, by the textbook double loop."""
    m, n = X.shape
    grand = X.mean()
    rows, cols = X.mean(axis=1), X.mean(axis=0)
    total = 0.0
    for s in range(m):
        for t in range(n):
            total += (X[s, t] - rows[s] - cols[t] + grand) ** 2
    return total / ((m - 1) * (n - 1))


# ---- figure builders --------------------------------------------------------------------------------------
def _random_per_query(seed: int, systems: int, topics: int, measures: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    base = rng.random(systems)
    for m_index, measure in enumerate(measures):
        noise = rng.normal(0, 0.15 * (m_index + 1), (systems, topics))
        for s in range(systems):
            for t in range(topics):
                rows.append((f"s{s}", f"q{t}", measure, float(base[s] + noise[s, t])))
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agreement_heatmap_draws_the_matrix_of_kendall_tau(seed):
    measures = ["m1", "m2", "<b>m3</b>"]
    frame = _random_per_query(seed, 7, 30, measures)
    matrix = agreement_matrix(frame, measures)
    means = frame.groupby(["system", "measure"])["value"].mean().unstack()
    for x, y in combinations(measures, 2):  # scipy's tau-b is the oracle of each cell
        assert matrix.loc[x, y] == pytest.approx(stats.kendalltau(means[x], means[y]).statistic, abs=1e-12)
    fig = figures.agreement_heatmap(matrix, "τ", "τ")
    assert len(fig.data) == 1 and fig.data[0].type == "heatmap"
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), matrix.to_numpy())
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1, 1)
    assert list(fig.data[0].x) == ["m1", "m2", "&lt;b&gt;m3&lt;/b&gt;"]
    assert "<b>m3" not in fig.to_json()


@pytest.mark.parametrize("seed", [0, 3, 7])
def test_ordering_scatter_splits_the_systems_of_swapped_pairs(seed):
    rng = np.random.default_rng(seed)
    names = [f"sys{i}" for i in range(9)]
    x = pd.Series(rng.random(9), index=names)
    y = pd.Series(x.to_numpy() + rng.normal(0, 0.2, 9), index=names)
    y.iloc[0] = y.iloc[1]  # a tie in y: not a swap
    discordant = [(a, b) for a, b in combinations(names, 2) if (x[a] - x[b]) * (y[a] - y[b]) < 0]
    swaps = swapped_pairs(x, y)
    assert len(swaps) == len(discordant) > 0
    moved = {s for pair in discordant for s in pair}
    means = pd.DataFrame({"system": names, "x": x.to_numpy(), "y": y.to_numpy()})
    fig = figures.ordering_scatter(means, "AP", "P@10", {*swaps["system_a"], *swaps["system_b"]})
    assert [t.name for t in fig.data] == ["in a swapped pair", "same order"]
    assert len(fig.data[0].x) == len(moved) and len(fig.data[1].x) == 9 - len(moved)
    assert set(fig.data[0].text) == moved and set(fig.data[0].text) | set(fig.data[1].text) == set(names)
    assert fig.layout.xaxis.title.text == "AP" and fig.layout.yaxis.title.text == "P@10"


def test_order_chart_one_trace_per_run_and_panel():
    order = pd.DataFrame({"run": ["baseline"] * 5 + ["advanced"] * 5, "query": [f"<q{i}>" for i in range(5)] * 2,
                          "ktu": np.linspace(-0.5, 1, 10), "rbo": np.linspace(0, 1, 10)})
    fig = figures.order_chart(order)
    assert [(t.name, t.yaxis) for t in fig.data] == [("baseline", "y"), ("advanced", "y"), ("baseline", "y2"),
                                                     ("advanced", "y2")]
    assert [t.showlegend for t in fig.data] == [True, True, False, False]
    np.testing.assert_allclose(fig.data[1].y, order["ktu"].to_numpy()[5:])
    np.testing.assert_allclose(fig.data[2].y, order["rbo"].to_numpy()[:5])
    assert list(fig.data[0].x) == [f"&lt;q{i}&gt;" for i in range(5)]
    assert len(figures.order_chart(order[order["run"] == "baseline"]).data) == 2


def test_effect_chart_one_bar_per_measure_without_infinite_values():
    effects = pd.DataFrame({"measure": ["AP", "P@10", "RR"], "er": [0.8, np.inf, 1.2], "delta_ri": [0.1, -0.2, 0.0]})
    fig = figures.effect_chart(effects)
    assert [t.type for t in fig.data] == ["bar", "bar"] and [len(t.x) for t in fig.data] == [3, 3]
    er = np.asarray(fig.data[0].y, dtype=float)
    assert er[0] == 0.8 and np.isnan(er[1]) and er[2] == 1.2
    np.testing.assert_allclose(fig.data[1].y, [0.1, -0.2, 0.0])
    assert sorted(shape.y0 for shape in fig.layout.shapes) == [0.0, 1.0]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_letter_group_column_and_its_latex(seed):
    rng = np.random.default_rng(seed)
    names = [f"run{i}" for i in range(6)]
    differs = np.triu(rng.random((6, 6)) < 0.4, 1)
    differs = differs | differs.T
    frame = _random_per_query(seed, 6, 12, ["AP"]).replace({"system": {f"s{i}": names[i] for i in range(6)}})
    table = summary_table(None, metrics.summarise(frame))
    board = letter_display(names, table.values["AP"].to_numpy(dtype=float)[[list(table.systems).index(s)
                                                                             for s in names]], differs, measure="AP")
    part = leaderboard.letter_groups({"AP": board})(table, None)
    assert list(part.columns) == ["AP group"] and list(part.index) == list(table.systems)
    groups = part["AP group"].to_dict()
    for i, j in combinations(range(6), 2):  # the display's meaning, pair by pair
        assert share_letter(groups, names[i], names[j]) == (not differs[i, j])
    assert leaderboard.letter_groups({})(table, None).shape == (6, 0)
    latex = groups_latex({"AP": board, "P@10": board}).decode()
    assert latex.count(r"\begin{table}") == 2 and r"\label{tab:groups-2}" in latex
    for row in board.itertuples():
        assert f"{row.system} & {row.mean:.4f} & {row.group}" in latex.replace(r"\_", "_")


# ---- the overview -----------------------------------------------------------------------------------------
def test_overview_groups_systems_by_the_corrected_tests_of_every_pair():
    at = open_page("overview")
    assert problems(at) == []
    shown = at.dataframe[0].value
    frame = demo_frame(complete=True)
    tested = compare_systems(frame, list(DEFAULT), test="t", correction="holm", alpha=ALPHA)
    oracle = t_oracle(frame, DEFAULT, "per_measure")
    systems = [s.replace(" (baseline)", "") for s in shown["system"]]
    for measure in DEFAULT:
        groups = dict(zip(systems, shown[f"{measure} group"]))
        expected = grouped_leaderboard(tested, measure).set_index("system")["group"]
        assert groups == expected.to_dict(), measure
        for a, b in combinations(sorted(groups), 2):
            key = (measure, a, b) if (measure, a, b) in oracle else (measure, b, a)
            assert share_letter(groups, a, b) == (oracle[key] >= ALPHA), (measure, a, b)
    assert len(set(shown["AP group"])) > 1  # the demo's systems fall into several groups
    assert [b.label for b in at.get("download_button") if b.label == "LaTeX groups"] == ["LaTeX groups"]


# ---- the significance page --------------------------------------------------------------------------------
def test_significance_offers_metrics_corrections_families_and_max_t():
    from dashboard import data

    assert list(data.TEST_CORRECTIONS) == [*CORRECTIONS, MAXT] and list(data.FAMILIES) == list(FAMILIES)
    at = open_page("significance")
    assert at.selectbox(key="correction").options == [data.TEST_CORRECTIONS[k] for k in data.TEST_CORRECTIONS]
    assert at.selectbox(key="family").options == [data.FAMILIES[k] for k in data.FAMILIES]


def test_significance_corrects_over_all_measures_as_holm_does():
    at = open_page("significance")
    at.selectbox(key="family").select("all").run()
    assert problems(at) == []
    captions = unescaped(" ".join(c.value for c in at.caption))
    k = 6 * 5 // 2
    assert "Family: all measures together" in captions and f"{k * len(DEFAULT)} tests corrected together" in captions
    table = at.dataframe[0].value
    oracle = t_oracle(demo_frame(complete=True), DEFAULT, "all")
    assert len(table) == len(oracle) == k * len(DEFAULT)
    for row in table.itertuples():
        assert row.p_adjusted == pytest.approx(oracle[(row.measure, row.system_a, row.system_b)], rel=1e-9, abs=1e-12)


def test_significance_max_t_over_all_measures_equals_metrics():
    at = open_page("significance")
    at.selectbox(key="test").select("permutation")
    at.selectbox(key="correction").select(MAXT)
    at.selectbox(key="family").select("all").run()
    assert problems(at) == []
    table = at.dataframe[0].value
    expected = compare_systems(demo_frame(complete=True), list(DEFAULT), test="permutation", correction=MAXT,
                               family="all", alpha=ALPHA, seed=0).frame
    np.testing.assert_array_equal(table["p_adjusted"].to_numpy(), expected["p_adjusted"].to_numpy())
    unadjusted = table["p_value"].to_numpy()
    assert np.all(table["p_adjusted"].to_numpy() >= unadjusted - 1e-15)  # max-T never lowers a p-value
    assert "by max-T" in unescaped(" ".join(c.value for c in at.caption))


def test_power_section_matches_metrics_and_statsmodels():
    from statsmodels.stats.power import FTestAnovaPower, TTestPower

    at = open_page("significance")
    at.select_slider(key="sig_power").set_value(0.9)
    at.number_input(key="sig_effect_size").set_value(0.03).run()
    assert problems(at) == []
    frame = demo_frame(("AP",), complete=True)
    found = power_analysis(frame, "AP", alpha=ALPHA, power=0.9, effect=0.03)
    X = score_matrix(frame, "AP").to_numpy()
    sigma2 = residual_variance(X)
    m, n = X.shape
    d = TTestPower().solve_power(effect_size=None, nobs=n, alpha=ALPHA, power=0.9, alternative="two-sided")
    delta = FTestAnovaPower().solve_power(effect_size=None, nobs=m * n, alpha=ALPHA, power=0.9, k_groups=m)
    need_t = TTestPower().solve_power(effect_size=0.03 / math.sqrt(2 * sigma2), nobs=None, alpha=ALPHA, power=0.9)
    need_f = FTestAnovaPower().solve_power(effect_size=0.03 / math.sqrt(sigma2) / math.sqrt(2 * m), nobs=None,
                                           alpha=ALPHA, power=0.9, k_groups=m) / m
    shown = shown_metrics(at)
    summary = found.summary.set_index("design").rename(index={"one-way ANOVA, two-way residual variance":
                                                                  "one-way ANOVA"})
    assert found.sigma2 == pytest.approx(sigma2, rel=1e-10)
    assert summary.loc["paired t", "min_effect"] == pytest.approx(d * math.sqrt(2 * sigma2), rel=1e-5)
    assert summary.loc["one-way ANOVA", "min_effect"] == pytest.approx(delta * math.sqrt(2 * m) * math.sqrt(sigma2),
                                                                       rel=1e-4)
    assert summary.loc["paired t", "topics_needed"] == math.ceil(need_t)
    assert summary.loc["one-way ANOVA", "topics_needed"] == math.ceil(need_f - 1e-9)
    assert shown["Smallest difference, paired t-test"] == f"{summary.loc['paired t', 'min_effect']:.4f}"
    assert shown[f"Smallest range, ANOVA of {m}"] == f"{summary.loc['one-way ANOVA', 'min_effect']:.4f}"
    assert shown["Topics for 0.03, paired t-test"] == f"{math.ceil(need_t):,}"
    assert shown["Topics for 0.03, ANOVA"] == f"{summary.loc['one-way ANOVA', 'topics_needed']:,.0f}"
    pairs = at.dataframe[1].value
    np.testing.assert_allclose(pairs["post_hoc_power"].to_numpy(dtype=float), found.pairs["post_hoc_power"].to_numpy(),
                               rtol=1e-12)
    said = " ".join(c.value for c in at.caption)  # named for what it is where it is shown
    assert "each pair's post hoc power" in said and "adds nothing to the p-value" in said
    assert "weak evidence" not in said and "achieved" not in said
    for row in pairs.rename(columns={"post_hoc_power": "power"}).itertuples():  # statsmodels at the pair's d_z
        a, b = X[list(score_matrix(frame, "AP").index).index(row.system_a)], \
            X[list(score_matrix(frame, "AP").index).index(row.system_b)]
        dz = (b - a).mean() / (b - a).std(ddof=1)
        assert row.power == pytest.approx(TTestPower().power(dz, n, ALPHA), rel=1e-6)
    assert not at.warning or all("topics even a tiny" not in w.value for w in at.warning)


def test_more_than_a_thousand_topics_puts_effect_sizes_first():
    rng = np.random.default_rng(5)
    topics = 1001
    qrels = "".join(f"{t} 0 d{t}_{k} {int(k == 0)}\n" for t in range(topics) for k in range(3)).encode()
    runs = []
    for name in ("A", "B"):
        lines = []
        for t in range(topics):
            for rank, k in enumerate(rng.permutation(3), 1):
                lines.append(f"{t} Q0 d{t}_{k} {rank} {10 - rank} {name}")
        runs.append((f"{name}.run", ("\n".join(lines) + "\n").encode(), "text/plain"))
    at = open_page("data")
    for label, files in (("Qrels", ("big.qrels", qrels, "text/plain")), ("Runs", runs)):
        next(u for u in at.get("file_uploader") if u.proto.label == label).set_value(files)
        at.run()
    open_page("significance", at=at)
    assert [e.value for e in at.exception] == []
    warned = " ".join(w.value for w in at.warning)
    assert "With 1,001 topics even a tiny difference is significant" in warned


# ---- the agreement page -----------------------------------------------------------------------------------
def test_agreement_page_shows_tau_and_tau_ap_and_the_swapped_pairs():
    frame = demo_frame()
    means = system_means(frame, list(DEFAULT))
    swaps = {(x, y): [(a, b) for a, b in combinations(list(means.index), 2)
                      if (means.loc[a, x] - means.loc[b, x]) * (means.loc[a, y] - means.loc[b, y]) < 0]
             for x, y in combinations(DEFAULT, 2)}
    (x, y), pairs = max(swaps.items(), key=lambda item: len(item[1]))
    assert pairs, "the demo's measures disagree on some pair"
    at = open_page("agreement")
    assert problems(at) == []
    drawn = charts_of(at)
    assert len(drawn) == 4  # the two matrices, then the scatters of two measures and of two conventions
    for figure, statistic in zip(drawn[:2], ("tau", "tau_ap")):
        np.testing.assert_allclose(array(figure["data"][0]["z"]),
                                   agreement_matrix(frame, list(DEFAULT), statistic=statistic).to_numpy(), atol=1e-12)
    tau = array(drawn[0]["data"][0]["z"])
    assert tau[0, 1] == pytest.approx(stats.kendalltau(means[DEFAULT[0]], means[DEFAULT[1]]).statistic, abs=1e-12)
    at.selectbox(key="agreement_x").select(x)
    at.selectbox(key="agreement_y").select(y).run()
    assert problems(at) == []
    table = at.dataframe[0].value
    assert sorted(zip(table["system_a"], table["system_b"])) == sorted(pairs)
    shown = shown_metrics(at)
    assert shown["Pairs swapped"] == f"{len(pairs)} of 15"
    assert shown["Kendall's τ"] == f"{stats.kendalltau(means[x], means[y]).statistic:.4f}"


@pytest.mark.parametrize("measure, field, value, words", [
    ("P@10", "relevance_level", 2, ("grade ≥ 1", "grade ≥ 2")), ("AP", "judged_only", True, ("without -J", "-J")),
    ("RR", "complete", True, ("without -c", "-c"))])
def test_agreement_page_compares_one_measures_orderings_under_two_conventions(measure, field, value, words):
    qrels, paths = demo_runs()
    runs = {name: metrics.read_run(path) for name, path in paths.items()}
    first = system_means(metrics.evaluate(qrels, runs, [measure]))[measure]
    second = system_means(metrics.evaluate(qrels, runs, [measure], conventions=Conventions(**{field: value})))[measure]
    want = ordering_agreement(first, second, measures=measure)
    x, y = (f"{measure}, {w}" for w in words)
    at = open_page("agreement")
    at.selectbox(key="agreement_measure").select(measure)
    at.selectbox(key="agreement_change").select(field).run()
    if field == "relevance_level":
        at.number_input(key="agreement_level").set_value(value).run()
    assert problems(at) == []
    shown = shown_metrics(at)
    tau = stats.kendalltau(first, second.reindex(first.index)).statistic  # scipy: the independent oracle
    assert shown["Kendall's τ between the conventions"] == f"{tau:.4f}" == f"{want['tau'].iloc[0]:.4f}"
    assert shown[f"τ_AP, {x} the reference"] == f"{want['tau_ap_xy'].iloc[0]:.4f}"
    assert shown[f"τ_AP, {y} the reference"] == f"{want['tau_ap_yx'].iloc[0]:.4f}"
    assert shown["Pairs swapped between the conventions"] == f"{int(want['swaps'].iloc[0])} of 15"
    scatter = charts_of(at)[3]
    assert scatter["layout"]["xaxis"]["title"]["text"] == x and scatter["layout"]["yaxis"]["title"]["text"] == y
    drawn = {s: (px, py) for trace in scatter["data"]
             for (s,), px, py in zip(trace["customdata"], array(trace["x"]), array(trace["y"]))}  # labels may be thinned
    assert sorted(drawn) == sorted(first.index)
    for system, (px, py) in drawn.items():
        assert px == pytest.approx(first[system], abs=1e-12) and py == pytest.approx(second[system], abs=1e-12)
    if field == "relevance_level":
        assert (first != second).any()  # the demo's grades make the two orderings differ: the test can fail


# ---- the reproducibility page -----------------------------------------------------------------------------
def _nested(path: Path) -> dict:
    """A run in trec_eval's order (score descending, then document id descending), as repro_eval reads one."""
    run: dict[str, list[tuple[str, float]]] = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, []).append((d, float(s)))
    return {q: OrderedDict(sorted(sorted(docs, reverse=True), key=lambda item: -item[1]))
            for q, docs in sorted(run.items())}


def test_reproducibility_page_matches_metrics_and_repro_eval(tmp_path):
    import ir_measures
    import repro_eval.util
    from repro_eval.measure.document_order import KTU, RBO
    from repro_eval.measure.effectiveness import RMSE
    from repro_eval.measure.overall_effects import DRI, ER
    from repro_eval.measure.statistics import ttest

    roles = {"ob": "bm25", "oa": "bm25_rm3", "rb": "weak_tfidf", "ra": "bm25_rm3_copy"}
    at = open_page("repro")
    for role, system in roles.items():
        at.selectbox(key=f"repro_{role}").select(system)
    at.run()
    assert problems(at) == []
    assert len(at.get("plotly_chart")) == 2
    qrels, paths = demo_runs()
    plain = {}
    for role, system in roles.items():
        plain[role] = tmp_path / f"{system}.run"
        plain[role].write_bytes(gzip.decompress(paths[system].read_bytes()))
    expected = reproduce(qrels, *(plain[r] for r in ("ob", "oa", "rb", "ra")), list(DEFAULT))
    summary = at.dataframe[1].value.set_index("measure")
    pd.testing.assert_frame_equal(summary, expected.summary().set_index("measure"), check_exact=True)
    order = at.dataframe[0].value
    pd.testing.assert_frame_equal(order.reset_index(drop=True), expected.order.reset_index(drop=True))

    judged = repro_eval.util.load_qrels(str(qrels))
    wanted = [ir_measures.parse_measure(m) for m in DEFAULT]
    s = {role: repro_eval.util.evaluate_run(wanted, judged, repro_eval.util.load_run(str(path)))
         for role, path in plain.items()}
    er, dri = ER(s["oa"], s["ob"], s["ra"], s["rb"]), DRI(s["oa"], s["ob"], s["ra"], s["rb"])
    for measure in DEFAULT:
        assert summary.loc[measure, "er"] == pytest.approx(er[measure], rel=1e-9)
        assert summary.loc[measure, "delta_ri"] == pytest.approx(dri[measure], rel=1e-9, abs=1e-12)
    for run, orig, rep in (("baseline", "ob", "rb"), ("advanced", "oa", "ra")):
        rmse, p = RMSE(s[orig], s[rep]), ttest(s[orig], s[rep], rpd=True)
        for measure in DEFAULT:
            assert summary.loc[measure, f"rmse_{run}"] == pytest.approx(rmse[measure], rel=1e-9)
            if np.isnan(p[measure]):  # repro_eval's t-test of identical scores is 0/0; metrics reports 1
                assert summary.loc[measure, f"rmse_{run}"] == 0.0 and summary.loc[measure, f"p_value_{run}"] == 1.0
            else:
                assert summary.loc[measure, f"p_value_{run}"] == pytest.approx(p[measure], rel=1e-9)
        rows = order[order["run"] == run].set_index("query")
        ktu = KTU(_nested(plain[orig]), _nested(plain[rep]), per_topic=True)
        rbo = RBO(_nested(plain[orig]), _nested(plain[rep]), p=0.95, depth=1000, pbar=False, per_topic=True)
        assert sorted(rows.index) == sorted(ktu)
        for query in ktu:
            assert rows.loc[query, "ktu"] == pytest.approx(ktu[query], abs=1e-12)
            assert rows.loc[query, "rbo"] == pytest.approx(rbo[query], rel=1e-9)


@pytest.mark.parametrize("page", ["agreement", "repro"])
def test_new_pages_say_where_to_start_and_need_two_runs(page):
    at = open_page(page)
    text = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.info, *at.title])
    assert "Start here." in text and "seed" not in text.lower()
    open_page("data", at=at)
    at.selectbox(key="data_example").select("flagr8")
    at.run()
    at.button(key="data_load_example").click()
    at.run()
    open_page(page, at=at)
    assert problems(at) == []
    assert any("at least two runs" in i.value for i in at.info)


def test_system_names_are_shown_as_text_on_the_new_pages():
    import re

    hostile = "<img/src=x/onerror=alert(1)>"
    qrels = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 0\n3 0 e 1\n3 0 f 0\n"
    runs = [(f"{hostile}{i}.run", "".join(f"{q} Q0 {d} {r} {s} x\n" for q, d, r, s in rows).encode(), "text/plain")
            for i, rows in enumerate([[(1, "a", 1, 2), (1, "b", 2, 1), (2, "c", 1, 3), (2, "d", 2, 1), (3, "f", 1, 2),
                                       (3, "e", 2, 1)],
                                      [(1, "b", 1, 2), (1, "a", 2, 1), (2, "c", 1, 3), (2, "d", 2, 1), (3, "e", 1, 2),
                                       (3, "f", 2, 1)]])]
    at = open_page("data")
    for label, files in (("Qrels", ("tiny.qrels", qrels, "text/plain")), ("Runs", runs)):
        next(u for u in at.get("file_uploader") if u.proto.label == label).set_value(files)
        at.run()
    for page in ("agreement", "repro"):
        open_page(page, at=at)
        assert [e.value for e in at.exception] == [], page
        assert len(at.get("plotly_chart")) > 0, page
        for element in [*at.markdown, *at.caption, *at.info, *at.error, *at.warning]:
            assert not getattr(element.proto, "allow_html", False)
            assert not re.search(r"(?<!\\)<img", element.value)
        for chart in at.get("plotly_chart"):
            assert "<img" not in chart.proto.spec
        if page == "agreement":  # the names are on the chart, escaped
            assert any("&lt;img" in chart.proto.spec for chart in at.get("plotly_chart"))
