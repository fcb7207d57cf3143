"""metrics.review.compare (the results table and its LaTeX, Markdown, CSV and text) and ``rankscope compare``
end to end."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rankscope.cli import main
from metrics.review.compare import (BETTER, WORSE, SummaryTable, baseline_markers, latex_escape, markdown_escape,
                                    summary_table, to_csv, to_frame, to_latex, to_markdown, to_text)
from metrics.errors import ValidationError
from metrics.evaluate import aggregate, summarise
from metrics.stats.significance import compare_systems


def per_query(values: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """{measure: {system: per-query values}} -> a tidy per-query table."""
    rows = []
    for measure, systems in values.items():
        for system, vals in systems.items():
            rows += [(system, f"{q + 1:02d}", measure, v) for q, v in enumerate(vals)]
    return pd.DataFrame(rows, columns=["system", "query", "measure", "value"])


BASE = [0.20, 0.30, 0.25, 0.40, 0.10, 0.35, 0.30, 0.22, 0.28, 0.33]
UP = [v + 0.2 + 0.01 * (i % 3) for i, v in enumerate(BASE)]
DOWN = [v - 0.05 - 0.01 * (i % 2) for i, v in enumerate(BASE)]
SAME = [v + (0.01 if i % 2 else -0.01) for i, v in enumerate(BASE)]


@pytest.fixture
def frame() -> pd.DataFrame:
    mr_base = [3.0, 5.0, 2.0, 4.0, 6.0, 3.0, 2.0, 5.0, 4.0, 3.0]
    return per_query({
        "AP": {"bm25": BASE, "bm25_rm3%": UP, "weak": DOWN, "noise": SAME},
        # MR: lower is better; bm25_rm3% has lower (better) ranks, weak higher (worse) ones
        "MR": {"bm25": mr_base, "bm25_rm3%": [v - 1.5 - 0.1 * (i % 3) for i, v in enumerate(mr_base)],
               "weak": [v + 2 + 0.1 * (i % 2) for i, v in enumerate(mr_base)],
               "noise": [v + (0.1 if i % 2 else -0.1) for i, v in enumerate(mr_base)]},
    })


# ---- the results table -----------------------------------------------------------------------------------


def test_baseline_markers_follow_each_measures_direction(frame):
    comparison = compare_systems(frame, baseline="bm25")
    table = summary_table(comparison, aggregate(frame))
    assert isinstance(table, SummaryTable)
    assert table.systems == ["bm25", "bm25_rm3%", "weak", "noise"] and table.measures == ["AP", "MR"]
    assert table.markers.loc["bm25_rm3%", "AP"] == BETTER
    assert table.markers.loc["bm25_rm3%", "MR"] == BETTER  # lower mean rank is better
    assert table.markers.loc["weak", "AP"] == WORSE and table.markers.loc["weak", "MR"] == WORSE
    assert table.markers.loc["noise", "AP"] == "" and table.markers.loc["bm25", "AP"] == ""
    assert table.best.loc["bm25_rm3%", "AP"] and table.best.loc["bm25_rm3%", "MR"]
    assert table.best.to_numpy().sum() == 2
    assert table.values.loc["bm25", "AP"] == pytest.approx(np.mean(BASE))
    assert table.letters == ()


def test_letters_for_all_pairs(frame):
    table = summary_table(compare_systems(frame), aggregate(frame))
    assert dict(table.letters) == {"bm25": "a", "bm25_rm3%": "b", "weak": "c", "noise": "d"}
    # bm25_rm3% beats all three others; bm25 and noise beat weak; weak beats nobody
    assert table.markers.loc["bm25_rm3%", "AP"] == "acd"
    assert table.markers.loc["bm25", "AP"] == "c"
    assert table.markers.loc["noise", "AP"] == "c"
    assert table.markers.loc["weak", "AP"] == ""
    assert table.markers.loc["bm25_rm3%", "MR"] == "acd"
    assert "Superscript letters" in table.caption()


def test_baseline_can_be_read_from_an_all_pairs_comparison(frame):
    table = summary_table(compare_systems(frame), frame, baseline="weak")  # a per-query table is aggregated
    assert table.baseline == "weak"
    assert table.markers.loc["bm25", "AP"] == BETTER and table.markers.loc["weak", "AP"] == ""


def test_best_value_ties_are_all_bold():
    frame = per_query({"AP": {"x": [0.5, 0.25], "y": [0.25, 0.5], "z": [0.0, 0.25]}})
    table = summary_table(compare_systems(frame), frame)
    assert table.best["AP"].tolist() == [True, True, False]
    latex = to_latex(table)
    assert latex.count(r"\textbf{0.3750}") == 2


def test_latex_is_booktabs_and_escapes_names(frame):
    frame = frame.replace({"system": {"noise": "a&b $x #1"}})
    table = summary_table(compare_systems(frame, baseline="bm25", test="wilcoxon", correction="bonferroni"),
                          aggregate(frame))
    latex = to_latex(table, label="tab:main", caption="Results on 50% of the topics")
    assert r"bm25\_rm3\%" in latex and "bm25_rm3%" not in latex
    assert r"a\&b \$x \#1" in latex
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{lrr}", r"\label{tab:main}"):
        assert rule in latex
    row = next(line for line in latex.splitlines() if line.startswith(r"bm25\_rm3\%"))
    assert row == r"bm25\_rm3\% & \textbf{0.4820}$^{\dagger}$ & \textbf{2.1100}$^{\dagger}$ \\"
    weak = next(line for line in latex.splitlines() if line.startswith("weak"))
    assert r"$^{\ddagger}$" in weak
    assert r"bm25 (baseline) & 0.2730 & 3.7000 \\" in latex
    caption = next(line for line in latex.splitlines() if line.startswith(r"\caption{"))
    assert r"Results on 50\% of the topics." in caption
    assert r"$^{\dagger}$ / $^{\ddagger}$: significantly better / worse than the baseline \texttt{bm25}" in caption
    assert "Wilcoxon signed-rank test, Bonferroni-corrected per measure" in caption and r"$\alpha = 0.05$" in caption
    assert "Mean over 10 topics; the best value of each measure is in bold." in caption


def test_latex_letters(frame):
    latex = to_latex(summary_table(compare_systems(frame, correction="bh", family="all"), aggregate(frame)))
    assert r"(b) bm25\_rm3\% & \textbf{0.4820}$^{\mathrm{acd}}$" in latex
    assert "Benjamini-Hochberg-adjusted over all measures together" in latex


def test_latex_escape():
    assert latex_escape("bm25_rm3%") == r"bm25\_rm3\%"
    assert latex_escape(r"a\b{c}~^") == r"a\textbackslash{}b\{c\}\textasciitilde{}\textasciicircum{}"


def test_csv(frame, tmp_path):
    table = summary_table(compare_systems(frame, baseline="bm25"), aggregate(frame))
    path = tmp_path / "table.csv"
    text = to_csv(table, path)
    assert path.read_text(encoding="utf-8") == text
    read = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert list(read.columns) == ["system", "AP", "AP marker", "MR", "MR marker"]
    assert read["system"].tolist() == ["bm25", "bm25_rm3%", "weak", "noise"]
    assert read["AP marker"].tolist() == ["", BETTER, WORSE, ""]
    assert read["AP"].tolist() == pytest.approx(table.values["AP"].tolist(), rel=1e-15)
    letters = pd.read_csv(io.StringIO(to_csv(summary_table(compare_systems(frame), frame))), keep_default_na=False)
    assert letters["letter"].tolist() == ["a", "b", "c", "d"]


def test_text(frame):
    text = to_text(summary_table(compare_systems(frame, baseline="bm25"), aggregate(frame)))
    lines = text.splitlines()
    assert lines[0].split() == ["System", "AP", "MR"]
    assert lines[1].startswith("bm25 (baseline)")
    assert f"0.4820{BETTER}" in lines[2]
    assert "significantly better / worse than the baseline bm25" in text


def test_summary_errors(frame):
    comparison = compare_systems(frame)
    with pytest.raises(ValidationError, match="Comparison"):
        summary_table(comparison.frame, aggregate(frame))
    with pytest.raises(ValidationError, match="baseline 'zzz'"):
        summary_table(comparison, aggregate(frame), baseline="zzz")
    with pytest.raises(ValidationError, match="missing"):
        summary_table(comparison, aggregate(frame).drop(columns="value"))
    with pytest.raises(ValidationError, match="SummaryTable"):
        to_latex(comparison)
    with pytest.raises(ValidationError, match="style"):
        summary_table(comparison, aggregate(frame)).caption("html")
    with pytest.raises(ValidationError, match="digits"):
        summary_table(comparison, aggregate(frame), digits=13)
    with pytest.raises(ValidationError, match="more than one value"):
        summary_table(None, pd.concat([aggregate(frame), aggregate(frame)]))


# ---- structure, intervals, Markdown ---------------------------------------------------------------------------

HOSTILE = ["bm25_rm3%", "a&b #1 {x} ~^\\", "\\textbf{x} $y$ <z>|"]
_LATEX_COMMANDS = {"textbf", "textbackslash", "textasciitilde", "textasciicircum", "textless", "textgreater",
                   "textbar", "begin", "end", "toprule", "midrule", "bottomrule", "caption", "label", "centering",
                   "texttt", "dagger", "ddagger", "mathrm", "scriptsize", "alpha", "usepackage"}


def assert_sound_latex(text: str, columns: int | None = None) -> None:
    """Balanced braces, matching environments, paired ``$``, known commands only, and rows of ``columns`` cells."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    assert not re.search(r"(?<!\\)%", body.replace("\\\\", "")), "an unescaped % starts a comment"
    plain = re.sub(r"\\[{}%&_#$]", "", body)
    depth = 0
    for ch in plain:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "a } closes nothing"
    assert depth == 0, "unclosed {"
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", plain):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, f"\\end{{{env}}} does not match"
    assert stack == []
    assert plain.count("$") % 2 == 0
    text_mode = re.sub(r"\$[^$]*\$", "", plain)
    assert not re.findall(r"[_^#~]", text_mode), "special characters outside math mode"
    commands = set(re.findall(r"\\([A-Za-z]+)", plain.replace("\\\\", "")))
    assert commands <= _LATEX_COMMANDS, commands - _LATEX_COMMANDS
    if columns is not None:
        rows = [line for line in body.splitlines() if line.endswith("\\\\") and "&" in line]
        for row in rows:
            outer = re.sub(r"\\begin\{tabular\}.*?\\end\{tabular\}", "cell", row)
            assert len(re.findall(r"(?<!\\)&", outer)) == columns - 1, row


