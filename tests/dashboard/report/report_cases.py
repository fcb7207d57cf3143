"""A small collection and a reader of the report, shared by the report's tests."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]


def small_collection(root: Path) -> tuple[Path, list[Path]]:
    """A small graded collection of three systems on 30 topics (for the tests that write files)."""
    import random

    rng = random.Random(7)
    qrels = root / "qrels.txt"
    lines = [f"{q} 0 d{q}-{d} {rng.choice([0, 0, 0, 1, 2, 3])}\n" for q in range(401, 431) for d in range(40)]
    qrels.write_text("".join(lines))
    runs = []
    for name, skill in (("bm25", 0.3), ("bm25_rm3", 0.6), ("weak", 0.0)):
        path = root / f"{name}.run"
        out = []
        for q in range(401, 431):
            docs = [f"d{q}-{d}" for d in range(40)] + [f"x{q}-{d}" for d in range(20)]
            scores = {
                d: rng.random() + (skill if not d.startswith("x") and int(d.split("-")[1]) % 3 == 0 else 0)
                for d in docs
            }
            ranked = sorted(docs, key=scores.get, reverse=True)
            out += [f"{q} Q0 {d} {i + 1} {scores[d]:.6f} {name}\n" for i, d in enumerate(ranked)]
        path.write_text("".join(out))
        runs.append(path)
    return qrels, runs


class Cells(HTMLParser):
    """Table cells carrying data-* attributes (``cells``: those with a value; ``rows``: every such cell by
    table id and row), and the text of each element with an id (``by_id``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: list[dict] = []
        self.rows: dict[str, list[dict]] = {}
        self.by_id: dict[str, str] = {}
        self._open: list[tuple[str, dict | None, str | None]] = []
        self._text: dict[int, list[str]] = {}
        self._table: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._table = attrs.get("id")
        if tag == "tr" and self._table:
            self.rows.setdefault(self._table, []).append({})
        if tag == "td" and self._table and self.rows.get(self._table):
            self.rows[self._table][-1].update({k: v for k, v in attrs.items() if k.startswith("data-")})
        cell = attrs if tag == "td" and "data-value" in attrs else None
        self._open.append((tag, cell, attrs.get("id")))
        self._text[len(self._open)] = []

    def handle_endtag(self, tag):
        while self._open:
            depth = len(self._open)
            name, cell, ident = self._open.pop()
            text = "".join(self._text.pop(depth, []))
            if self._open:
                self._text.setdefault(len(self._open), []).append(text)
            if cell is not None:
                self.cells.append({**cell, "text": text})
            if ident is not None:
                self.by_id[ident] = text
            if name == tag:
                break

    def handle_data(self, data):
        if self._open:
            self._text.setdefault(len(self._open), []).append(data)


def parse(text: str) -> Cells:
    parser = Cells()
    parser.feed(text)
    return parser
