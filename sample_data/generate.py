"""Generate the synthetic demo collection in ``sample_data/demo/``.

Run ``python -m sample_data.generate`` (or ``python -m sample_data.generate --out DIR``). The output is
byte-for-byte the same on every machine: the randomness comes from numpy's PCG64 bit generator, read as raw
64-bit words (a stream numpy keeps stable), and everything computed from it uses only additions,
multiplications, comparisons and integer arithmetic, never ``exp``/``log`` (whose last bit may differ between
platforms). Normal variates are Irwin-Hall sums of twelve uniforms. Scores are rounded to integers of the
printed unit before they are written, and the runs are gzipped with ``mtime=0`` and no file name.

The model
---------
Each topic has a latent set of relevant documents with grades 1-3 and a difficulty. Every candidate document
(the relevant ones and 2,400 non-relevant ones drawn from a corpus of 50,000 TREC-style ids) has a latent
"aboutness" shared by all systems and a lexical-match component shared by the lexical systems. A system's
score adds its own noise (and, for some, a boost or a handicap for relevant documents) and the run keeps the
1,000 best-scored candidates. The qrels are then built as TREC builds them: the union of every run's top 30
(depth pooling) is judged (relevant documents get their grade, the others 0), plus a few relevant documents
that no system placed near the top, as if found by manual runs. Relevant documents that no run brought into
the pool stay unjudged. See ``sample_data/README.md``.
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["SEED", "TOPICS", "POOL_DEPTH", "RUN_DEPTH", "CORPUS_SIZE", "SYSTEMS", "System", "build", "generate",
           "main"]

SEED = 20250401
TOPICS = tuple(range(401, 451))
POOL_DEPTH = 30
RUN_DEPTH = 1000
CORPUS_SIZE = 50_000
NONRELEVANT_CANDIDATES = 2_400
EMPTY_TOPIC = 432  # judged, but no relevant document was found
MISSING_TOPICS = (417, 446)  # topics the ties_missing run does not answer
DEFAULT_OUT = Path(__file__).resolve().parent / "demo"


@dataclass(frozen=True)
class System:
    """One synthetic system: how it scores documents and how it prints scores.

    The latent score of a candidate is ``aboutness + lexical * lex + noise * N(0, 1)``, plus ``boost`` for a
    relevant document, plus ``grade_boost`` per grade above 1. A fraction ``1 - reach`` of the relevant
    documents is out of the system's reach (never retrieved). The printed score is
    ``offset + scale * latent`` (plus a per-topic shift of up to ``topic_shift``), rounded to ``decimals``.
    """

    name: str
    lexical: float
    noise: float
    boost: float
    grade_boost: float
    reach: float
    offset: float
    scale: float
    topic_shift: float
    decimals: int
    distinct: bool  # force strictly decreasing printed scores (no ties)
    description: str


SYSTEMS: tuple[System, ...] = (
    System("bm25", 0.55, 0.75, 0.15, 0.15, 0.82, 8.0, 2.8, 3.0, 4, True,
           "solid lexical baseline; BM25-like scores between about 5 and 30"),
    System("bm25_rm3", 0.55, 0.70, 0.30, 0.20, 0.88, 7.5, 2.1, 1.5, 4, True,
           "BM25 with RM3 query expansion: better everywhere, most of all in recall"),
    System("bm25_rm3_copy", 0.55, 0.70, 0.30, 0.20, 0.88, 7.5, 2.1, 1.5, 4, True,
           "bm25_rm3 with a few neighbouring documents swapped: not significantly different from it"),
    System("dense_precise", 0.00, 0.45, 0.45, 0.25, 0.50, 0.60, 0.05, 0.02, 6, True,
           "dense retriever, cosine scores in 0-1: very precise at the top, but half the relevant "
           "documents are out of its reach"),
    System("weak_tfidf", 0.55, 1.35, -0.25, 0.05, 0.80, 2.6, 0.75, 0.5, 4, True,
           "weak TF-IDF ranker"),
    System("ties_missing", 0.55, 0.85, 0.05, 0.15, 0.80, 6.0, 0.8, 0.0, 1, False,
           "BM25-like scores printed with one decimal (many ties, straddling ranks 10 and 20) and no "
           "answer for two topics"),
)


class _Stream:
    """Deterministic random numbers from PCG64's raw 64-bit output (stable across numpy versions)."""

    def __init__(self, *key: int) -> None:
        self._bits = np.random.PCG64(np.random.SeedSequence([SEED, *key]))

    def raw(self, n: int) -> np.ndarray:
        return self._bits.random_raw(n)

    def uniform(self, n: int) -> np.ndarray:
        """Uniform on [0, 1): the top 53 bits of each word, scaled exactly."""
        return (self.raw(n) >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)

    def normal(self, n: int) -> np.ndarray:
        """Approximately standard normal: the sum of twelve uniforms minus six, added in a fixed order."""
        u = self.uniform(12 * n).reshape(12, n)
        total = u[0].copy()
        for row in u[1:]:
            total += row
        return total - 6.0

    def integers(self, n: int, high: int) -> np.ndarray:
        """Integers in [0, high)."""
        return (self.raw(n) % np.uint64(high)).astype(np.int64)

    def sample(self, population: int, k: int) -> np.ndarray:
        """``k`` distinct indices of ``range(population)``, in random order."""
        return np.argsort(self.raw(population), kind="stable")[:k]