@pytest.fixture
def hostile(frame) -> pd.DataFrame:
    return frame.replace({"system": dict(zip(["bm25_rm3%", "weak", "noise"], HOSTILE))})


@pytest.mark.parametrize("baseline", ["bm25", None])
def test_latex_is_structurally_sound_with_hostile_names(hostile, baseline):
    comparison = compare_systems(hostile, baseline=baseline)
    table = summary_table(comparison, summarise(hostile))
    for ci in (False, True):
        latex = to_latex(table, ci=ci, caption="50% of {topics} & more_x \\", label="tab:a_b")
        assert_sound_latex(latex, columns=3)
        for name in HOSTILE:
            assert name not in latex
            assert latex_escape(name) in latex
        assert r"bm25\_rm3\%" in latex and r"a\&b \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{}" in latex
        assert r"\textbackslash{}textbf\{x\} \$y\$ \textless{}z\textgreater{}\textbar{}" in latex
        assert latex.count(r"\textbf{") == 2  # one best value per measure
        assert (r"\scriptsize" in latex) == ci and ("confidence interval" in latex) == ci


def test_intervals_cells_and_display(frame):
    means = summarise(frame)
    table = summary_table(compare_systems(frame, baseline="bm25"), means)
    assert table.has_ci and table.n_queries == 10
    row = means[(means["system"] == "bm25") & (means["measure"] == "AP")].iloc[0]
    assert table.ci_low.loc["bm25", "AP"] == row["ci_low"] and table.ci_high.loc["bm25", "AP"] == row["ci_high"]
    assert table.interval("bm25", "AP") == f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
    cells = table.cells()
    assert list(cells.columns) == ["system", "measure", "value", "ci_low", "ci_high", "text", "interval", "best",
                                   "marker"]
    assert len(cells) == 8 and cells["best"].sum() == 2
    up = cells[(cells["system"] == "bm25_rm3%") & (cells["measure"] == "AP")].iloc[0]
    assert up["text"] == "0.4820" and up["marker"] == BETTER and up["best"]
    shown = to_frame(table)
    assert shown.loc[1, "AP"] == f"0.4820{BETTER}  {table.interval('bm25_rm3%', 'AP')}"
    assert shown["system"].tolist()[0] == "bm25 (baseline)"
    assert "[" not in to_frame(table, ci=False).loc[1, "AP"]
    text = to_text(table, ci=True)
    assert table.interval("weak", "MR") in text and "In brackets, the 95% confidence interval" in text
    csv = pd.read_csv(io.StringIO(to_csv(table)), keep_default_na=False)
    assert list(csv.columns) == ["system", "AP", "AP ci_low", "AP ci_high", "AP marker", "MR", "MR ci_low",
                                 "MR ci_high", "MR marker"]
    assert csv["AP ci_low"].tolist() == pytest.approx(table.ci_low["AP"].tolist(), rel=1e-15)


