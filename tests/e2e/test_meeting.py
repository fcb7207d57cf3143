"""The review meeting, in a real browser, on the real Cranfield collection: four runs, their qrels, the query
texts and the documents uploaded through the data page; systems A and B chosen; the worst topic named,
opened, read (its query text and the title of a document A ranks first) and tagged; the tag then filters the
list of topics.

The collection is read at run time from ``../shared/data/cranfield`` (never copied here); the runs are made
in the test by simple scorers over its titles and abstracts. Skipped when the collection is missing, except
under CI=true, where that is a failure.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.e2e.conftest import ROOT, need_browser, settled

need_browser()

CRANFIELD = (ROOT.parent / "shared" / "data" / "cranfield").resolve()
QRELS = CRANFIELD / "derived" / "cranfield.graded.qrels"
TOPICS = CRANFIELD / "cran.qry"  # SMART native: topics numbered 1..225 by position, as the qrels number them
DOCUMENTS = CRANFIELD / "cran.all.1400"
DOCS_JSONL = CRANFIELD / "derived" / "cranfield.docs.jsonl"
QUERIES_TSV = CRANFIELD / "derived" / "cranfield.queries.tsv"
NEEDED = (QRELS, TOPICS, DOCUMENTS, DOCS_JSONL, QUERIES_TSV)
pytestmark = pytest.mark.browser

_absent = [str(p) for p in NEEDED if not p.exists()]
if _absent:
    if os.environ.get("CI") == "true":
        pytest.fail(f"the Cranfield collection is needed in CI; missing: {', '.join(_absent)}", pytrace=False)
    pytest.skip(f"the Cranfield collection is missing: {', '.join(_absent)}", allow_module_level=True)

A, B = "lucene", "weak"
DEPTH = 100


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _runs(folder: Path) -> dict[str, Path]:
    """Four runs over titles and abstracts: BM25 (k1 0.9, b 0.4), term overlap, tf-idf, and BM25 on titles."""
    docs = [json.loads(line) for line in DOCS_JSONL.read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = [line.split("\t", 1) for line in QUERIES_TSV.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = [d["doc_id"] for d in docs]

    def matrix(texts: list[str]) -> tuple[np.ndarray, dict[str, int]]:
        counts = [Counter(_tokens(t)) for t in texts]
        vocab = {w: i for i, w in enumerate(sorted(set().union(*counts)))}
        tf = np.zeros((len(texts), len(vocab)))
        for row, c in enumerate(counts):
            tf[row, [vocab[w] for w in c]] = list(c.values())
        return tf, vocab

    def bm25(tf: np.ndarray) -> np.ndarray:
        n = (tf > 0).sum(axis=0)
        idf = np.log(1 + (len(tf) - n + 0.5) / (n + 0.5))
        length = tf.sum(axis=1, keepdims=True)
        return idf * tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * length / max(length.mean(), 1.0)))

    full, vocab = matrix([f"{d['title']} {d['text']}" for d in docs])
    titles, title_vocab = matrix([d["title"] for d in docs])
    idf = np.log(len(full) / np.maximum((full > 0).sum(axis=0), 1))
    weights = {A: (bm25(full), vocab), B: ((full > 0).astype(float), vocab),
               "tfidf": (np.log1p(full) * idf, vocab), "titles": (bm25(titles), title_vocab)}
    paths = {}
    for name, (w, words) in weights.items():
        lines = []
        for qid, text in queries:
            terms = sorted({words[t] for t in _tokens(text) if t in words})
            scores = w[:, terms].sum(axis=1) + np.arange(len(ids))[::-1] * 1e-9  # no ties: lower ids first
            for rank, i in enumerate(np.argsort(-scores, kind="stable")[:DEPTH], 1):
                lines.append(f"{qid} Q0 {ids[i]} {rank} {scores[i]:.6f} {name}")
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def _uploader(tab, label: str):
    return (tab.locator('[data-testid="stFileUploader"]').filter(has_text=label)
            .locator('[data-testid="stFileUploaderDropzoneInput"]'))


def _select(tab, label: str, option: str) -> None:
    from playwright.sync_api import expect

    box = tab.get_by_role("combobox", name=label)
    box.click()
    box.press_sequentially(option)  # filters the options to the one wanted
    tab.get_by_role("option", name=option, exact=True).click()
    expect(box).to_have_value(option)
    settled(tab)


def test_the_meeting_on_cranfield(server, page, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    from metrics import evaluate
    from metrics.review.topic_by_topic import extremes, paired_topics

    runs = _runs(tmp_path)
    page.goto(server)
    settled(page)
    page.locator('[data-testid="stSidebarNavLink"]', has_text="Data").click()
    settled(page)
    _uploader(page, "Qrels").set_input_files(str(QRELS))
    expect(page.get_by_text("at least one run", exact=False).first).to_be_visible()
    settled(page)
    # A and B loaded last: the pages' defaults (the first two systems) are not the chosen pair
    _uploader(page, "Runs").set_input_files([str(runs[name]) for name in ("tfidf", "titles", A, B)])
    expect(page.get_by_text("4 systems · qrels cranfield.graded.qrels")).to_be_visible()
    settled(page)
    _uploader(page, "Topics (optional)").set_input_files(str(TOPICS))
    settled(page)
    _uploader(page, "Documents (optional)").set_input_files(str(DOCUMENTS))
    settled(page)
    expect(page.get_by_text("cran.qry, 225 query texts")).to_be_visible()
    expect(page.get_by_text("cran.all.1400, 1,400 documents")).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)

    page.locator('[data-testid="stSidebarNavLink"]', has_text="Queries").click()
    settled(page)
    _select(page, "System A", A)
    _select(page, "System B", B)

    # the worst topic, as the measures compute it, is named on the page with its query text
    per_query = evaluate(QRELS, {name: path for name, path in runs.items()}, ["nDCG@10"])
    _, worst = extremes(paired_topics(per_query, "nDCG@10", A, B))
    queries = dict(line.split("\t", 1) for line in QUERIES_TSV.read_text(encoding="utf-8").splitlines() if line)
    named = f"worst: {worst.query} ({worst.diff:+.2f})".replace("-", "−")
    expect(page.locator('[data-testid="stText"]').filter(has_text=named)).to_contain_text(queries[worst.query][:40])
    labelled = page.locator('[data-testid="stPlotlyChart"]').first.locator(".annotation-text")
    expect(labelled.filter(has_text=re.compile(rf"^{worst.query}$"))).to_have_count(1)  # named on the chart

    # one click opens it: the drill-down shows A and B, the query text, the documents' titles
    page.get_by_role("button", name=f"Open the worst topic, {worst.query}").click()
    settled(page)
    expect(page.get_by_role("tab", name="One topic")).to_have_attribute("aria-selected", "true")
    expect(page.locator('[data-testid="stMain"] h3').filter(has_text=f"Topic {worst.query}")).to_be_visible()
    expect(page.locator('[data-testid="stText"]:visible').filter(has_text=queries[worst.query][:40])).to_be_visible()
    title = page.locator(".gtitle:visible").filter(has_text=f"Topic {worst.query}: the top 20")
    expect(title).to_be_visible()
    chart = page.locator('[data-testid="stPlotlyChart"]:visible').filter(has=title)
    expect(chart.locator(".xtick text")).to_have_text([A, B])  # A and B, not the first two systems loaded
    first = runs[A].read_text().split(f"\n{worst.query} Q0 ", 1)[1].split()[0] if worst.query != "1" else \
        runs[A].read_text().split()[2]
    doc_title = " ".join(json.loads(next(line for line in DOCS_JSONL.read_text(encoding="utf-8").splitlines()
                                         if json.loads(line)["doc_id"] == first))["title"].split())
    # the title is written on the chart, in A's first cell, readable to a room without hovering
    expect(chart.locator(".heatmap-label").filter(has_text=f"{first}  ·  ").filter(has_text=doc_title[:20]).first
           ).to_be_visible()
    drag = chart.locator(".nsewdrag").first.bounding_box()  # hover A's first document: the whole title
    page.mouse.move(drag["x"] + drag["width"] / 4, drag["y"] + 13)
    expect(chart.locator(".hoverlayer")).to_contain_text(doc_title[:30])
    grid = page.locator('[data-testid="stDataFrame"]:visible').filter(has_text="first words").first
    expect(grid).to_contain_text(doc_title[:30])
    expect(page.get_by_role("combobox", name="Per-rank anatomy of")).to_have_value(A)  # the anatomy starts on A

    # tag it
    tags = page.locator('[data-testid="stForm"] [data-testid="stMultiSelect"]').first
    tags.locator("input").first.click()
    page.keyboard.type("hard topic")
    page.get_by_role("option", name="hard topic").first.click()
    page.keyboard.press("Escape")
    expect(tags).to_contain_text("hard topic")
    page.get_by_role("button", name=f"Save the note on topic {worst.query}").click()
    settled(page)
    expect(page.get_by_text("1 topic noted")).to_be_visible()
    # the address bar follows the page after its rerun: wait for it (every parameter, in any order)
    expect(page).to_have_url(re.compile("".join(rf"(?=.*[?&]{key}={re.escape(value)}(&|$))"
                                                for key, value in (("topic", worst.query), ("a", A), ("b", B)))))

    # the tag filters the list of topics: the worst one alone
    page.get_by_role("tab", name="All topics").click()
    settled(page)
    _select(page, "Review tag", "hard topic")
    table = page.locator('[data-testid="stDataFrame"]:visible').filter(has_text="B − A").first
    expect(table).to_contain_text(queries[worst.query][:30])
    expect(table).to_contain_text("hard topic")
    page.screenshot(path=str(tmp_path / "meeting.png"))