# ---- the corpus ------------------------------------------------------------------------------------------
def _corpus() -> np.ndarray:
    """50,000 distinct document ids in the styles of TREC disks 4 and 5, sorted byte-wise."""
    s = _Stream(0)
    shares = (("FT", 0.40), ("LA", 0.25), ("FBIS", 0.25), ("FR", 0.10))
    ids: list[str] = []
    for family, share in shares:
        want = int(CORPUS_SIZE * share)
        n = want * 2
        seen: dict[str, None] = {}
        if family == "FT":
            year, part, num = s.integers(n, 4) + 1, s.integers(n, 4) + 1, s.integers(n, 17000) + 1
            made = (f"FT9{a}{b}-{c}" for a, b, c in zip(year, part, num))
        elif family == "LA":
            month, day, year, num = s.integers(n, 12) + 1, s.integers(n, 28) + 1, s.integers(n, 2), \
                s.integers(n, 180) + 1
            made = (f"LA{m:02d}{d:02d}{89 + y}-{c:04d}" for m, d, y, c in zip(month, day, year, num))
        elif family == "FBIS":
            disk, num = s.integers(n, 2) + 3, s.integers(n, 67000) + 1
            made = (f"FBIS{a}-{c}" for a, c in zip(disk, num))
        else:
            month, day, part, num = s.integers(n, 12) + 1, s.integers(n, 28) + 1, s.integers(n, 3), \
                s.integers(n, 600) + 1
            made = (f"FR94{m:02d}{d:02d}-{p}-{c:05d}" for m, d, p, c in zip(month, day, part, num))
        for docid in made:
            seen[docid] = None
            if len(seen) == want:
                break
        ids.extend(seen)
    return np.array(sorted(ids, key=lambda d: d.encode()), dtype=object)


# ---- one topic -------------------------------------------------------------------------------------------
@dataclass
class _Topic:
    qid: int
    docs: np.ndarray  # candidate document indices into the corpus
    grade: np.ndarray  # latent grade per candidate (0 = not relevant)
    about: np.ndarray
    lex: np.ndarray
    mismatch: np.ndarray  # shared by the lexical systems: a relevant document they cannot match


def _topic(qid: int) -> _Topic:
    s = _Stream(1, qid)
    difficulty = 0.5 * s.normal(1)[0]
    u = s.uniform(1)[0]
    n_rel = 0 if qid == EMPTY_TOPIC else 4 + int(u * u * 150.0)
    docs = s.sample(CORPUS_SIZE, n_rel + NONRELEVANT_CANDIDATES)
    g = s.uniform(n_rel)
    grade = np.zeros(len(docs), dtype=np.int64)
    grade[:n_rel] = np.where(g < 0.55, 1, np.where(g < 0.85, 2, 3))
    about = s.normal(len(docs))
    relevant = grade > 0
    about[relevant] = 1.6 + 0.35 * (grade[relevant] - 1) - difficulty + 0.9 * about[relevant]
    lex = s.normal(len(docs))
    return _Topic(qid, docs, grade, about, lex, s.uniform(len(docs)))