def test_markdown(hostile, frame):
    table = summary_table(compare_systems(hostile, baseline="bm25"), summarise(hostile))
    markdown = to_markdown(table, ci=True)
    lines = markdown.splitlines()
    rows = [line for line in lines if line.startswith("|")]
    assert len(rows) == 2 + 4
    assert {len(re.findall(r"(?<!\\)\|", line)) for line in rows} == {4}  # no cell leaks a |
    for name in HOSTILE:
        assert markdown_escape(name) in markdown
    assert f"**0.4820** {BETTER} [" in markdown and WORSE in markdown
    assert lines[-1].startswith("Mean over 10 topics; the best value of each measure is in bold.")
    assert "significantly better / worse than the baseline bm25" in lines[-1]
    letters = to_markdown(summary_table(compare_systems(frame), aggregate(frame)))
    assert "**0.4820**<sup>acd</sup>" in letters and "| (b) bm25\\_rm3% |" in letters


def test_counts_best_values_and_what_was_not_tested():
    frame = per_query({"AP": {"x": [0.5, 0.25, 0.4], "y": [0.5, 0.25, 0.4]},
                       "num_rel_ret": {"x": [3.0, 4.0, 2.0], "y": [1.0, 4.0, 2.0]}})
    table = summary_table(compare_systems(frame, measures=["AP"]), aggregate(frame))
    assert table.text("x", "num_rel_ret") == "9" and table.text("x", "AP") == "0.3833"
    assert not table.best["AP"].any()  # every value ties: none stands out
    assert table.best["num_rel_ret"].tolist() == [True, False]
    caption = table.caption()
    assert "(num_rel_ret: sum over topics)" in caption and "Not tested: num_rel_ret." in caption
    assert "No difference is significant." in caption
    alone = summary_table(None, aggregate(frame[frame["system"] == "x"]))
    assert not alone.best.to_numpy().any() and alone.test is None
    assert alone.caption() == "Mean over 3 topics (num_rel_ret: sum over topics)."


