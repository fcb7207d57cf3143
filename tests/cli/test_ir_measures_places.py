"""ir_measures' names in each place the command line names a measure -- ``rankscope eval -m``, ``rankscope
compare -m``, ``rankscope check``'s expectations (claims), ``rankscope report -m`` -- give ir_measures' own
means (``calc_aggregate``) to 1e-9. The names are every spelling the registry declares as equal to
ir_measures' (``tests/metrics/measures/test_ir_measures_names.py`` checks them per query); the collections have ties,
graded and negative grades and unjudged documents, every judged topic answered (ir_measures scores an
unanswered one 0 for every measure, counts included)."""

from __future__ import annotations

import json

import numpy as np
import pytest

ir_measures = pytest.importorskip("ir_measures", reason="ir-measures (the oracle) is not installed")

from metrics import resolve_measures  # noqa: E402
from rankscope.cli import main  # noqa: E402
from tests.metrics.measures.ir_measures_names import declared  # noqa: E402
from tests.random_collections import random_collection  # noqa: E402

SYSTEMS = ("one", "two")


def collection(tmp_path, seed: int = 21):
    """Two runs of one seeded collection on the topics both judge and answer: (qrels path, run paths, oracle
    means {(system, name): value})."""
    first = random_collection(seed, max_queries=12, max_docs=80)
    topics = sorted(set(first.qrels) & set(first.run))
    assert len(topics) >= 3
    rng = np.random.default_rng(seed)  # the second run: the first's scores (ties kept) given to other documents
    qrels = {q: first.qrels[q] for q in topics}
    runs = {"one": {q: first.run[q] for q in topics},
            "two": {q: dict(zip(first.run[q], rng.permutation(list(first.run[q].values())).tolist())) for q in topics}}
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q in topics for d, g in qrels[q].items()))
    paths = []
    for name, run in runs.items():
        paths.append(tmp_path / f"{name}.run")
        paths[-1].write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n" for q in topics for d, s in run[q].items()))
    names = declared(equal=True)
    parsed = {ir_measures.parse_measure(n): n for n in names}
    means = {(name, parsed[m]): v for name, run in runs.items()
             for m, v in ir_measures.calc_aggregate(list(parsed), qrels, run).items()}
    return tmp_path / "qrels.txt", paths, means


def label(name: str) -> str:
    """rankscope's label of a measure name (``SetP`` is ``set_P``)."""
    return resolve_measures([name])[0][0]


def measure_flags(names) -> list[str]:
    return [arg for name in names for arg in ("-m", name)]


def test_eval_m_takes_ir_measures_names(tmp_path, capsys):
    qrels, runs, means = collection(tmp_path)
    names = declared(equal=True)
    assert main(["eval", "--format", "json", *measure_flags(names), str(qrels), *map(str, runs)]) == 0
    rows = json.loads(capsys.readouterr().out)
    got = {(r["system"], r["measure"]): r["value"] for r in rows if r["query"] == "all"}
    for (system, name), want in means.items():
        assert got[(system, label(name))] == pytest.approx(want, abs=1e-9), (system, name)
    assert len(got) == len(means)


def test_compare_m_takes_ir_measures_names(tmp_path, capsys):
    qrels, runs, means = collection(tmp_path)
    names = [n for n in declared(equal=True) if not n.startswith("Num")]  # counts are not compared by tests
    assert main(["compare", "--format", "json", *measure_flags(names), str(qrels), *map(str, runs)]) == 0
    document = json.loads(capsys.readouterr().out)
    got = {(r["system"], r["measure"]): r["value"] for r in document["means"]}
    for name in names:
        for system in SYSTEMS:
            assert got[(system, label(name))] == pytest.approx(means[(system, name)], abs=1e-9)
    assert {c["measure"] for c in document["comparisons"]} == {label(n) for n in names}


@pytest.mark.parametrize("shift, status", [(0.0, 0), (1e-6, 1)])
def test_check_expectations_take_ir_measures_names(tmp_path, capsys, shift, status):
    """A claim per name that the mean is ir_measures' (to 1e-9) holds; moved by 1e-6, every one fails."""
    qrels, runs, means = collection(tmp_path)
    claims = [f'{{system: {system}, measure: "{name}", value: {value + shift:.17f}, tolerance: 0.000000001}}'
              for (system, name), value in means.items()]  # fixed-point: YAML 1.1 reads 1e-09 as text
    claims.append('{better: one, than: two, measure: "P(rel=2)@5"}' if shift else
                  '{system: one, measure: "IPrec@0.5", rank_at_most: 2}')
    runs_yaml = ", ".join(f"{p.stem}: {p.name}" for p in runs)
    (tmp_path / "exp.yaml").write_text(f"qrels: {qrels.name}\nruns: {{{runs_yaml}}}\nexpect:\n"
                                       + "".join(f"  - {claim}\n" for claim in claims))
    assert main(["check", str(tmp_path / "exp.yaml")]) == status
    lines = capsys.readouterr().out.splitlines()
    words = ("HOLDS",) if not shift else ("FAILS", "HOLDS")  # "better" may hold either way
    assert len([line for line in lines if line.split()[0] in ("HOLDS", "FAILS")]) == len(claims)
    assert all(line.split()[0] == ("FAILS" if shift else "HOLDS") for line in lines[:len(means)])
    assert lines[len(means)].split()[0] in words


def test_report_m_takes_ir_measures_names(tmp_path):
    qrels, runs, _ = collection(tmp_path)
    names = ["SetP", "IPrec@0.5", "RR(rel=2)", "P(rel=2)@5"]
    out = tmp_path / "report.html"
    assert main(["report", "--quiet", "-o", str(out), *measure_flags(names), str(qrels), *map(str, runs)]) == 0
    html = out.read_text()
    assert all(label(name) in html for name in names)
