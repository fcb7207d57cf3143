"""Every page of the dashboard, headless (AppTest): no exception, its charts drawn, uploads, URL state, notes and
session files."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard.pages import by_script, listed  # noqa: E402
from tests.dashboard.app_pages.small_collection import QRELS, RUN_A, RUN_B, metrics_shown
from tests.dashboard.conftest import ROOT, errors, new_app, open_page, upload  # noqa: E402

DEMO_QRELS = ROOT / "sample_data" / "demo" / "qrels.txt"
TEACHING = ROOT / "sample_data" / "teaching"
PAGES = [p.script for p in listed(stored=False)]  # the navigation's pages, in its order, from the page table
# The charts each page script draws on the demo collection (show_figure calls reached with a collection of several
# systems; every tab's content runs): curves without a topic 11-point, rules, P/R@k; queries the bars, scatter and
# box plot of the first tab and the rankings of the second; significance and agreement one per tab; the judges
# page none with one judgment set; the report none.
CHARTS = {"overview": 1, "data": 1, "curves": 3, "gain": 1, "queries": 4, "significance": 3, "agreement": 4,
          "judges": 0, "repro": 2, "trust": 4, "learn": 2, "report": 0}
ONE_RUN = {"significance": 0, "agreement": 0, "repro": 0, "trust": 2}  # the charts of the pages that want two runs
EXAMPLES = ["flagr8", "graded10", "lecture", "mrr3"]


def _titles(at: AppTest) -> list[str]:
    return [str(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_every_page_of_the_navigation_has_its_charts_declared_here():
    """A page added to the page table is tested below without an edit, once its charts are counted here."""
    assert list(CHARTS) == PAGES


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_the_demo_collection(page):
    at = open_page(page)
    assert errors(at) == []
    assert len(at.get("plotly_chart")) == CHARTS[page]
    assert at.title[0].value == by_script(page).title


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_page_renders_on_each_worked_example(example):
    systems = len(list(TEACHING.glob(f"{example}*.run")))  # flagr8.run, or lecture_system1.run and _system2.run
    at = open_page("data")
    at.selectbox(key="data_example").select(example)
    at.run()
    at.button(key="data_load_example").click()
    at.run()
    assert any(example in i.value for i in at.info)
    for page in PAGES:
        open_page(page, at=at)
        assert errors(at) == [], (example, page)
        if page in ONE_RUN and systems < 2:  # one system: the page says it needs two, and draws what it can
            assert any(i.value.startswith("Load at least two runs") for i in at.info), (example, page)
            assert len(at.get("plotly_chart")) == ONE_RUN[page], (example, page)
        else:
            assert len(at.get("plotly_chart")) == CHARTS[page], (example, page)


def test_data_page_shows_the_demo_summary():
    at = open_page("data")
    shown = metrics_shown(at)
    assert shown["Systems"] == "6"
    topics = {line.split()[0] for line in DEMO_QRELS.read_text().splitlines() if line.strip()}
    assert shown["Topics judged"] == str(len(topics)) == "50"
    assert any("demo" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 1  # judgments per grade


def test_uploading_runs_and_qrels_replaces_the_demo_and_a_bad_file_keeps_the_rest():
    at = open_page("data")
    upload(at, "Qrels", ("tiny.qrels", QRELS, "text/plain"))
    upload(at, "Runs", [("a.run", RUN_A, "text/plain"), ("b.run", RUN_B, "text/plain")])
    assert errors(at) == []
    assert metrics_shown(at)["Systems"] == "2"
    # a broken run: the message names the file and line, and both good runs stay loaded
    upload(at, "Runs", [("a.run", RUN_A, "text/plain"), ("b.run", RUN_B, "text/plain"),
                         ("broken.run", b"1 Q0 a 1 2.0 X\n1 Q0 b 2\n", "text/plain")])
    assert [e.value for e in at.exception] == []
    messages = [e.value for e in at.error]
    assert len(messages) == 1 and "broken.run:2" in messages[0].replace("\\", "")
    assert metrics_shown(at)["Systems"] == "2"
    # a broken qrels file keeps the loaded qrels
    upload(at, "Qrels", ("bad.qrels", b"1 0 a x\n", "text/plain"))
    assert "bad.qrels:1" in " ".join(e.value for e in at.error).replace("\\", "")
    assert metrics_shown(at)["Topics judged"] == "2"
    # every page works on the uploads
    for page in (p for p in PAGES if p != "data"):
        open_page(page, at=at)
        assert [e.value for e in at.exception] == [], page


def test_renaming_a_system_changes_every_page():
    at = open_page("data")
    at.text_input(key="data_name_0_bm25").input("my <b>bm25</b>")
    at.run()
    open_page("overview", at=at)
    assert errors(at) == []
    assert "my <b>bm25</b> (baseline)" in at.dataframe[0].value["system"].tolist()


def test_changing_the_conventions_recomputes_the_numbers():
    at = open_page("overview")
    before = at.dataframe[0].value.iloc[0, 1]
    open_page("data", at=at)
    at.number_input(key="data_level").set_value(2)
    at.run()
    assert "grade >= 2" in " ".join(t.value for t in at.sidebar.text)
    open_page("overview", at=at)
    assert errors(at) == []
    assert at.dataframe[0].value.iloc[0, 1] != before


# ---- the view in the URL --------------------------------------------------------------------------------
# what a link says (a choice's label, as the page shows it) and what the page then holds
VIEWS = {
    "overview": ({"measures": ["AP", "RR", "P@5"], "baseline": "dense_precise", "test": "Wilcoxon",
                  "correction": "Bonferroni", "alpha": "0.01", "measure": "RR"},
                 {"baseline": "dense_precise", "test": "wilcoxon", "correction": "bonferroni", "measure": "RR",
                  "alpha": "0.01"}),
    "curves": ({"topic": "414", "rule": "textbook", "systems": ["bm25", "dense_precise"], "depth": "20"},
               {"topic": "414", "rule": "textbook", "depth": "20"}),
    "gain": ({"topic": "420", "gain": "2^grade - 1", "discount": "Järvelin-Kekäläinen", "ideal": "retrieved only",
              "k": "5", "systems": ["weak_tfidf"]},
             {"topic": "420", "gain": "exp", "discount": "jk", "ideal": "retrieved", "k": "5"}),
    "queries": ({"measure": "AP", "a": "bm25", "b": "weak_tfidf", "view": "One topic", "topic": "430",
                 "systems": ["bm25", "weak_tfidf", "dense_precise"]},
                {"measure": "AP", "a": "bm25", "b": "weak_tfidf", "view": "One topic", "topic": "430"}),
    "significance": ({"measure": "RR", "test": "sign test", "correction": "Benjamini-Hochberg", "alpha": "0.1",
                      "compare": "against a baseline", "baseline": "weak_tfidf", "effect": "Cohen's d_z"},
                     {"measure": "RR", "test": "sign", "correction": "bh", "compare": "baseline",
                      "baseline": "weak_tfidf", "effect": "effect_size", "alpha": "0.1"}),
    "learn": ({"source": "loaded data", "system": "dense_precise", "topic": "405", "gain": "2^grade - 1",
               "discount": "Järvelin-Kekäläinen"},
              {"source": "loaded", "system": "dense_precise", "topic": "405", "gain": "exp", "discount": "jk"}),
    "report": ({"measures": ["nDCG@20", "RR"], "baseline": "bm25_rm3", "test": "randomisation"},
               {"baseline": "bm25_rm3", "test": "permutation"}),
}


@pytest.mark.parametrize("page", list(VIEWS))
def test_a_link_restores_the_view(page):
    query, expected = VIEWS[page]
    at = new_app(query)
    at.run()
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert errors(at) == []
    for key, value in expected.items():
        assert str(at.session_state[key]) == value, key
    for key in ("measures", "systems"):
        if key in query and key in at.session_state:
            assert list(at.session_state[key]) == query[key]


def test_the_restored_view_is_what_the_page_shows():
    at = open_page("overview", VIEWS["overview"][0])
    shown = at.dataframe[0].value
    measures = ["AP", "RR", "P@5"]  # the restored measures, then their letter groups and tie ranges
    assert list(shown.columns) == ["system", *measures, *(f"{m} group" for m in measures),
                                   *(f"{m} ties" for m in measures)]
    assert "dense_precise (baseline)" in shown["system"].tolist()
    at = open_page("curves", VIEWS["curves"][0])
    specs = _titles(at)
    assert any("topic 414" in s and "textbook" in s for s in specs)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t["legendgroup"] for t in figure["data"] if "legendgroup" in t} == {"bm25", "dense_precise"}


def test_the_root_url_keeps_the_links_parameters():
    at = new_app({"topic": "414", "measure": "AP"})
    at.run()
    assert at.title[0].value == "Overview"  # a first visit opens on the overview of the demo collection
    at.switch_page("app_pages/queries.py")
    at.run()
    assert at.session_state["measure"] == "AP" and at.session_state["topic"] == "414"


def _click(chart: str, topic: str):
    import streamlit as st

    from dashboard import widgets

    st.session_state.setdefault("view", "All topics")
    st.session_state[chart] = {"selection": {"points": [{"customdata": [topic, 0.1, 0.2]}]}}
    widgets.open_topic(chart, "view", "One topic")
    st.write(st.session_state["topic"], st.session_state["view"])


def test_clicking_a_topic_opens_its_drill_down():
    at = AppTest.from_function(_click, args=("queries_diff", "431"))
    at.run()
    assert errors(at) == []
    assert at.session_state["topic"] == "431" and at.session_state["view"] == "One topic"
    # and the page opens on it
    at = open_page("queries", {"view": "One topic", "topic": "431"})
    figure = json.loads(at.get("plotly_chart")[3].proto.spec)
    assert "Topic 431" in figure["layout"]["title"]["text"]


# ---- notes and session files --------------------------------------------------------------------------------
def _note(at: AppTest, topic: str, tags: list[str], comment: str) -> None:
    at.session_state["view"] = "One topic"
    at.session_state["topic"] = topic
    at.run()
    at.multiselect(key=f"queries_tags_{topic}").set_value(tags)
    at.text_area(key=f"queries_comment_{topic}").input(comment)
    at.get("form_submit_button")[0].click()
    at.run()


def test_review_notes_and_the_session_file_round_trip_through_the_ui():
    from dashboard import data, exports
    from dashboard.session.state import Loaded

    at = open_page("queries")
    _note(at, "414", ["hard topic", "<script>x</script>"], "bm25_rm3 finds FBIS3-17230 at rank 2")
    assert errors(at) == []
    notes = at.session_state["rankscope_notes"]
    assert notes == {"414": {"tags": ["hard topic", "<script>x</script>"],
                             "comment": "bm25_rm3 finds FBIS3-17230 at rank 2"}}
    shown = at.dataframe[-1].value
    assert shown["topic"].tolist() == ["414"] and "hard topic" in shown["tags"].iloc[0]
    open_page("data", at=at)
    at.number_input(key="data_level").set_value(2)
    at.run()
    open_page("report", at=at)
    assert errors(at) == []
    assert at.dataframe[-1].value["topic"].tolist() == ["414"]
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Session file" in labels and "HTML report" in labels
    loaded: Loaded = at.session_state["rankscope_loaded"]
    saved = data.session_file(loaded, notes, {"page": "overview", "measures": ["AP", "RR"]})
    assert exports.session_from_json(saved).notes == notes

    fresh = open_page("data")  # another browser: the demo, no notes, default conventions
    assert "rankscope_notes" not in fresh.session_state or not fresh.session_state["rankscope_notes"]
    upload(fresh, "Session file", ("session.json", saved, "application/json"))
    assert errors(fresh) == []
    assert fresh.session_state["rankscope_notes"] == notes
    assert fresh.session_state["rankscope_loaded"].conventions.relevance_level == 2
    assert fresh.title[0].value == "Overview"  # the saved view
    assert fresh.session_state["measures"] == ["AP", "RR"]

    # a bad session file: a clear message, and nothing of the state lost
    open_page("data", at=fresh)
    upload(fresh, "Session file", ("broken.json", b'{"format": "rankscope-session", "version": 1', "application/json"))
    shown = " ".join(e.value for e in fresh.error).replace("\\", "")
    assert "broken.json" in shown and "JSON" in shown
    assert fresh.session_state["rankscope_notes"] == notes
    assert fresh.session_state["rankscope_loaded"].conventions.relevance_level == 2


def test_a_session_file_for_other_files_says_so_and_keeps_the_notes():
    from dashboard import data
    from dashboard.session.state import example

    saved = data.session_file(example("lecture"), {"1": {"tags": ["x"], "comment": ""}}, {"page": "overview"})
    at = open_page("data")
    upload(at, "Session file", ("lecture-session.json", saved, "application/json"))
    assert [e.value for e in at.exception] == []
    assert any("not loaded" in w.value for w in at.warning)
    assert at.session_state["rankscope_notes"] == {"1": {"tags": ["x"], "comment": ""}}
    assert metrics_shown(at)["Systems"] == "6"  # the demo stays


# ---- user text ------------------------------------------------------------------------------------------
def test_user_text_is_never_rendered_as_html():
    hostile = "<img/src=x/onerror=alert(1)>"
    run = f"1 Q0 {hostile} 1 2.0 A\n1 Q0 b 2 1.0 A\n".encode()
    at = open_page("data")
    upload(at, "Qrels", ("q.qrels", b"1 0 b 1\n", "text/plain"))
    upload(at, "Runs", [(f"{hostile}.run", run, "text/plain")])
    assert errors(at) == []
    assert metrics_shown(at)["Systems"] == "1"
    # a message that quotes the hostile name shows it as text
    upload(at, "Runs", [(f"{hostile}.run", run, "text/plain"), (f"{hostile}2.run", b"1 Q0 <b>x</b> 1\n", "text/plain")])
    assert "onerror" in " ".join(e.value for e in at.error)
    for page in PAGES:
        open_page(page, at=at)
        assert [e.value for e in at.exception] == [], page
        for element in [*at.markdown, *at.caption, *at.info, *at.error, *at.warning]:
            assert not getattr(element.proto, "allow_html", False)
            assert not re.search(r"(?<!\\)<img", element.value)  # escaped for Markdown: shown, never a tag
        for chart in at.get("plotly_chart"):
            assert "<img" not in chart.proto.spec


def test_presentation_mode_from_the_link_hides_the_sidebar_and_enlarges_the_charts():
    at = open_page("curves", {"present": "1"})
    assert errors(at) == []
    assert at.session_state["present"] is True and at.query_params["present"] in ("true", ["true"])
    assert len(at.sidebar) == 0  # the pages are in the top bar, the switch at the top of the page
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert figure["layout"]["font"]["size"] > 15
    open_page("gain", at=at)  # the mode stays on from page to page
    assert at.session_state["present"] is True and at.query_params["present"] in ("true", ["true"])
    at.toggle(key="present").set_value(False).run()
    assert "present" not in at.query_params and len(at.sidebar) > 0


def test_identical_runs_are_named_under_the_curves():
    at = open_page("data")
    upload(at, "Qrels", ("tiny.qrels", QRELS, "text/plain"))
    upload(at, "Runs", [("a.run", RUN_A, "text/plain"), ("copy.run", RUN_A.replace(b" A\n", b" C\n"), "text/plain"),
                         ("b.run", RUN_B, "text/plain")])
    for page in ("curves", "gain"):
        open_page(page, at=at)
        assert errors(at) == []
        captions = " ".join(c.value for c in at.caption).replace("\\", "")
        assert "copy is identical to a over all topics" in captions, page
        assert "b is identical" not in captions


def test_every_page_says_where_to_start_and_no_page_says_seed():
    at = open_page("data")
    for page in PAGES:
        open_page(page, at=at)
        text = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.info, *at.title])
        if page != "queries":
            assert "Start here." in text, page
        assert "seed" not in text.lower(), page
        for widget in [*at.selectbox, *at.radio]:
            assert "seed" not in (widget.help or "").lower(), page
    open_page("learn", at=at)
    assert at.selectbox(key="example").format_func("flagr8") == "8 documents, 4 relevant"