def test_markers_from_a_saved_comparison_table(frame):
    comparison = compare_systems(frame, baseline="bm25")
    markers = baseline_markers(comparison.frame, "bm25")
    assert markers == {("bm25_rm3%", "AP"): "better", ("bm25_rm3%", "MR"): "better",
                       ("weak", "AP"): "worse", ("weak", "MR"): "worse"}
    again = SummaryTable.from_markers(summarise(frame), markers, baseline="bm25", test="t", correction="holm",
                                      alpha=0.05)
    direct = summary_table(comparison, summarise(frame))
    assert again.markers.equals(direct.markers) and again.best.equals(direct.best)
    assert "(paired t-test, Holm-corrected per measure, alpha = 0.05)" in again.caption()
    with pytest.raises(ValidationError, match="^a marker: expected one of 'better', 'worse', found 'up'$"):
        SummaryTable.from_markers(aggregate(frame), {("weak", "AP"): "up"}, baseline="bm25")
    with pytest.raises(ValidationError, match="baseline"):
        SummaryTable.from_markers(aggregate(frame), markers)
    assert baseline_markers(None, "bm25") == {} and baseline_markers(comparison.frame, None) == {}


def test_the_manifest_travels_in_latex_and_markdown(frame):
    from metrics.review.manifest import build_manifest

    manifest = build_manifest(b"1 0 a 1\n", {"x--y": b"1 Q0 a 1 1.0 x\n"}, ["AP"], qrels_name="q--> <!--.txt",
                              file_names={"x--y": "x--y.run"})
    table = summary_table(None, aggregate(frame))
    latex = to_latex(table, manifest=manifest)
    assert_sound_latex(latex)
    comment = [line[2:] for line in latex.splitlines() if line.startswith("% ")][2:]
    assert json.loads("\n".join(comment)) == manifest.to_dict()
    markdown = to_markdown(table, manifest=manifest.to_dict())
    assert markdown.startswith("<!--\n") and markdown.count("-->") == 1 and markdown.count("<!--") == 1
    inner = markdown[5:markdown.index("-->")].splitlines()[1:]
    assert json.loads("\n".join(inner)) == manifest.to_dict()


