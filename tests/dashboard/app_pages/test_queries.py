"""The queries page, headless (AppTest): the drill-down follows systems A and B, the best and worst topics are
named and listed with their query texts, the list is filtered by review tag, and a click opens a topic."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import errors, new_app, upload

# four topics, one relevant document each ("t<n>"); AP of B − A: topic 1 0, 2 −0.5, 3 −1, 4 +0.5
QRELS = b"".join(f"{t} 0 t{t} 1\n{t} 0 n{t} 0\n".encode() for t in (1, 2, 3, 4))
RANKS = {"lucene": {1: 1, 2: 1, 3: 1, 4: 2}, "weak": {1: 1, 2: 2, 3: None, 4: 1}, "first": {1: 2, 2: 2, 3: 2, 4: 2},
         "second": {1: 3, 2: 3, 3: 3, 4: 3}}
TOPICS = b"1\twing flutter in a slipstream\n2\theat conduction in composite slabs\n" \
         b"3\t<b>boundary layer</b> transition at hypersonic speeds\n4\tbuckling of thin cylinders\n"
DOCUMENTS = b"".join(json.dumps({"doc_id": d, "title": f"Title of {d}", "text": f"The text of {d}, in words."})
                     .encode() + b"\n" for d in ["t1", "t2", "t3", "t4", "n1", "n2", "n3", "n4", "x1", "x2"])


def _run(name: str) -> bytes:
    lines = []
    for topic, rank in RANKS[name].items():
        docs = [f"n{topic}", "x1", "x2"]
        if rank is not None:
            docs.insert(rank - 1, f"t{topic}")
        lines += [f"{topic} Q0 {d} {i} {10 - i} {name}" for i, d in enumerate(docs, 1)]
    return ("\n".join(lines) + "\n").encode()


def _loaded(texts: bool = True):
    from dashboard.session.state import Loaded, Upload

    runs = tuple((name, Upload.of(f"{name}.run", _run(name))) for name in ("first", "second", "lucene", "weak"))
    extra = {"topics": Upload.of("topics.tsv", TOPICS), "documents": Upload.of("docs.jsonl", DOCUMENTS)} if texts else {}
    return Loaded(qrels=Upload.of("q.qrels", QRELS), runs=runs, source="uploads", **extra)


def _queries(texts: bool = True, **query) -> AppTest:
    at = new_app({"measure": "AP", **query}, {"rankscope_loaded": _loaded(texts)})
    at.run()
    at.switch_page("app_pages/queries.py")
    at.run()
    assert errors(at) == []
    return at


def _choose(at: AppTest, a: str, b: str) -> None:
    at.selectbox(key="a").select(a)
    at.selectbox(key="b").select(b)
    at.run()


def _figure(at: AppTest, index: int) -> dict:
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def _texts(at: AppTest) -> str:
    return "\n".join(t.value for t in at.text)


def _table(at: AppTest):
    return next(d.value for d in at.dataframe if "B − A" in d.value.columns)


def test_the_drill_down_follows_the_chosen_a_and_b():
    at = _queries(texts=False)
    _choose(at, "lucene", "weak")
    at.session_state["view"] = "One topic"
    at.session_state["topic"] = "3"
    at.run()
    assert errors(at) == []
    rankings = _figure(at, 3)
    assert "Topic 3" in rankings["layout"]["title"]["text"]
    assert rankings["data"][0]["x"] == ["lucene", "weak"]  # not the first two systems loaded
    assert at.selectbox(key="queries_anatomy_system").value == "lucene"
    # another pair: the side-by-side and the anatomy follow
    _choose(at, "weak", "second")
    assert _figure(at, 3)["data"][0]["x"] == ["weak", "second"]
    assert at.selectbox(key="queries_anatomy_system").value == "weak"
    # others only when asked for, after A and B
    at.multiselect(key="queries_also").select("first")
    at.run()
    assert _figure(at, 3)["data"][0]["x"] == ["weak", "second", "first"]
    # the view a link carries
    assert at.session_state["a"] == "weak" and at.session_state["b"] == "second" and at.session_state["topic"] == "3"


def test_a_link_with_a_b_and_a_topic_opens_that_drill_down():
    at = _queries(texts=False, a="lucene", b="weak", view="One topic", topic="2")
    assert _figure(at, 3)["data"][0]["x"] == ["lucene", "weak"]
    assert "Topic 2" in _figure(at, 3)["layout"]["title"]["text"]
    assert at.selectbox(key="queries_anatomy_system").value == "lucene"


def test_the_worst_and_best_topics_are_named_and_one_click_opens_the_worst():
    at = _queries(texts=False)
    _choose(at, "lucene", "weak")
    shown = _texts(at)
    assert "worst: 3 (−1.00)" in shown and "best: 4 (+0.50)" in shown
    table = _table(at)
    assert table["topic"].tolist() == ["3", "2", "1", "4"]  # B's losses first
    assert table["B − A"].tolist() == [-1.0, -0.5, 0.0, 0.5]
    assert list(table.columns) == ["topic", "A: lucene", "B: weak", "B − A", "tags"]  # no texts loaded
    bars = _figure(at, 0)
    labelled = {a["text"] for a in bars["layout"]["annotations"]}
    assert {"3", "4"} <= labelled  # the extremes are named on the chart
    at.segmented_control(key="queries_order").set_value(False)
    at.run()
    assert _table(at)["topic"].tolist() == ["4", "1", "2", "3"]
    at.button(key="queries_open_worst").click()
    at.run()
    assert errors(at) == []
    assert at.session_state["topic"] == "3" and at.session_state["view"] == "One topic"
    assert "Topic 3" in _figure(at, 3)["layout"]["title"]["text"]


def test_the_topics_table_is_filtered_by_review_tag():
    at = _queries(texts=True)
    _choose(at, "lucene", "weak")
    at.session_state["rankscope_notes"] = {"2": {"tags": ["hard topic"], "comment": ""},
                                           "4": {"tags": ["judgments doubtful"], "comment": "x"}}
    at.run()
    assert at.selectbox(key="queries_tag").options == ["every topic", "hard topic", "judgments doubtful"]
    at.selectbox(key="queries_tag").select("hard topic")
    at.run()
    table = _table(at)
    assert table["topic"].tolist() == ["2"] and table["tags"].tolist() == ["hard topic"]
    assert table["query"].tolist() == ["heat conduction in composite slabs"]


def test_query_and_document_texts_uploaded_on_the_data_page_are_shown():
    at = new_app({"measure": "AP", "a": "lucene", "b": "weak"})
    at.run()
    at.switch_page("app_pages/data.py")
    at.run()
    upload(at, "Qrels", ("q.qrels", QRELS, "text/plain"))
    upload(at, "Runs", [(f"{n}.run", _run(n), "text/plain") for n in ("first", "second", "lucene", "weak")])
    upload(at, "Topics (optional)", ("topics.tsv", TOPICS, "text/plain"))
    upload(at, "Documents (optional)", ("docs.jsonl", DOCUMENTS, "application/json"))
    assert errors(at) == []
    shown = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "topics.tsv, 4 query texts" in shown and "docs.jsonl, 10 documents" in shown
    at.switch_page("app_pages/queries.py")
    at.run()
    assert errors(at) == []
    assert "worst: 3 (−1.00) — <b>boundary layer</b> transition at hypersonic speeds" in _texts(at)
    assert not any("boundary layer" in m.value for m in at.markdown)  # never interpreted as Markdown or HTML
    assert _table(at)["query"].iloc[0] == "<b>boundary layer</b> transition at hypersonic speeds"
    assert "3 · <b>boundary layer</b> transition at hypersonic speeds" in at.selectbox(key="queries_find").options
    at.selectbox(key="queries_find").select("4")  # found by its query text, opened by its id
    at.run()
    assert at.session_state["topic"] == "4" and at.session_state["view"] == "One topic"
    assert "buckling of thin cylinders" in _texts(at)
    at.session_state["view"] = "All topics"
    at.run()
    hover = json.dumps(_figure(at, 0)["data"])
    assert "&lt;b&gt;boundary layer&lt;/b&gt;" in hover and "<b>boundary" not in hover
    at.button(key="queries_open_worst").click()
    at.run()
    assert "<b>boundary layer</b> transition at hypersonic speeds" in _texts(at)
    documents = next(d.value for d in at.dataframe if "title" in d.value.columns)
    assert documents[documents["system"] == "lucene"]["title"].tolist()[0] == "Title of t3"
    assert documents[documents["system"] == "weak"]["first words"].tolist()[0] == "The text of n3, in words."
    assert "Title of t3" in json.dumps(_figure(at, 3)["data"][0]["customdata"])


@pytest.mark.parametrize("page", ["curves", "gain", "learn"])
def test_the_query_text_is_shown_where_a_topic_is_picked(page):
    at = new_app(session={"rankscope_loaded": _loaded()})
    at.run()
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    if page == "learn":  # the learn page starts on a worked example; the loaded collection is one choice
        at.radio(key="source").set_value("loaded").run()
    at.selectbox(key="topic").select("3").run()
    assert errors(at) == []
    # plain text: the markup in the query text stays as typed
    assert "<b>boundary layer</b> transition at hypersonic speeds" in _texts(at)
