"""metrics.review.cautions: each caution fires on a crafted comparison and stays silent on a clean one."""

from __future__ import annotations

import pytest

from metrics import resolve_measures
from metrics.review.cautions import CAUTION_CODES, MANY_TOPICS, Caution, comparison_cautions

CLEAN = {"test": "permutation", "correction": "holm", "tests": 6, "topics": 50, "gain_stated": True}


def codes(measures, **settings) -> list[str]:
    return [c.code for c in comparison_cautions(resolve_measures(measures), **{**CLEAN, **settings})]


def test_a_clean_comparison_has_no_caution():
    assert codes(["AP", "RR", 'nDCG(gain="exp")@10', "P@10"]) == []
    assert codes(["P@10", "R@100"], test="t") == []


@pytest.mark.parametrize("measure", ["RR", "AP", "RR@10"])
@pytest.mark.parametrize("test", ["t", "tukey"])
def test_ordinal_mean_under_a_parametric_test(measure, test):
    found = comparison_cautions(resolve_measures([measure, "P@10"]), **{**CLEAN, "test": test})
    assert [c.code for c in found] == ["parametric-ordinal"]
    assert measure in found[0].sentence and "P@10" not in found[0].sentence
    assert codes([measure], test="wilcoxon") == [] and codes([measure], test="sign") == []


def test_ndcg_without_its_gain():
    found = comparison_cautions(resolve_measures(["nDCG@10", "nDCG", "P@5"]), **{**CLEAN, "gain_stated": False})
    assert [c.code for c in found] == ["ndcg-gain-unstated"]
    assert "nDCG@10, nDCG" in found[0].sentence and "linear" in found[0].sentence
    assert "exp" in comparison_cautions(resolve_measures(['nDCG(gain="exp")@10']), gain_stated=False)[0].sentence
    assert codes(["nDCG@10"], gain_stated=True) == []
    assert codes(["P@10", "AP"], gain_stated=False) == []


def test_relative_improvement_without_effect_size():
    assert codes(["P@10"], relative_shown=True, effect_size_shown=False) == ["relative-without-effect-size"]
    assert codes(["P@10"], relative_shown=True, effect_size_shown=True) == []
    assert codes(["P@10"], relative_shown=False, effect_size_shown=False) == []


def test_uncorrected_tests():
    found = comparison_cautions(resolve_measures(["P@10"]), **{**CLEAN, "correction": "none", "tests": 6})
    assert [c.code for c in found] == ["uncorrected"] and found[0].sentence.startswith("6 tests")
    assert codes(["P@10"], correction="none", tests=1) == []  # one test: nothing to correct
    assert codes(["P@10"], correction="none", test=None) == []  # nothing tested
    assert codes(["P@10"], correction="none", test="tukey") == []  # adjusted for all pairs by construction


def test_many_topics():
    assert codes(["P@10"], topics=MANY_TOPICS + 1) == ["many-topics"]
    assert codes(["P@10"], topics=MANY_TOPICS) == []


def test_everything_at_once_in_code_order():
    found = comparison_cautions(resolve_measures(["RR", "nDCG@10"]), test="t", correction="none", tests=4,
                                topics=5000, relative_shown=True, effect_size_shown=False, gain_stated=False)
    assert [c.code for c in found] == list(CAUTION_CODES)
    assert all(isinstance(c, Caution) and c.sentence.endswith(".") and "\n" not in c.sentence for c in found)
    assert found[0].as_dict() == {"code": found[0].code, "sentence": found[0].sentence}


# ---- in the command line --------------------------------------------------------------------------------------


def demo():
    from sample_data import demo_paths

    qrels, runs = demo_paths()
    return str(qrels), [str(r) for r in runs[:3]]


def test_compare_reports_its_warnings(capsys):
    import json

    from rankscope.cli import main

    qrels, runs = demo()
    argv = ["compare", qrels, *runs, "-c", "-m", "RR", "-m", "nDCG@10", "--correction", "none"]
    assert main([*argv, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert [w["code"] for w in json.loads(out)["warnings"]] == ["parametric-ordinal", "uncorrected"] and err == ""
    assert main([*argv, "--format", "latex"]) == 0  # a LaTeX table does not show nDCG's gain
    out, err = capsys.readouterr()
    assert [line.split(" ")[1] for line in err.splitlines()] == ["nDCG@10", "The", "6"]
    assert all(line.startswith("note: ") for line in err.splitlines()) and "note:" not in out
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.count("\nnote: ") == 2 and err == ""


def test_a_clean_compare_has_no_warnings(capsys):
    import json

    from rankscope.cli import main

    qrels, runs = demo()
    assert main(["compare", qrels, *runs, "-c", "-m", "P@10", "--test", "sign", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []
    assert main(["compare", qrels, *runs, "-c", "-m", "P@10", "--test", "sign", "--format", "latex"]) == 0
    assert capsys.readouterr().err == ""