# ---- the command --------------------------------------------------------------------------------------------


def write_collection(tmp_path, n_queries: int = 25):
    """A qrels file and three runs (good, bm25_rm3%, random) plus one that skips two queries."""
    rng = np.random.default_rng(0)
    qrels, runs = [], {"good": [], "bm25_rm3%": [], "random": [], "partial": []}
    for q in range(1, n_queries + 1):
        docs = [f"d{q}_{i}" for i in range(20)]
        rel = rng.random(20) < 0.3
        rel[0] = True
        qrels += [f"{q} 0 {d} {int(r)}" for d, r in zip(docs, rel)]
        scores = {"good": rel * 2.0 + rng.random(20), "bm25_rm3%": rel * 1.0 + rng.random(20),
                  "random": rng.random(20), "partial": rel * 1.5 + rng.random(20)}
        for name, s in scores.items():
            if name == "partial" and q in (3, 4):
                continue
            order = np.argsort(-s)
            runs[name] += [f"{q} Q0 {docs[i]} {r + 1} {s[i]:.6f} {name}" for r, i in enumerate(order)]
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("\n".join(qrels) + "\n")
    paths = {}
    for name, lines in runs.items():
        paths[name] = tmp_path / f"{name}.run"
        paths[name].write_text("\n".join(lines) + "\n")
    return str(qrels_path), {k: str(v) for k, v in paths.items()}


@pytest.fixture
def collection(tmp_path):
    return write_collection(tmp_path)


