"""Runs made from Cranfield and Vaswani (NPL) in ../shared/data, for the tests that compare with trec_eval and repro-eval."""

from __future__ import annotations

import json
import re

import numpy as np

from tests.paths import SHARED

CRANFIELD = SHARED / "data" / "cranfield" / "derived"

VASWANI = SHARED / "data" / "vaswani_npl"


def bm25_and_overlap(docs: dict[str, str], queries: dict[str, str], depth: int) -> tuple[str, str]:
    """A BM25 run (k1 0.9, b 0.4, scores rounded to 3 decimals so that ties occur) and a term-overlap run
    (the number of distinct query terms a document holds: many ties), ``depth`` documents per query."""
    from tests.judges_data import index, scores

    built = index(docs)
    ids = built[0]
    bm25_lines, overlap_lines = [], []
    for qid, text in queries.items():
        found = scores(built, text)
        for name, lines in (("bm25", bm25_lines), ("overlap", overlap_lines)):
            top = np.argsort(-found[name], kind="stable")[:depth]
            lines.extend(f"{qid} Q0 {ids[i]} {rank} {found[name][i]:g} {name}" for rank, i in enumerate(top, 1))
    return "\n".join(bm25_lines) + "\n", "\n".join(overlap_lines) + "\n"


def cranfield_collection():
    docs = {}
    for line in (CRANFIELD / "cranfield.docs.jsonl").read_text().splitlines():
        record = json.loads(line)
        docs[record["doc_id"]] = record["title"] + " " + record["text"]
    queries = dict(line.split("\t", 1) for line in (CRANFIELD / "cranfield.queries.tsv").read_text().splitlines())
    return (
        docs,
        queries,
        {
            "graded": CRANFIELD / "cranfield.graded.qrels",
            "raw": CRANFIELD / "cranfield.qrels",
        },
    )


def vaswani_collection():
    docs = dict(
        re.findall(
            r"<DOCNO>\s*(\S+?)\s*</DOCNO>(.*?)</DOC>",
            (VASWANI / "doc-text.trec").read_text(),
            re.S,
        )
    )
    queries = {
        num: title
        for num, title in re.findall(
            r"<num>\s*(\S+?)\s*</num>\s*<title>(.*?)</title>",
            (VASWANI / "query-text.trec").read_text(),
            re.S,
        )
    }
    return docs, queries, {"binary": VASWANI / "qrels"}
