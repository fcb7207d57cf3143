"""``rankscope judges`` on Cranfield with several judgment sets, checked against the oracles; its file sniffing
and its one-line errors."""

from __future__ import annotations

import gzip
import json
import os
import warnings

import numpy as np
import pytest

sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn (the kappa oracle) is not installed")
krippendorff = pytest.importorskip("krippendorff", reason="krippendorff (the alpha oracle) is not installed")
pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")

import re  # noqa: E402
from pathlib import Path  # noqa: E402

from rankscope.cli import main  # noqa: E402
from rankscope.commands.judges import split_files  # noqa: E402
from tests import judges_data  # noqa: E402
from tests.metrics.judgments.test_labels import as_dict, same  # noqa: E402
from tests.metrics.judgments.test_systems import (check_conclusion, oracle_directions, oracle_values,  # noqa: E402
                                                  textbook_tau_ap)
from tests.paths import ROOT

SETS = ("nist", "noisy", "lexical")
SYSTEMS = ("bm25", "bm25b", "overlap", "title")
LABEL_KEYS = {"kappa", "kappa_binary", "kappa_linear", "kappa_quadratic", "both_judged", "only_first", "only_second",
              "mean_grade_shift"}


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory):
    if not judges_data.available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Cranfield not found at {judges_data.CRANFIELD}")
        pytest.skip(f"Cranfield not found at {judges_data.CRANFIELD}")
    folder = tmp_path_factory.mktemp("judges")
    sets, runs = judges_data.write(folder, sets=(*SETS, "subset"))
    return folder, sets, runs