def run_cli(capsys, *argv):
    code = main(["compare", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_table(collection, capsys):
    qrels, runs = collection
    code, out, err = run_cli(capsys, qrels, runs["good"], runs["bm25_rm3%"], runs["random"])
    assert code == 0 and err == ""
    assert out.splitlines()[0].split() == ["System", "AP", "nDCG@10"]
    assert "(b) bm25_rm3%" in out and "Superscript letters" in out and "paired t-test" in out
    assert out.count("\nAP ") == 3 and out.count("\nnDCG@10 ") == 3  # three pairs per measure


def test_cli_csv_matches_the_library(collection, capsys):
    from metrics import evaluate

    qrels, runs = collection
    paths = [runs["good"], runs["bm25_rm3%"], runs["random"]]
    code, out, _ = run_cli(capsys, qrels, *paths, "--format", "csv", "--test", "permutation", "--seed", "3",
                           "--resamples", "500", "-m", "AP", "-m", "P@5", "--correction", "bonferroni",
                           "--family", "all")
    assert code == 0
    got = pd.read_csv(io.StringIO(out))
    expected = compare_systems(evaluate(qrels, paths, ["AP", "P@5"]), test="permutation", seed=3, n_resamples=500,
                               correction="bonferroni", family="all").frame
    assert list(got.columns) == list(expected.columns)
    assert got["system_a"].tolist() == ["good", "good", "bm25_rm3%"] * 2
    assert got["measure"].tolist() == ["AP"] * 3 + ["P@5"] * 3
    assert np.allclose(got["p_value"], expected["p_value"], rtol=1e-12)
    assert np.allclose(got["p_adjusted"], np.minimum(1, expected["p_value"] * 6))


def test_cli_is_deterministic_and_seeded(collection, capsys):
    qrels, runs = collection
    argv = [qrels, runs["good"], runs["bm25_rm3%"], runs["random"], "--test", "bootstrap", "--format", "csv",
            "--resamples", "400"]
    first = run_cli(capsys, *argv, "--seed", "1")[1]
    assert run_cli(capsys, *argv, "--seed", "1")[1] == first
    assert run_cli(capsys, *argv, "--seed", "2")[1] != first


def test_cli_latex_with_baseline(collection, capsys):
    qrels, runs = collection
    code, out, _ = run_cli(capsys, qrels, runs["random"], runs["bm25_rm3%"], runs["good"], "--baseline", "random",
                           "--format", "latex", "--test", "wilcoxon")
    assert code == 0
    assert out.startswith(r"% needs \usepackage{booktabs}")
    assert r"bm25\_rm3\%" in out and r"random (baseline)" in out and r"$^{\dagger}$" in out
    assert r"\texttt{random}" in out


def test_cli_json(collection, capsys):
    qrels, runs = collection
    code, out, _ = run_cli(capsys, qrels, runs["good"], runs["random"], "--format", "json", "--test", "tukey")
    assert code == 0
    doc = json.loads(out)
    assert doc["settings"]["test"] == "tukey" and doc["settings"]["systems"] == ["good", "random"]
    assert len(doc["comparisons"]) == 2 and len(doc["means"]) == 4
    assert {"system_a", "system_b", "p_value", "p_adjusted", "significant"} <= set(doc["comparisons"][0])


def test_cli_manifest_style_command_line(collection, capsys):
    qrels, runs = collection
    code, out, _ = run_cli(capsys, "--compat", "trec_eval-9", "-l", "1", "-m", "AP", "--test", "t",
                           "--correction", "holm", "--alpha", "0.05", "--seed", "0", "--resamples", "100",
                           "--baseline", "good", qrels, runs["good"], runs["random"])
    assert code == 0 and "good (baseline)" in out


def test_cli_query_mismatch_needs_c(collection, capsys):
    qrels, runs = collection
    code, out, err = run_cli(capsys, qrels, runs["good"], runs["partial"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rankscope compare: ")
    assert "'partial' has no AP value for ['3', '4']" in err and "-c" in err
    code, out, _ = run_cli(capsys, qrels, runs["good"], runs["partial"], "-c")
    assert code == 0


def test_cli_errors(collection, capsys):
    qrels, runs = collection
    code, _, err = run_cli(capsys, qrels, runs["good"], runs["random"], "--baseline", "nope")
    assert code == 2 and "baseline 'nope' is not one of the systems" in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, qrels, runs["good"])
    assert code == 2 and "at least two runs" in err
    code, _, err = run_cli(capsys, qrels, runs["good"], runs["random"], "--alpha", "2")
    assert code == 2 and "alpha" in err


def test_cli_in_a_real_process(collection):
    qrels, runs = collection
    proc = subprocess.run([sys.executable, "-m", "rankscope.cli", "compare", qrels, runs["good"], runs["random"],
                           "--format", "csv", "-m", "AP"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert pd.read_csv(io.StringIO(proc.stdout)).shape == (1, 19)
    bad = subprocess.run([sys.executable, "-m", "rankscope.cli", "compare", qrels, runs["good"], runs["partial"]],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
