#!/usr/bin/env python3
"""Write the benchmark workloads: one TREC qrels file and one TREC run file per workload.

    python benchmarks/generate.py [--out benchmarks/data] [--only sparse,strings,dense,mid,...] [--force]

Workloads (fixed seeds, so every machine gets the same bytes):

sparse  6,980 topics x 1,000 documents, ~1.07 relevant (grade 1) per topic and nothing else judged, numeric
        query and passage ids (shaped like MS MARCO passage dev with a BM25 run).
strings sparse's shape with ClueWeb09-style document ids (``clueweb09-en0003-47-21107``: 25 bytes, equal in
        their first 12), to time what text ids cost against numeric ones.
docs, uuid, url, long
        sparse's shape with other document ids, one common shape each: MS MARCO document ids (``D1555982``),
        UUIDs (36 bytes), web addresses (``https://www.site0042.org/news/2009/1234567/index.html``, 45-55
        bytes, alike in their first, middle and last bytes) and very long ids (web addresses with a slug and
        a query string, 120-130 bytes).
collisions
        sparse's shape with ``D``-prefixed ids made to collide: every document of a topic shares rankscope's
        32-bit id hash (``metrics.io.ids``) with another document of the same topic, and no document is
        listed twice. Found by hashing 2**24 candidate ids and keeping the pairs whose hashes are equal; the
        stamp holds a fingerprint of the hash, so a change of the hash makes the file again.
collisions-numeric
        the same with numeric ids: 11-digit numbers in pairs whose keys' 32-bit halves xor alike (decimal
        ids are keyed one for one, by length and number, so no two distinct ones share the whole key).
dense   43 topics x 1,000 documents, ~200 judged per topic, grades 0-3 (shaped like TREC DL 2019 passage).
mid     250 topics x 1,000 documents, ~100 judged per topic, grades 0-2, topics 301-450 and 601-700 and
        newswire document ids (shaped like Robust04).

Runs are ``qid Q0 docid rank score tag``, one space between fields, ordered by query and by decreasing
score; scores have 4 decimals, so neighbouring documents sometimes tie (about 2% of rows on sparse). Judged
documents sit mostly near the top of the ranking, thinning out with depth; some are not retrieved at all.

Files already written with the same parameters are kept: each workload writes ``<name>.stamp.json`` next
to its files, and a workload whose stamp matches (and whose files exist) is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

GENERATOR_VERSION = 1
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Workload:
    name: str
    seed: int
    n_topics: int
    depth: int  # documents retrieved per topic
    judged_mean: float  # mean number of judged documents per topic
    judged_extra_only: bool  # sparse: judged = 1 + Poisson(judged_mean - 1); else Poisson(judged_mean)
    retrieved_fraction: float  # share of the judged documents that the run retrieves
    rank_alpha: float  # judged retrieved documents are drawn with weight (rank + rank_offset) ** -alpha
    rank_offset: float
    # probability of each grade (index = grade) at the top of the ranking and at the bottom / unretrieved
    grades_top: tuple[float, ...]
    grades_bottom: tuple[float, ...]
    grade_decay: float  # ranks over which the top distribution turns into the bottom one
    score_start: tuple[float, float]  # first score of a topic: uniform in this range
    score_gap: float  # mean gap between neighbouring scores (exponential)
    decimals: int
    id_style: str  # "msmarco-passage" | "newswire" | "clueweb09" | "msmarco-doc" | "uuid" | "url" | "long" | ...
    topic_ids: str  # "random" | "robust04"
    tag: str = "bench"


WORKLOADS = {
    "sparse": Workload(
        name="sparse", seed=20260101, n_topics=6980, depth=1000,
        judged_mean=1.065, judged_extra_only=True, retrieved_fraction=0.86,
        rank_alpha=1.15, rank_offset=0.6,
        grades_top=(0.0, 1.0), grades_bottom=(0.0, 1.0), grade_decay=1.0,
        score_start=(14.0, 32.0), score_gap=0.0025, decimals=4,
        id_style="msmarco-passage", topic_ids="random", tag="bm25"),
    "dense": Workload(
        name="dense", seed=20260102, n_topics=43, depth=1000,
        judged_mean=200.0, judged_extra_only=False, retrieved_fraction=0.72,
        rank_alpha=0.9, rank_offset=8.0,
        grades_top=(0.25, 0.25, 0.25, 0.25), grades_bottom=(0.70, 0.18, 0.08, 0.04), grade_decay=150.0,
        score_start=(60.0, 90.0), score_gap=0.004, decimals=4,
        id_style="msmarco-passage", topic_ids="random", tag="dense"),
    "mid": Workload(
        name="mid", seed=20260103, n_topics=250, depth=1000,
        judged_mean=100.0, judged_extra_only=False, retrieved_fraction=0.65,
        rank_alpha=0.8, rank_offset=10.0,
        grades_top=(0.45, 0.40, 0.15), grades_bottom=(0.85, 0.12, 0.03), grade_decay=120.0,
        score_start=(8.0, 16.0), score_gap=0.003, decimals=4,
        id_style="newswire", topic_ids="robust04", tag="ql"),
}
# sparse's shape with text document ids: the row beside the numeric one
WORKLOADS["strings"] = replace(WORKLOADS["sparse"], name="strings", seed=20260104, id_style="clueweb09")
# and one workload per other common shape of document ids, then two made to collide (see the docstring)
for _seed, _style, _name in ((20260105, "msmarco-doc", "docs"), (20260106, "uuid", "uuid"), (20260107, "url", "url"),
                             (20260108, "long", "long"), (20260109, "collide", "collisions"),
                             (20260110, "collide-numeric", "collisions-numeric")):
    WORKLOADS[_name] = replace(WORKLOADS["sparse"], name=_name, seed=_seed, id_style=_style)
# what run.py times by default: every id shape at MS MARCO size, then the two small collections
ID_SHAPES = ("sparse", "strings", "docs", "uuid", "url", "long", "collisions", "collisions-numeric")

N_PASSAGES = 8_841_823  # MS MARCO passage collection size: ids 0 .. 8,841,822
NEWSWIRE = (  # Robust04 (TREC disks 4 and 5 minus CR) prefixes; numbers are made up
    ("FBIS3-", 1, 70_000), ("FBIS4-", 1, 70_000), ("FR940104-0-", 10_000, 99_999),
    ("FT921-", 1, 16_000), ("FT934-", 1, 16_000), ("LA010189-", 1, 9_999), ("LA123190-", 1, 9_999),
)


CLUEWEB09 = (12, 100, 42_000)  # segments en0000-en0011 (Category B) x files 00-99 x documents 00000-41999
MSMARCO_DOCS = 3_213_835  # MS MARCO document collection size: D1 .. D3213835
WEB = 1 << 40  # uuid, url and long ids are made from numbers below this, one-to-one
SECTIONS = ("news", "sport", "wiki", "blog", "shop", "docs", "forum", "video")
CRAFT_CANDIDATES = 1 << 24  # D-prefixed ids hashed to find colliding pairs (about 32,000 pairs)


def paths(out: Path, name: str) -> tuple[Path, Path, Path]:
    return out / f"{name}.qrels", out / f"{name}.run", out / f"{name}.stamp.json"


def stamp_of(w: Workload) -> dict:
    stamp = {"generator_version": GENERATOR_VERSION, "numpy_major": np.__version__.split(".")[0], **asdict(w)}
    if w.id_style == "collide":
        stamp["hash_fingerprint"] = hash_fingerprint()
    if w.id_style == "collide-numeric":
        stamp["hash_fingerprint"] = hash_fingerprint(("7", "07", "12345678901"))
    return json.loads(json.dumps(stamp))  # as it reads back from the file (tuples become lists)


# --------------------------------------------------------------------------------------------------------
# ids


def topic_ids(w: Workload, rng: np.random.Generator) -> np.ndarray:
    """Query ids as strings, in the order the files list them (ascending numerically)."""
    if w.topic_ids == "robust04":
        ids = np.concatenate([np.arange(301, 451), np.arange(601, 701)])[: w.n_topics]
        return ids.astype(str)
    ids = np.sort(rng.choice(np.arange(2, 1_102_400), size=w.n_topics, replace=False))
    return ids.astype(str)


def doc_numbers(rng: np.random.Generator, n_topics: int, depth: int, universe: int) -> np.ndarray:
    """``n_topics x depth`` document numbers in ``[0, universe)``, distinct within each row."""
    docs = rng.integers(0, universe, size=(n_topics, depth), dtype=np.int64)
    while True:
        order = np.argsort(docs, axis=1, kind="stable")
        s = np.take_along_axis(docs, order, axis=1)
        dup_sorted = np.zeros_like(s, dtype=bool)
        dup_sorted[:, 1:] = s[:, 1:] == s[:, :-1]
        if not dup_sorted.any():
            return docs
        rows, cols = np.nonzero(dup_sorted)
        docs[rows, order[rows, cols]] = rng.integers(0, universe, size=rows.size, dtype=np.int64)


def doc_column(w: Workload, numbers: np.ndarray) -> pa.Array:
    """The docid column for document numbers (any shape, flattened): integers or strings of the workload's
    id style, one id per number."""
    flat = numbers.ravel()
    if w.id_style == "msmarco-passage":
        return pa.array(flat)  # written as decimal digits, like MS MARCO passage ids
    if w.id_style == "clueweb09":  # segment, file and document numbers, zero-padded: clueweb09-en0003-47-21107
        _, files, docs = CLUEWEB09
        parts = [flat // (files * docs), (flat // docs) % files, flat % docs]
        padded = [pc.utf8_lpad(pc.cast(pa.array(x), pa.string()), width, "0") for x, width in zip(parts, (4, 2, 5))]
        head = pc.binary_join_element_wise("clueweb09", pc.binary_join_element_wise("en", padded[0], ""), "-")
        return pc.binary_join_element_wise(head, padded[1], padded[2], "-")
    if w.id_style == "msmarco-doc":
        return _prefixed("D", flat + 1)
    if w.id_style == "uuid":
        return _uuids(flat)
    if w.id_style in ("url", "long"):
        return _addresses(flat, long=w.id_style == "long")
    if w.id_style == "collide":
        return _prefixed("D", colliding_numbers()[flat])
    if w.id_style == "collide-numeric":
        return colliding_decimals(flat)
    # newswire: the number picks a prefix and a serial inside that prefix's range, one-to-one
    sizes = np.array([hi - lo + 1 for _, lo, hi in NEWSWIRE], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    which = np.searchsorted(np.cumsum(sizes), flat, side="right")
    serial = flat - starts[which] + np.array([lo for _, lo, _ in NEWSWIRE])[which]
    prefixes = np.array([p for p, _, _ in NEWSWIRE])
    return pa.array(np.char.add(prefixes[which], serial.astype(str)).astype(object))


def _prefixed(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pc.cast(pa.array(numbers), pa.string()), "")


def _mix64(x: np.ndarray, salt: int) -> np.ndarray:
    """splitmix64's finaliser: a one-to-one scrambling of 64-bit numbers."""
    z = x.astype(np.uint64) + np.uint64(salt)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _hex(values: np.ndarray) -> np.ndarray:
    """(n, 16) ASCII hex digits of 64-bit numbers."""
    nibbles = (values[:, None] >> (np.uint64(4) * np.arange(15, -1, -1, dtype=np.uint64))) & np.uint64(15)
    return np.frombuffer(b"0123456789abcdef", dtype=np.uint8)[nibbles.astype(np.intp)]


