"""``rankscope judges`` says what it computed: the topics compared, a run's missing topics (refused as by
``compare`` unless ``-c`` scores them 0, and then said in the text, the JSON and the provenance line), tau_AP's
direction, and each set's verdict on the reference's conclusions. Values against pytrec_eval."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (the oracle) is not installed")

from rankscope.cli import main  # noqa: E402

TOPICS = [str(t) for t in range(1, 9)]
MISSING = ("2", "5")  # the topics run "a" does not answer


def collection(folder):
    """Three judgment sets (the last without topic 8, so 7 topics every set judged) and three runs, run "a"
    without topics 2 and 5."""
    rng = np.random.default_rng(47)
    docs = [f"d{i}" for i in range(12)]
    qrels = {}
    for name in ("nist", "crowd", "llm"):
        judged = {(t, d): int(rng.integers(0, 3)) for t in TOPICS for d in docs if not (name == "llm" and t == "8")}
        (folder / f"{name}.qrels").write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in judged.items()))
        qrels[name] = judged
    runs = {}
    for system in ("a", "b", "c"):
        scores = {(t, d): float(rng.integers(0, 100)) for t in TOPICS for d in docs
                  if not (system == "a" and t in MISSING)}
        (folder / f"{system}.run").write_text("".join(f"{t} Q0 {d} 0 {s} {system}\n" for (t, d), s in scores.items()))
        runs[system] = scores
    return qrels, runs


def oracle_ap(qrels: dict, run: dict, topics) -> dict[str, float]:
    """pytrec_eval's AP on each of ``topics`` the run answers."""
    judged, ranked = {}, {}
    for (t, d), g in qrels.items():
        if t in topics:
            judged.setdefault(t, {})[d] = g
    for (t, d), s in run.items():
        if t in topics:
            ranked.setdefault(t, {})[d] = s
    found = pytrec_eval.RelevanceEvaluator(judged, {"map"}).evaluate(ranked)
    return {t: v["map"] for t, v in found.items()}


def judges(capsys, folder, *extra):
    argv = ["judges", *(str(folder / f"{n}.qrels") for n in ("nist", "crowd", "llm")),
            *(str(folder / f"{s}.run") for s in ("a", "b", "c")), "-m", "AP", *extra]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_run_missing_topics_is_refused_as_by_compare_unless_c(tmp_path, capsys):
    collection(tmp_path)
    code, out, err = judges(capsys, tmp_path)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "a has no value for 2 of the 8 topics" in err and "(2, 5)" in err
    assert "pass -c (a judged topic a run does not answer then scores 0" in err
    code = main(["compare", str(tmp_path / "nist.qrels"), *(str(tmp_path / f"{s}.run") for s in "abc"), "-m", "AP"])
    compared = capsys.readouterr().err
    assert code == 2 and "pass -c (a judged topic a run does not answer then scores 0" in compared


def test_with_c_the_missing_topics_score_0_and_every_output_says_so(tmp_path, capsys):
    qrels, runs = collection(tmp_path)
    common = TOPICS[:-1]
    code, out, err = judges(capsys, tmp_path, "-c", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    for name in ("nist", "crowd", "llm"):
        values = {r["system"]: r["value"] for r in doc["orders"]["AP"][name]}
        answered = oracle_ap(qrels[name], runs["a"], common)
        assert sorted(answered) == sorted(set(common) - set(MISSING))
        assert values["a"] == pytest.approx(sum(answered.values()) / len(common), abs=1e-12)  # two zeros among 7
        assert values["a"] != pytest.approx(sum(answered.values()) / len(answered), abs=1e-6)
        for system in ("b", "c"):
            assert values[system] == pytest.approx(np.mean(list(oracle_ap(qrels[name], runs[system], common).values())),
                                                   abs=1e-12)
    settings = doc["settings"]
    assert (settings["complete"], settings["compared"], settings["compared_topics"]) == (
        True, "the topics every set judged", 7)
    assert doc["unanswered"] == [{"judges": n, "system": "a", "topics": 7, "unanswered": 2}
                                 for n in ("nist", "crowd", "llm")]
    assert "complete topics (-c)" in doc["provenance"]["compact"]
    code, out, err = judges(capsys, tmp_path, "-c")
    assert code == 0, err
    assert "Topics compared: the 7 topics every set judged, for every pair of sets and every conclusion." in out
    assert "Complete topics (-c): a compared topic a run did not answer scores 0 for it, on every measure:" in out
    block = out.split("Complete topics (-c)")[1].split("\n\n")[0].splitlines()[1:]
    assert [line.split() for line in block] == [["set", "system", "topics", "not", "answered"],
                                                *([n, "a", "7", "2"] for n in ("nist", "crowd", "llm"))]
    assert out.rstrip().splitlines()[-1].startswith("provenance: ") and "complete topics (-c)" in out.splitlines()[-1]


def test_the_text_says_which_order_tau_ap_walks_and_what_each_set_finds(tmp_path, capsys):
    collection(tmp_path)
    code, out, err = judges(capsys, tmp_path, "-c")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "tau_ap: the first set of the pair the reference, the second's order walked" in flat
    assert "a system the second puts too high near its top costs most" in flat
    assert "systems tied at a cut share the places left" in flat
    head = next(line for line in out.splitlines() if line.startswith("better"))
    assert head.split() == ["better", "worse", "nist", "crowd", "llm"]
    assert "under nist the difference is found (significant), not found, or tied" in flat
    assert "holds under" not in out and "reversed under" not in out
