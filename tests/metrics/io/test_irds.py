"""Qrels and topics by ir_datasets id: ``irds:cranfield`` and ``irds:vaswani`` read from a real ir_datasets
store built at run time (``tests/irds_store.py``), checked against independent readings of the original files;
the empty store, an unknown id, a malformed id and a missing package each give one line, and nothing touches
the network.

Cranfield's ``cranqrel`` has three columns, ``query doc code`` with codes -1, 1, 2, 3, 4; ir_datasets serves the
codes unchanged (its labels call 4 "a complete answer" and -1 "of no interest"), so the oracle below reads
``cranqrel`` as ``query 0 doc code``. The relevance level that applies is the lowest positive grade of
ir_datasets' grade definitions, 1; a -1 is, as trec_eval reads a negative grade, "in the pool, not judged"
(it moves bpref and infAP), for the oracle as for the id.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import textwrap

import pytest

from rankscope.cli import main
from tests.irds_store import CRANFIELD, ROOT, VASWANI, irds_home, needs_irds, no_network, require  # noqa: F401 (fixtures)

MEASURES = ("map", "P.5,10,30", "ndcg", "ndcg_cut.10", "recip_rank", "bpref", "Rprec", "num_rel_ret", "infAP")


def cranqrel() -> dict[str, dict[str, int]]:
    """The judgments of ``cranqrel``, read by hand: ``query doc code`` per line, the code as it stands."""
    judged: dict[str, dict[str, int]] = {}
    for line in (CRANFIELD / "cranqrel").read_text().split("\n"):
        if line.strip():
            qid, doc, code = line.split()
            judged.setdefault(qid, {})[doc] = int(code)
    return judged


def vaswani_qrels() -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    for line in (VASWANI / "qrels").read_text().split("\n"):
        if line.strip():
            qid, _, doc, rel = line.split()
            judged.setdefault(qid, {})[doc] = int(rel)
    return judged


def random_run(judged: dict[str, dict[str, int]], docs: int, seed: int, tag: str) -> str:
    """A seeded run: for most topics some judged documents (of every grade) among random ones, scores on a
    coarse grid (ties), a few topics left out and one topic the qrels do not have."""
    rng = random.Random(seed)
    lines = []
    topics = sorted(judged)
    for qid in topics + ["9999"]:
        if rng.random() < 0.1:
            continue
        pool = rng.sample(sorted(judged.get(qid, {})), k=min(len(judged.get(qid, {})), rng.randint(0, 8)))
        pool += [str(rng.randint(1, docs)) for _ in range(rng.randint(1, 40))]
        seen = set()
        for rank, doc in enumerate(d for d in pool if not (d in seen or seen.add(d))):
            lines.append(f"{qid} Q0 {doc} {rank + 1} {rng.randint(0, 12) / 4} {tag}")
    return "\n".join(lines) + "\n"


def eval_json(capsys, *argv) -> tuple[list[dict], str]:
    code = main(["eval", "--format", "json", "-q", *[a for m in MEASURES for a in ("-m", m)], *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def values(records: list[dict]) -> dict[tuple[str, str], float]:
    return {(r["query"], r["measure"]): r["value"] for r in records}


@pytest.mark.parametrize("level", [None, 2])
def test_eval_cranfield_by_id_equals_the_file_read_by_hand(irds_home, tmp_path, capsys, no_network, level):
    import pytrec_eval

    judged = cranqrel()
    oracle_qrels = tmp_path / "cranqrel.trec"
    oracle_qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in judged.items() for d, g in docs.items()))
    run = tmp_path / "bm.run"
    run.write_text(random_run(judged, 1400, seed=7, tag="bm"))
    flags = [] if level is None else ["-l", str(level)]
    by_id, err = eval_json(capsys, *flags, "irds:cranfield", run)
    by_file, _ = eval_json(capsys, *flags, oracle_qrels, run)
    assert values(by_id) == values(by_file)  # every measure, every topic: the same judgments
    reason = "relevance level 1: the lowest positive grade of ir_datasets' grade definitions for cranfield"
    assert err.count("\n") == 1 and reason in err
    assert ("(-l, given)" in err) == (level is not None)
    # and an independent evaluator on the hand-read judgments, at the level that applies (1 unless -l)
    ranked: dict[str, dict[str, float]] = {}
    for line in run.read_text().split("\n"):
        if line:
            q, _, d, _, s, _ = line.split()
            ranked.setdefault(q, {})[d] = float(s)
    oracle = pytrec_eval.RelevanceEvaluator(judged, {"map", "P_10", "ndcg", "recip_rank", "bpref", "Rprec"},
                                            relevance_level=level or 1).evaluate(ranked)
    got = values(by_id)
    for q, scores in oracle.items():
        for name, label in (("map", "map"), ("P_10", "P_10"), ("ndcg", "ndcg"), ("recip_rank", "recip_rank"),
                            ("bpref", "bpref"), ("Rprec", "Rprec")):
            assert got[(q, label)] == pytest.approx(scores[name], abs=1e-12), (q, label)
    assert not no_network


def test_vaswani_by_id_equals_its_trec_qrels(irds_home, tmp_path, capsys, no_network):
    run = tmp_path / "v.run"
    run.write_text(random_run(vaswani_qrels(), 11429, seed=3, tag="v"))
    by_id, err = eval_json(capsys, "--dataset", "vaswani", run)
    by_file, _ = eval_json(capsys, VASWANI / "qrels", run)
    assert values(by_id) == values(by_file)
    assert "irds:vaswani: relevance level 1" in err
    assert not no_network


def test_topics_by_id_match_the_original_query_files(irds_home, no_network):
    from metrics.io.irds import load_topics

    words = lambda text: " ".join(text.split())  # noqa: E731
    vaswani = dict(re.findall(r"<num>(\d+)</num><title>\n(.*?)</title>", (VASWANI / "query-text.trec").read_text(),
                              re.S))
    assert dict(load_topics("irds:vaswani")) == {q: words(t) for q, t in vaswani.items()}
    require(CRANFIELD / "derived", "cranfield.queries.tsv")  # an independent conversion of cran.qry
    tsv = dict(line.split("\t", 1) for line in (CRANFIELD / "derived" / "cranfield.queries.tsv").read_text().splitlines())
    topics = load_topics("irds:cranfield")
    assert topics.name == "irds:cranfield" and dict(topics) == {q: words(t) for q, t in tsv.items()}
    assert not no_network


def test_the_api_returns_the_readers_objects(irds_home):
    from metrics.io import Qrels, read_qrels
    from metrics.io.irds import load_qrels, relevance_default

    qrels = load_qrels("irds:cranfield")
    assert isinstance(qrels, Qrels) and qrels.name == "irds:cranfield"
    by_hand = cranqrel()
    assert len(qrels) == sum(map(len, by_hand.values())) == 1837
    frame = qrels.frame
    assert {(q, d, g) for q, d, g in frame.itertuples(index=False)} == \
        {(q, d, g) for q, docs in by_hand.items() for d, g in docs.items()}
    assert read_qrels(b"1 0 d 1\n").table.schema == qrels.table.schema
    assert relevance_default("cranfield").level == 1


def test_relevance_levels_come_from_official_measures_then_grade_definitions():
    needs_irds()
    from metrics.io.irds import relevance_default

    dl = relevance_default("irds:msmarco-passage/trec-dl-2019")  # official measures RR(rel=2), AP(rel=2)
    assert (dl.level, dl.origin) == (2, "official measures") and "AP(rel=2)" in dl.reason
    vaswani = relevance_default("vaswani")  # grade definitions {1: 'Relevant'}
    assert (vaswani.level, vaswani.origin) == (1, "grade definitions")
    robust = relevance_default("trec-robust04")  # {0: 'not relevant', 1: 'relevant'}: 0 is not positive
    assert robust.level == 1


@pytest.mark.parametrize("argument, expected", [
    ("irds:cranfeld", "rankscope eval: irds:cranfeld: no such dataset in ir_datasets "),
    ("irds:../etc/passwd", "rankscope eval: irds:: expected an ir_datasets id such as 'cranfield'"),
    ("irds:Cranfield", "rankscope eval: irds:: expected an ir_datasets id"),
])
def test_an_unknown_or_malformed_id_is_one_line(tmp_path, capsys, argument, expected):
    needs_irds()
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d 1 1.0 r\n")
    code = main(["eval", argument, str(run)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.startswith(expected) and err.count("\n") == 1
    if "cranfeld" in argument:
        assert "did you mean cranfield?" in err


def test_without_the_package_one_line_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # what an environment without it gives
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d 1 1.0 r\n")
    code = main(["eval", "irds:cranfield", str(run)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("rankscope eval: irds:: the ir_datasets package is not installed; install it with "
                   "pip install \"rankscope[irds]\" (or pip install ir-datasets)\n")


GUARDED = textwrap.dedent("""
    import socket, sys
    def refuse(*args, **kwargs):
        sys.stderr.write("NETWORK ATTEMPTED %r\\n" % (args,))
        raise OSError("network refused by the test")
    socket.socket.connect = refuse
    socket.getaddrinfo = refuse
    socket.create_connection = refuse
    from rankscope.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def test_an_empty_store_names_each_missing_file_and_never_tries_the_network(tmp_path):
    needs_irds()
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d 1 1.0 r\n")
    home = tmp_path / "empty"
    env = {**os.environ, "IR_DATASETS_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", GUARDED, "eval", "irds:cranfield", str(run)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"rankscope eval: irds:cranfield: the local ir_datasets store has no {home}/cranfield/cran.tar.gz "
        "(ir_datasets downloads it from http://ir.dcs.gla.ac.uk/resources/test_collections/cran/cran.tar.gz); "
        "put the file there (IR_DATASETS_HOME sets the store)\n")
    assert not (home / "cranfield" / "cran.tar.gz").exists()


