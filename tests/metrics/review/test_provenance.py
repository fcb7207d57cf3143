"""metrics.review.provenance: the card of every choice behind a number, as one line and as a record."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from metrics import Conventions, ValidationError, resolve_measures
from metrics.review.provenance import TIE_RULES, Provenance, build_provenance, topic_counts


def test_compact_line_names_every_choice():
    card = build_provenance(Conventions(depth=1000), resolve_measures(['nDCG(gain="exp")@10', "AP"]),
                            topics={'nDCG(gain="exp")@10': 50, "AP": 50}, test="t", correction="holm",
                            family="per_measure")
    assert card.compact() == ("trec_eval-9 · rel ≥ 1 · -M 1000 · gain exp · discount log2 · ideal judged · "
                              "ties docid · interp trec_eval-9 · test t, holm per measure · topics 50")


def test_compact_line_follows_the_conventions():
    conventions = Conventions(preset="textbook", relevance_level=2, judged_only=True, complete=True)
    card = build_provenance(conventions, resolve_measures(["P@10", 'nDCG(discount="jk")@5', "nDCG@10"]),
                            topics={"P@10": 48, "nDCG@10": 50}, ties="range", test="wilcoxon", correction="none")
    line = card.compact()
    assert line.startswith("textbook · rel ≥ 2 · judged only (-J) · complete topics (-c) · ")
    assert "-M" not in line and "gain linear · discount jk/log2 · ideal judged" in line
    assert "ties range" in line and "interp textbook" in line and "test wilcoxon, uncorrected" in line
    assert line.endswith("topics 48–50")


def test_tukey_is_adjusted_by_construction():
    card = build_provenance(None, resolve_measures(["P@10"]), test="tukey", correction="none", family="per_measure")
    assert "test tukey (adjusted for all pairs)" in card.compact() and "uncorrected" not in card.compact()


def test_without_gain_measures_or_tests_the_line_omits_them():
    line = build_provenance(None, resolve_measures(["P@10"]), topics={"P@10": 3}).compact()
    assert line == "trec_eval-9 · rel ≥ 1 · ties docid · interp trec_eval-9 · topics 3"


def test_as_dict_is_json_and_complete():
    card = build_provenance(Conventions(depth=10), resolve_measures(["nDCG@10"]), topics={"nDCG@10": 7},
                            test="t", correction="bh", family="all")
    record = json.loads(json.dumps(card.as_dict()))
    assert record["conventions"] == Conventions(depth=10).as_dict()
    assert record["gain"] == ["linear"] and record["discount"] == ["log2"] and record["ideal"] == ["judged"]
    assert record["topics"] == {"nDCG@10": 7} and record["ties"] == "docid"
    assert (record["test"], record["correction"], record["family"]) == ("t", "bh", "all")
    assert record["compact"] == card.compact()


def test_topic_counts_against_a_loop():
    rng = np.random.default_rng(3)
    rows = []
    for system in ("a", "b"):
        for measure in ("AP", "P@10"):
            topics = rng.choice(40, size=int(rng.integers(5, 40)), replace=False)
            rows += [{"system": system, "query": str(q), "measure": measure, "value": 0.5} for q in topics]
            rows.append({"system": system, "query": "all", "measure": measure, "value": 0.5})
    frame = pd.DataFrame(rows)
    expected = {}
    for measure in ("AP", "P@10"):
        expected[measure] = max(len({r["query"] for r in rows if r["measure"] == measure and r["system"] == s
                                     and r["query"] != "all"}) for s in ("a", "b"))
    assert topic_counts(frame) == expected


def test_unknown_tie_rule_is_refused():
    with pytest.raises(ValidationError, match="ties"):
        build_provenance(None, ties="random")
    assert set(TIE_RULES) == {"docid", "range"}
    assert isinstance(build_provenance(None), Provenance)


# ---- in the outputs ---------------------------------------------------------------------------------------------


def demo():
    from sample_data import demo_paths

    qrels, runs = demo_paths()
    return str(qrels), [str(r) for r in runs[:3]]


def test_compare_json_and_table_carry_the_card(capsys):
    from metrics import evaluate
    from rankscope.cli import main

    qrels, runs = demo()
    argv = ["compare", qrels, *runs, "-c", "-M", "20", "-m", 'nDCG(gain="exp")@10', "--test", "wilcoxon"]
    assert main([*argv, "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)["provenance"]
    per_query = evaluate(qrels, runs, ['nDCG(gain="exp")@10'], complete=True, depth=20)
    assert record["topics"] == {'nDCG(gain="exp")@10': per_query["query"].nunique()}
    assert record["conventions"] == Conventions(depth=20, complete=True).as_dict()
    assert (record["gain"], record["test"], record["correction"]) == (["exp"], "wilcoxon", "holm")
    assert main(argv) == 0
    assert f"provenance: {record['compact']}\n" in capsys.readouterr().out


def test_latex_and_markdown_carry_the_card_as_comments(capsys):
    from metrics.review.compare import summary_table, to_latex, to_markdown
    from metrics.stats.significance import compare_systems
    from rankscope.cli import main

    frame = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query": list("1234") * 2, "measure": "AP",
                          "value": [0.1, 0.2, 0.3, 0.2, 0.3, 0.5, 0.4, 0.6]})
    table = summary_table(compare_systems(frame), frame)
    card = build_provenance(Conventions(depth=5), resolve_measures(["AP"]), topics={"AP": 4}, test="t",
                            correction="holm", family="per_measure")
    latex = to_latex(table, provenance=card)
    assert f"\n%% provenance: {card.compact()}\n" in latex
    assert latex.index("%% provenance") < latex.index(r"\begin{table}")
    assert to_latex(table) == latex.replace(f"%% provenance: {card.compact()}\n", "")
    markdown = to_markdown(table, provenance=card)
    assert markdown.startswith(f"<!-- provenance: {card.compact()} -->\n\n")
    qrels, runs = demo()
    assert main(["compare", qrels, *runs, "-c", "-m", "P@10", "--format", "latex"]) == 0
    assert "%% provenance: trec_eval-9 · rel ≥ 1 · complete topics (-c) ·" in capsys.readouterr().out


def test_eval_json_summaries_carry_the_card(tmp_path, capsys):
    from metrics import evaluate
    from rankscope.cli import main

    qrels, runs = tmp_path / "q.txt", tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n")
    runs.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n")  # topic 3 unanswered
    for flags in ([], ["-c", "-l", "2", "-M", "1"]):
        assert main(["eval", "--format", "json", "-m", "map", "-m", "ndcg_cut.5", *flags, str(qrels), str(runs)]) == 0
        records = json.loads(capsys.readouterr().out)
        conventions = Conventions(complete=bool(flags), relevance_level=2 if flags else 1, depth=1 if flags else None)
        topics = evaluate(str(qrels), [str(runs)], ["AP"], conventions=conventions)["query"].nunique()
        expected = build_provenance(conventions, resolve_measures(["nDCG@5"]), topics={"x": topics}).compact()
        assert {r["provenance"] for r in records} == {expected} and len(records) == 2
        assert f"topics {3 if flags else 2}" in expected


def test_provenance_of_a_per_query_table_in_one_call():
    from metrics import evaluate
    from metrics.review.provenance import provenance_of

    qrels = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n"
    runs = {"x": b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n", "y": b"1 Q0 b 1 2 t\n3 Q0 d 1 1 t\n"}
    per_query = evaluate(qrels, runs, ["AP", "nDCG@5"], complete=True)
    card = provenance_of(per_query, Conventions(complete=True), ["AP", "nDCG@5"], {"test": "sign", "correction": "bh",
                                                                                  "family": "all", "seed": 1})
    assert card == build_provenance(Conventions(complete=True), resolve_measures(["AP", "nDCG@5"]),
                                    topics={"AP": 3, "nDCG@5": 3}, test="sign", correction="bh", family="all")
    assert card.compact().endswith("test sign, bh over all measures · topics 3")
    assert provenance_of(per_query, None, ["AP"], ties="range").test is None
