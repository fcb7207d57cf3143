"""The judges page and the data page's judgment sets, headless (AppTest): uploads, the numbers against the
oracles, every tab, any set evaluated under, names shown as text, and the sets kept in a workspace."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn (the kappa oracle) is not installed")
from scipy.stats import kendalltau  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from metrics.judgments.conclusions import REFERENCE_FINDINGS, VERDICTS  # noqa: E402
from tests.dashboard.app_pages.judge_sets import LLM, REF, RUNS, grades_of, measure_means
from tests.dashboard.conftest import errors as _errors  # noqa: E402
from tests.dashboard.conftest import open_page, upload  # noqa: E402


def _open(page: str, at: AppTest | None = None, query: dict | None = None) -> AppTest:
    return open_page(page, query, at, session={"rankscope_author": "ana"})


def _loaded_with_two_sets() -> AppTest:
    at = _open("data")
    upload(at, "Qrels", ("nist.qrels", REF, "text/plain"))
    upload(at, "Runs", [(name, text.encode(), "text/plain") for name, text in RUNS.items()])
    upload(at, "More judgment sets (optional)", [("llm.qrels", LLM, "text/plain")])
    assert _errors(at) == []
    return at


def test_two_uploaded_sets_give_the_oracles_numbers_on_every_tab():
    at = _open("judges", _loaded_with_two_sets())
    assert _errors(at) == []
    shown = {m.label: m.value for m in at.metric}
    ref, llm = grades_of(REF), grades_of(LLM)
    both = sorted(set(ref) & set(llm))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = sklearn_metrics.cohen_kappa_score([ref[k] for k in both], [llm[k] for k in both])
    assert shown["Cohen's κ"] == f"{kappa:.4f}"
    assert shown["Judged by both"] == str(len(both))
    assert (shown["Only by nist"], shown["Only by llm"]) == (str(len(set(ref) - set(llm))), str(len(set(llm) - set(ref))))
    common = {"1", "2", "3"}
    a, b = measure_means(REF, common), measure_means(LLM, common)
    tau = kendalltau([a[s] for s in "abc"], [b[s] for s in "abc"]).statistic
    assert shown["Kendall's τ_b, nist and llm"] == f"{tau:.4f}"
    assert len(at.get("plotly_chart")) == 3  # the confusion of grades, the ranks, the prediction-powered intervals
    tables = [t.value for t in at.dataframe]
    conclusions = next(t for t in tables if "better" in t.columns)
    assert list(conclusions.columns) == ["better", "worse", "nist", "llm"] and len(conclusions) == 3
    assert set(conclusions["nist"]) <= set(REFERENCE_FINDINGS) and set(conclusions["llm"]) <= set(VERDICTS)
    documents = next(t for t in tables if "spread" in t.columns)
    assert list(documents.columns[:3]) == ["docid", "nist", "llm"] and (documents["spread"] > 0).all()
    ppi = next(t for t in tables if "ppi" in t.columns)
    assert list(ppi["system"]) == ["a", "b", "c"] and list(ppi["unlabelled"]) == [1, 1, 1]


def test_one_set_says_where_to_add_another():
    at = _open("judges")
    assert _errors(at) == []
    assert any("Only one judgment set is loaded" in i.value for i in at.info)


def test_every_page_can_evaluate_under_the_other_set_and_names_stay_text():
    at = _loaded_with_two_sets()
    _open("overview", at)
    before = at.dataframe[0].value.copy()
    _open("data", at)
    at.selectbox(key="data_judged_by").select("llm")
    at.run()
    assert at.session_state["rankscope_loaded"].qrels.name == "llm.qrels"
    _open("overview", at)
    assert _errors(at) == [] and not at.dataframe[0].value.equals(before)
    assert any("judged by llm (of 2 judgment sets)" in t.value for t in at.sidebar.text)
    _open("data", at)
    at.text_input(key="data_set_1_llm").input("<b>gpt</b>*")
    at.run()
    _open("judges", at)
    assert _errors(at) == []
    labels = [m.label for m in at.metric]
    assert r"Only by \<b\>gpt\<\/b\>\*" in labels  # escaped for Markdown: shown as typed
    _open("data", at)
    at.button(key="data_set_remove_1_<b>gpt</b>*").click()
    at.run()
    loaded = at.session_state["rankscope_loaded"]
    assert loaded.judges == () and loaded.qrels.name == "nist.qrels"


def test_the_sets_are_kept_in_the_workspace_and_a_link_brings_them_back(tmp_path, monkeypatch):
    pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
    from workspace import open_workspace

    monkeypatch.setenv("RANKSCOPE_WORKSPACE", str(tmp_path / "team"))
    at = _loaded_with_two_sets()
    cid = at.session_state["rankscope_loaded"].collection
    assert cid
    with open_workspace(str(tmp_path / "team")) as ws:
        stored = ws.load(cid)
        assert [(n, f.read()) for n, f in stored.judgment_sets] == [("nist", REF), ("llm", LLM)]
    other = _open("judges", query={"collection": cid})
    assert _errors(other) == []
    assert [n for n, _ in other.session_state["rankscope_loaded"].judges] == ["nist", "llm"]
    assert {m.label for m in other.metric} >= {"Cohen's κ", "Kendall's τ_b, nist and llm"}


def test_one_run_still_compares_the_labels_and_says_why_the_systems_wait():
    at = _open("data")
    upload(at, "Qrels", ("nist.qrels", REF, "text/plain"))
    upload(at, "Runs", [("a.run", RUNS["a.run"].encode(), "text/plain")])
    upload(at, "More judgment sets (optional)", [("llm.qrels", LLM, "text/plain"), ("bad.qrels", b"1 0 a\n", "text/plain")])
    assert [e.value for e in at.exception] == []
    assert any("bad.qrels:1" in e.value.replace("\\", "") for e in at.error)  # the bad file named, the good one kept
    assert [n for n, _ in at.session_state["rankscope_loaded"].judges] == ["nist", "llm"]
    _open("judges", at)
    assert _errors(at) == []
    assert "Cohen's κ" in {m.label for m in at.metric}
    assert any("needs two runs or more" in i.value for i in at.info)


def test_a_run_missing_a_compared_topic_scores_0_there_and_the_page_says_so():
    import json

    from tests.dashboard.app_pages.arrays import array as browser_array
    from tests.dashboard.conftest import unescaped

    at = _open("data")
    upload(at, "Qrels", ("nist.qrels", REF, "text/plain"))
    short = "".join(line + "\n" for line in RUNS["a.run"].splitlines() if not line.startswith("2 "))
    upload(at, "Runs", [("m.run", short.encode(), "text/plain"), ("b.run", RUNS["b.run"].encode(), "text/plain")])
    upload(at, "More judgment sets (optional)", [("llm.qrels", LLM, "text/plain")])
    at = _open("judges", at)
    assert _errors(at) == []
    said = [unescaped(i.value) for i in at.info]
    assert "m did not answer 1 of the 3 compared topics: a paired test needs every system on every topic, so it " \
           "scores 0 on them (complete topics, trec_eval -c)." in said
    captions = [unescaped(c.value) for c in at.caption]
    assert any(c.startswith("Provenance: ") and "complete topics (-c)" in c for c in captions)
    assert any("τ_AP walks the second set's order, the first the reference: a system the second set puts too high "
               "near its own top costs most" in c for c in captions)
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "ranks under each" in c.proto.spec)
    trace = next(t for t in chart["data"] if t["name"] == "m")
    answered = measure_means(REF, {"1", "3"}, runs={"m.run": short})["m"]  # over its 2 answered topics
    assert browser_array(trace["customdata"])[0] == pytest.approx(answered * 2 / 3, abs=1e-12)  # a 0 on topic 2