def test_check_reads_an_id_as_its_qrels(irds_home, tmp_path, capsys, no_network):
    from metrics import Conventions, aggregate, evaluate

    judged = cranqrel()
    oracle_qrels = tmp_path / "cranqrel.trec"
    oracle_qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in judged.items() for d, g in docs.items()))
    (tmp_path / "bm.run").write_text(random_run(judged, 1400, seed=11, tag="bm"))
    means = aggregate(evaluate(str(oracle_qrels), {"bm": str(tmp_path / "bm.run")}, ["AP"], conventions=Conventions(complete=True)))
    ap = float(means["value"].iloc[0])
    spec = tmp_path / "claims.yaml"
    spec.write_text(f"qrels: irds:cranfield\nruns: {{bm: bm.run}}\nconventions: {{complete: true}}\n"
                    f"expect:\n  - {{system: bm, measure: AP, value: {ap!r}, tolerance: 0.000000000001}}\n"
                    f"  - {{system: bm, measure: AP, at_least: {ap + 1e-6!r}}}\n")
    code = main(["check", str(spec)])
    out, err = capsys.readouterr()
    assert code == 1, err  # the first claim holds (the same judgments), the second fails by 1e-6
    assert out.splitlines()[0].startswith("HOLDS") and out.splitlines()[1].startswith("FAILS"), out
    assert not no_network


def test_metrics_imports_ir_datasets_only_when_an_id_is_read():
    code = "import sys, metrics, metrics.io.irds, rankscope.datasets; print('ir_datasets' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "False\n", done.stderr