def _fixed_strings(chars: np.ndarray) -> pa.Array:
    """Rows of an (n, width) uint8 array as strings."""
    n, width = chars.shape
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int64)
    return pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets),
                                                         pa.py_buffer(np.ascontiguousarray(chars))]).cast(pa.string())


def _uuids(numbers: np.ndarray) -> pa.Array:
    """A version-4-looking UUID per number (one-to-one: the first 64 bits are a bijection of it)."""
    digits = np.concatenate([_hex(_mix64(numbers, 1)), _hex(_mix64(numbers, 2))], axis=1)  # 32 digits
    dash = np.full((len(numbers), 1), ord("-"), dtype=np.uint8)
    digits[:, 12] = ord("4")
    return _fixed_strings(np.concatenate([digits[:, :8], dash, digits[:, 8:12], dash, digits[:, 12:16], dash,
                                          digits[:, 16:20], dash, digits[:, 20:]], axis=1))


def _addresses(numbers: np.ndarray, long: bool) -> pa.Array:
    """Web addresses, one per number: host, section, year and serial from its bits, alike at both ends.
    ``long`` adds a slug and a tracking query string (120-130 bytes)."""
    site = pc.utf8_lpad(pc.cast(pa.array(numbers % 5000), pa.string()), 4, "0")
    section = pa.array(np.array(SECTIONS)[(numbers // 5000) % len(SECTIONS)])
    year = pc.cast(pa.array(1995 + (numbers // 40_000) % 30), pa.string())
    serial = pc.cast(pa.array(numbers // 1_200_000), pa.string())
    host = pc.binary_join_element_wise("https://www.site", site, ".org", "")
    if not long:
        return pc.binary_join_element_wise(host, section, year, serial, "index.html", "/")
    slug = pc.binary_join_element_wise("article-", serial, pc.utf8_slice_codeunits(_uuids(numbers), 0, 13), "")
    return pc.binary_join_element_wise(host, section, year, slug,
                                       "story.html?utm_source=newsletter&utm_medium=email&utm_campaign=weekly", "/")


def colliding_numbers() -> np.ndarray:
    """Numbers n whose ids ``D{n}`` collide in pairs under rankscope's 32-bit id hash: entries 2i and 2i+1
    share it (cached per process)."""
    global _COLLIDING
    if _COLLIDING is None:
        _COLLIDING = _craft()
    return _COLLIDING


_COLLIDING = None


def _craft() -> np.ndarray:
    sys.path.insert(0, str(HERE.parent))
    from metrics.io.ids import hash32

    candidates = np.arange(CRAFT_CANDIDATES, dtype=np.int64)
    h = hash32(_prefixed("D", candidates))
    order = np.argsort(h, kind="stable")
    same = np.flatnonzero(h[order][1:] == h[order][:-1])
    same = same[np.diff(np.concatenate([[-2], same])) > 1]  # pairs, not three in a row
    return np.stack([candidates[order[same]], candidates[order[same + 1]]], axis=1).ravel()


NUMERIC_COLLISIONS = 1 << 20  # the document numbers of collisions-numeric


def colliding_decimals(flat: np.ndarray) -> pa.Array:
    """The 11-digit ids of document numbers ``flat``: 2i and 2i + 1 are keyed k and k + 2**32 + 1, with
    bits 0 and 32 of k clear, so that their 32-bit hashes (the key's halves xored) are equal. Written from
    rankscope's keys of decimal ids (``metrics.io.ids.decimal_key``), and checked with its hash."""
    sys.path.insert(0, str(HERE.parent))
    from metrics.io.ids import decimal_key, hash32

    first = int(decimal_key(pa.array(["0" * 11]))[0])  # the key of the first 11-digit text

    def ids(number: np.ndarray) -> pa.Array:
        key = 3 * (1 << 33) + (number >> 1) * 16 + (number & 1) * ((1 << 32) + 1)
        return pc.cast(pa.array(key - first), pa.string())

    probe = ids(np.array([0, 1, NUMERIC_COLLISIONS - 2, NUMERIC_COLLISIONS - 1]))  # the first pair and the last
    if not (pc.all(pc.equal(pc.utf8_length(probe), 11)).as_py() and (hash32(probe[0::2]) == hash32(probe[1::2])).all()):
        raise SystemExit("collisions-numeric: the ids no longer collide in rankscope's hash; see colliding_decimals")
    return ids(flat)


def hash_fingerprint(texts: tuple[str, ...] = ("D1", "D12345678", "x" * 30)) -> int:
    """rankscope's 32-bit hashes of a few ids: the crafted workloads are made again when they change."""
    sys.path.insert(0, str(HERE.parent))
    from metrics.io.ids import hash32

    return int(np.bitwise_xor.reduce(hash32(pa.array(list(texts))).astype(np.int64) * [1, 3, 5]))


def universe_of(w: Workload) -> int:
    if w.id_style == "msmarco-passage":
        return N_PASSAGES
    if w.id_style == "clueweb09":
        return int(np.prod(CLUEWEB09))
    if w.id_style == "msmarco-doc":
        return MSMARCO_DOCS
    if w.id_style in ("uuid", "url", "long"):
        return WEB
    if w.id_style == "collide":
        return len(colliding_numbers())
    if w.id_style == "collide-numeric":
        return NUMERIC_COLLISIONS
    return int(sum(hi - lo + 1 for _, lo, hi in NEWSWIRE))


# --------------------------------------------------------------------------------------------------------
# the workload


def build(w: Workload) -> tuple[pa.Table, pa.Table, dict]:
    rng = np.random.default_rng(w.seed)
    T, D = w.n_topics, w.depth
    qids = topic_ids(w, rng)
    universe = universe_of(w)

    # the run: distinct documents per topic, decreasing scores rounded to w.decimals (so some tie)
    if w.id_style.startswith("collide"):  # whole pairs: documents 2i and 2i + 1 collide, in shuffled places
        pairs = doc_numbers(rng, T, D // 2, universe // 2)
        docs = rng.permuted(np.concatenate([2 * pairs, 2 * pairs + 1], axis=1), axis=1)
    else:
        docs = doc_numbers(rng, T, D, universe)
    start = rng.uniform(*w.score_start, size=(T, 1))
    gaps = rng.exponential(w.score_gap, size=(T, D))
    gaps[:, 0] = 0.0
    scores = np.round(start - np.cumsum(gaps, axis=1), w.decimals)

    # how many documents each topic has judged, and how many of those the run retrieves
    if w.judged_extra_only:
        n_judged = 1 + rng.poisson(w.judged_mean - 1.0, size=T)
    else:
        n_judged = np.maximum(1, rng.poisson(w.judged_mean, size=T))
    n_ret = np.minimum(rng.binomial(n_judged, w.retrieved_fraction), D)
    n_unret = n_judged - n_ret

    # which ranks hold the retrieved judged documents: weighted sampling without replacement per topic
    # (Gumbel top-k), weight (rank + offset) ** -alpha
    ranks = np.arange(1, D + 1, dtype=np.float64)
    logw = -w.rank_alpha * np.log(ranks + w.rank_offset)
    keys = logw[None, :] + rng.gumbel(size=(T, D))
    order = np.argsort(-keys, axis=1)
    picked = np.zeros((T, D), dtype=bool)
    take = np.arange(D)[None, :] < n_ret[:, None]
    np.put_along_axis(picked, order, take, axis=1)
    rows, cols = np.nonzero(picked)  # row-major: by topic, then by rank

    # grades: the top-of-ranking distribution fades into the bottom one with depth
    top, bottom = np.asarray(w.grades_top), np.asarray(w.grades_bottom)
    mix = np.exp(-cols / w.grade_decay)[:, None]
    probs_ret = mix * top[None, :] + (1.0 - mix) * bottom[None, :]
    grades_ret = _draw_grades(rng, probs_ret)

    # judged documents the run missed: new documents, not in the topic's run
    u_rows = np.repeat(np.arange(T), n_unret)
    u_docs = rng.integers(0, universe, size=u_rows.size, dtype=np.int64)
    u_docs = _distinct_from_run(rng, u_rows, u_docs, docs, universe)
    grades_unret = _draw_grades(rng, np.broadcast_to(bottom, (u_rows.size, bottom.size)))

    # every topic keeps at least one relevant document
    q_rows = np.concatenate([rows, u_rows])
    q_docs = np.concatenate([docs[rows, cols], u_docs])
    q_grades = np.concatenate([grades_ret, grades_unret])
    has_rel = np.bincount(q_rows[q_grades > 0], minlength=T) > 0
    if not has_rel.all():
        first = np.unique(q_rows, return_index=True)[1]
        fix = first[~has_rel[q_rows[first]]]
        q_grades[fix] = 1
    sort = np.lexsort((q_docs, q_rows))
    q_rows, q_docs, q_grades = q_rows[sort], q_docs[sort], q_grades[sort]

    qid_array = pa.array(qids)
    qrels = pa.table({
        "qid": qid_array.take(pa.array(q_rows)),
        "iter": pa.repeat(pa.scalar("0"), q_rows.size),
        "docid": doc_column(w, q_docs),
        "rel": pa.array(q_grades.astype(np.int64)),
    })
    run = pa.table({
        "qid": qid_array.take(pa.array(np.repeat(np.arange(T, dtype=np.int32), D))),
        "q0": pa.repeat(pa.scalar("Q0"), T * D),
        "docid": doc_column(w, docs),
        "rank": pa.array(np.tile(np.arange(1, D + 1, dtype=np.int32), T)),
        "score": pa.array(scores.ravel()),
        "tag": pa.repeat(pa.scalar(w.tag), T * D),
    })
    ties = float(np.mean(scores[:, 1:] == scores[:, :-1]))
    rel = q_grades > 0
    summary = {
        "topics": T, "run_lines": T * D, "qrels_lines": int(q_rows.size),
        "judged_per_topic": round(q_rows.size / T, 2), "relevant_per_topic": round(float(rel.sum()) / T, 3),
        "judged_retrieved_share": round(float(n_ret.sum()) / float(n_judged.sum()), 3),
        "tied_neighbours_share": round(ties, 4),
    }
    return qrels, run, summary


def _draw_grades(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    cum = np.cumsum(probs, axis=1)
    cum /= cum[:, -1:]
    u = rng.random(probs.shape[0])[:, None]
    return (u > cum[:, :-1]).sum(axis=1).astype(np.int64)


def _distinct_from_run(rng, rows, docs_new, run_docs, universe):
    """Redraw the new documents that collide with their topic's run or with each other."""
    T, D = run_docs.shape
    run_keys = np.sort((np.arange(T)[:, None] * universe + run_docs).ravel())
    while True:
        keys = rows * universe + docs_new
        at = np.minimum(np.searchsorted(run_keys, keys), run_keys.size - 1)
        in_run = run_keys[at] == keys
        _, first = np.unique(keys, return_index=True)
        repeated = np.ones(keys.size, dtype=bool)
        repeated[first] = False
        bad = in_run | repeated
        if not bad.any():
            return docs_new
        docs_new = docs_new.copy()
        docs_new[bad] = rng.integers(0, universe, size=int(bad.sum()), dtype=np.int64)


# --------------------------------------------------------------------------------------------------------
# writing


def write_space_separated(table: pa.Table, path: Path) -> None:
    """Bulk-write a table as space-separated lines without header or quoting (atomically)."""
    tmp = path.with_name(path.name + ".tmp")
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none",
                                 batch_size=1 << 20)
    pacsv.write_csv(table, tmp, write_options=options)
    os.replace(tmp, path)


def generate(w: Workload, out: Path, force: bool = False) -> str:
    qrels_path, run_path, stamp_path = paths(out, w.name)
    stamp = stamp_of(w)
    if not force and qrels_path.exists() and run_path.exists() and stamp_path.exists():
        try:
            if json.loads(stamp_path.read_text())["parameters"] == stamp:
                return f"{w.name}: up to date ({run_path}, {qrels_path})"
        except (ValueError, KeyError):
            pass
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    stamp_path.unlink(missing_ok=True)
    qrels, run, summary = build(w)
    write_space_separated(qrels, qrels_path)
    write_space_separated(run, run_path)
    summary["run_bytes"] = run_path.stat().st_size
    stamp_path.write_text(json.dumps({"parameters": stamp, "summary": summary}, indent=1) + "\n")
    return f"{w.name}: wrote {run_path} and {qrels_path} in {time.perf_counter() - t0:.1f} s {summary}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=HERE / "data", help="output folder (default benchmarks/data)")
    p.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads (default all)")
    p.add_argument("--force", action="store_true", help="rewrite even when the stamp matches")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        p.error(f"unknown workload(s) {unknown}; choose from {sorted(WORKLOADS)}")
    for name in names:
        print(generate(WORKLOADS[name], args.out, force=args.force), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