def _rank(topic: _Topic, system: System, index: int) -> tuple[np.ndarray, np.ndarray]:
    """The system's top RUN_DEPTH candidates (positions into ``topic.docs``) and their printed scores, as
    integers in units of ``10**-decimals``."""
    s = _Stream(2, index, topic.qid)
    n = len(topic.docs)
    relevant = topic.grade > 0
    latent = topic.about + system.lexical * topic.lex + system.noise * s.normal(n)
    latent = latent + np.where(relevant, system.boost + system.grade_boost * (topic.grade - 1), 0.0)
    reach = topic.mismatch if system.lexical > 0 else s.uniform(n)
    reachable = ~relevant | (reach < system.reach)
    candidates = np.flatnonzero(reachable)
    order = candidates[np.argsort(-latent[candidates], kind="stable")][:RUN_DEPTH]
    shift = system.topic_shift * (2.0 * s.uniform(1)[0] - 1.0)
    unit = 10 ** system.decimals
    printed = np.floor((system.offset + shift + system.scale * latent[order]) * unit + 0.5).astype(np.int64)
    printed = np.maximum(printed, 1)
    if system.distinct:  # strictly decreasing: w_i = v_i + i non-increasing
        steps = np.arange(len(printed), dtype=np.int64)
        printed = np.minimum.accumulate(printed + steps) - steps
    return order, printed


def _copy(order: np.ndarray, qid: int) -> np.ndarray:
    """bm25_rm3_copy: in some topics, swap one to three pairs of neighbours among the top 60."""
    s = _Stream(3, qid)
    order = order.copy()
    if s.uniform(1)[0] < 0.4:
        for position in s.integers(int(s.integers(1, 3)[0]) + 1, 59):
            order[position], order[position + 1] = order[position + 1], order[position]
    return order


def _format_score(value: int, decimals: int) -> str:
    unit = 10 ** decimals
    return f"{value // unit}.{value % unit:0{decimals}d}"


# ---- the collection --------------------------------------------------------------------------------------
def build() -> dict[str, bytes]:
    """The whole demo collection: relative path -> file contents."""
    corpus = _corpus()
    lines: dict[str, list[str]] = {system.name: [] for system in SYSTEMS}
    qrels: list[str] = []
    for qid in TOPICS:
        topic = _topic(qid)
        pooled: set[int] = set()
        near_top: set[int] = set()
        ranked: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for index, system in enumerate(SYSTEMS):
            if system.name == "bm25_rm3_copy":  # bm25_rm3's ranking (ranked just before), lightly perturbed
                order, printed = _copy(ranked["bm25_rm3"][0], qid), ranked["bm25_rm3"][1]
            else:
                order, printed = _rank(topic, system, index)
            ranked[system.name] = order, printed
            if system.name == "ties_missing" and qid in MISSING_TOPICS:
                continue
            pooled.update(order[:POOL_DEPTH].tolist())
            near_top.update(order[:100].tolist())
            out = lines[system.name]
            for rank, (position, value) in enumerate(zip(order, printed), start=1):
                out.append(f"{qid} Q0 {corpus[topic.docs[position]]} {rank} "
                           f"{_format_score(int(value), system.decimals)} {system.name}\n")
        # relevant documents found only by manual runs: none of the systems has them in its top 100; judge
        # up to three of them, plus about 15%
        s = _Stream(4, qid)
        hidden = np.flatnonzero(topic.grade > 0)
        hidden = hidden[~np.isin(hidden, np.fromiter(near_top, dtype=np.int64))]
        extra = int(s.integers(1, 4)[0]) + (len(hidden) * 3) // 20 if len(hidden) else 0
        judged = sorted(pooled | set(hidden[s.sample(len(hidden), min(extra, len(hidden)))].tolist()),
                        key=lambda p: corpus[topic.docs[p]].encode())
        qrels.extend(f"{qid} 0 {corpus[topic.docs[p]]} {topic.grade[p]}\n" for p in judged)
    files = {"qrels.txt": "".join(qrels).encode("ascii")}
    for system in SYSTEMS:
        files[f"runs/{system.name}.run.gz"] = _gzip("".join(lines[system.name]).encode("ascii"))
    return files


def _gzip(data: bytes) -> bytes:
    """Gzip with a fixed header (no file name, mtime 0) so that the bytes do not depend on when or where."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as f:
        f.write(data)
    return buffer.getvalue()


def generate(out_dir: str | Path = DEFAULT_OUT) -> list[Path]:
    """Write the demo collection into ``out_dir`` (``qrels.txt`` and ``runs/*.run.gz``); return the paths."""
    out_dir = Path(out_dir)
    written = []
    for relative, data in build().items():
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sample_data.generate",
                                     description="Write the synthetic demo collection (deterministic).")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(f"{path}  {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