def judges(capsys, *argv):
    code = main(["judges", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_on_cranfield_equals_the_oracles(cranfield, capsys):
    folder, sets, runs = cranfield
    code, out, err = judges(capsys, *(sets[n] for n in SETS), *(runs[s] for s in SYSTEMS), "-m", "nDCG@10",
                            "-m", "P@10", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert {"labels", "alpha", "systems"} <= doc.keys()
    pairs = [f"{a}|{b}" for i, a in enumerate(SETS) for b in SETS[i + 1:]]
    assert list(doc["labels"]) == pairs
    judged = {n: as_dict(sets[n].read_text()) for n in SETS}
    for key in pairs:
        a, b = key.split("|")
        entry = doc["labels"][key]
        assert LABEL_KEYS <= entry.keys()
        both = sorted(set(judged[a]) & set(judged[b]))
        x, y = np.array([judged[a][k] for k in both]), np.array([judged[b][k] for k in both])
        labels = np.arange(min(x.min(), y.min()), max(x.max(), y.max()) + 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = {"kappa": sklearn_metrics.cohen_kappa_score(x, y),
                        "kappa_binary": sklearn_metrics.cohen_kappa_score(x >= 1, y >= 1),
                        "kappa_linear": sklearn_metrics.cohen_kappa_score(x, y, weights="linear", labels=labels),
                        "kappa_quadratic": sklearn_metrics.cohen_kappa_score(x, y, weights="quadratic", labels=labels)}
        for name, value in expected.items():
            assert same(entry[name], float(value)), (key, name)
        assert (entry["both_judged"], entry["only_first"], entry["only_second"]) == (
            len(both), len(set(judged[a]) - set(judged[b])), len(set(judged[b]) - set(judged[a])))
        assert entry["mean_grade_shift"] == pytest.approx(float(np.mean(y - x)))
    units = sorted(set().union(*judged.values()))
    data = np.array([[judged[n].get(u, np.nan) for u in units] for n in SETS], dtype=float)
    assert doc["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"),
                                         abs=1e-9)
    # the systems: pytrec_eval's values on the topics every set judged, scipy's tau-b, a textbook tau_AP
    common = set.intersection(*({t for t, _ in judged[n]} for n in SETS))
    oracle = {(n, s): oracle_values(sets[n].read_text(), runs[s].read_text(), common) for n in SETS for s in SYSTEMS}
    from scipy.stats import kendalltau

    for measure in ("nDCG@10", "P@10"):
        assert list(doc["systems"][measure]) == pairs
        means = {n: {s: np.mean([v for (m, _), v in oracle[(n, s)].items() if m == measure]) for s in SYSTEMS}
                 for n in SETS}
        for key in pairs:
            a, b = key.split("|")
            entry = doc["systems"][measure][key]
            names = sorted(SYSTEMS)
            assert entry["tau_b"] == pytest.approx(
                kendalltau([means[a][s] for s in names], [means[b][s] for s in names]).statistic, abs=1e-12)
            assert entry["tau_ap"] == pytest.approx(textbook_tau_ap(means[a], means[b]), abs=1e-12)
            assert len(entry["conclusions"]) == 6
            direction = oracle_directions(oracle, SETS, list(SYSTEMS), measure)
            for c in entry["conclusions"]:  # the two sets alone, the first the reference
                check_conclusion(conclusion_row(c), direction, (a, b), list(SYSTEMS))
        direction = oracle_directions(oracle, SETS, list(SYSTEMS), measure)
        for c in doc["conclusions"][measure]:
            check_conclusion(conclusion_row(c), direction, SETS, list(SYSTEMS))
    assert doc["settings"]["compared_topics"] == len(common)
    assert doc["provenance"]["test"] == "t" and doc["ppi"] == {}


def conclusion_row(record: dict):
    """A conclusion of the JSON as the row :func:`check_conclusion` reads."""
    under = {f"{verdict}_under": tuple(sets) for verdict, sets in record["other_sets"].items()}
    return type("Row", (), {"better": record["better"], "worse": record["worse"], "reference": record["reference"],
                            **under})


def test_table_output_names_the_sets_after_their_files(cranfield, capsys):
    folder, sets, runs = cranfield
    code, out, err = judges(capsys, sets["nist"], sets["lexical"], runs["bm25"], runs["overlap"])
    assert code == 0, err
    assert out.startswith("Judgment sets\n")
    assert "nist|lexical" in out and "Krippendorff's alpha (ordinal) over all 2 sets" in out
    assert "nDCG@10: the systems in order under each set" in out and "AP: the judged documents it rests on" in out
    assert out.rstrip().splitlines()[-1].startswith("provenance: trec_eval-9")


def test_a_human_subset_gets_prediction_powered_means(cranfield, capsys):
    folder, sets, runs = cranfield
    code, out, err = judges(capsys, sets["subset"], sets["lexical"], runs["bm25"], runs["title"], "-m", "nDCG@10",
                            "--topics", "each", "--names", "humans", "words", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert list(doc["ppi"]) == ["words"]
    rows = doc["ppi"]["words"]
    assert [r["system"] for r in rows] == ["bm25", "title"] and all(r["labelled"] == 40 for r in rows)
    assert all(r["ppi_low"] < r["ppi"] < r["ppi_high"] and r["automatic_low"] > r["human_high"] for r in rows)


def test_files_are_told_apart_by_their_first_line(tmp_path):
    qrels = tmp_path / "a.qrels"
    qrels.write_text("# judged by people\n\n1 0 d1 1\n")
    packed = tmp_path / "b.qrels.gz"
    packed.write_bytes(gzip.compress(b"1\t0\td1\t2\n"))
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d1 1 2.5 r\n")
    assert split_files([str(qrels), str(packed), str(run), "runs/*.txt"]) == ([str(qrels), str(packed)],
                                                                              [str(run), "runs/*.txt"])
    assert split_files([str(run), str(qrels)]) == ([], [str(run), str(qrels)])


@pytest.mark.parametrize("args, message", [
    (["q1", "r"], "expected two or more qrels files (4 fields a line) before the runs, found 1"),
    (["q1", "q2"], "expected one or more runs after the qrels files, found none"),
    (["q1", "q2", "r", "--names", "a"], "--names: expected 2 names, one per qrels file, found 1"),
    (["q1", "q2", "r", "--names", "a|b", "c"], "without '|'"),
    (["q1", "q2", "r", "--names", "a", "a"], "share the name"),
    (["q1", "q2", "r", "--reference", "z"], "the reference 'z' is not one of the judgment sets"),
    (["q1", "q2", "r", "--top-k", "0"], "--top-k: expected an integer from 1"),
    (["q1", "q2", "r", "--ppi-lambda", "2"], "--ppi-lambda: expected a number from 0 to 1"),
    (["q1", "q2", "bad"], "bad:2: expected"),
])
def test_bad_input_is_one_line_and_status_2(tmp_path, capsys, args, message):
    files = {"q1": "1 0 a 1\n1 0 b 0\n", "q2": "1 0 a 0\n1 0 b 1\n", "r": "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n",
             "bad": "1 Q0 a 1 2 r\n1 Q0 b 2\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    argv = [str(tmp_path / a) if a in files else a for a in args]
    code, out, err = judges(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rankscope judges: ") and message in err


def test_a_stored_collection_keeps_its_sets_and_any_of_them_can_be_asked_for(tmp_path, capsys):
    pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")
    from rankscope.commands.workspace import stored_inputs

    files = {"nist.qrels": "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n",
             "crowd.txt": "1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 d 1\n2 0 e 1\n",
             "x.run": "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n2 Q0 d 1 2 x\n2 Q0 e 2 1 x\n",
             "y.run": "1 Q0 c 1 3 y\n1 Q0 b 2 2 y\n1 Q0 a 3 1 y\n2 Q0 e 1 2 y\n2 Q0 d 2 1 y\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    where = str(tmp_path / "ws")
    code = main(["workspace", "add", str(tmp_path / "nist.qrels"), str(tmp_path / "x.run"), str(tmp_path / "y.run"),
                 "--name", "two judges", "--judgments", f"crowd={tmp_path / 'crowd.txt'}", "--workspace", where,
                 "-l", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    cid = out.strip()  # the id alone
    code, out, err = judges(capsys, "--collection", cid, "--workspace", where, "-m", "P@2", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert [s["name"] for s in doc["sets"]] == ["nist", "crowd"] and list(doc["labels"]) == ["nist|crowd"]
    x, y = [2, 0, 1, 1, 0], [1, 1, 0, 1, 1]
    assert doc["labels"]["nist|crowd"]["kappa"] == pytest.approx(sklearn_metrics.cohen_kappa_score(x, y))
    assert stored_inputs(where, cid, "crowd")["qrels"] == files["crowd.txt"].encode()
    assert stored_inputs(where, cid)["qrels"] == files["nist.qrels"].encode()
    code, out, err = main(["report", "--collection", cid, "--workspace", where, "--judgments", "llm", "-o", "-"]), \
        *capsys.readouterr()
    assert code == 2 and "has no judgment set 'llm'; its sets are nist, crowd" in err
    code, out, err = judges(capsys, "--collection", cid, "--workspace", where, str(tmp_path / "x.run"))
    assert code == 2 and "expected FILE... or --collection ID, found both" in err


def test_the_documented_examples_are_what_the_command_prints(cranfield, capsys):
    """The two examples on Cranfield of docs/guides/judges.md (the docs' own test leaves them to this one)."""
    folder, _, _ = cranfield
    page = (ROOT / "docs" / "guides" / "judges.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n\$ (rankscope judges [^\n]+)\n(.*?)```", page, re.S)
    assert len(blocks) == 2
    for command, printed in blocks:
        argv = [str(folder / a) if (folder / a).is_file() else a for a in command.split()[1:]]
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, err
        if printed.startswith("...\n"):  # an excerpt: the lines shown, in order, with nothing between them
            assert printed[4:] in out
        else:
            assert out == printed
