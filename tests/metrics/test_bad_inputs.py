"""The bad-input corpus (tests/data/bad/): each file's exact message, from the readers and from the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from metrics import ParseError, evaluate, lint, read_qrels, read_run
from metrics.cli import main

BAD = Path(__file__).resolve().parents[1] / "data" / "bad"
GOOD_QRELS = "301 0 FT934-5418 1\n301 0 LA052390-0123 0\n302 0 FBIS3-10082 2\n"
RUN_LAYOUT = '"qid Q0 docid rank score tag"'

ERRORS = {
    "truncated_line.run": f'truncated_line.run:4: expected 6 fields {RUN_LAYOUT}, found 4',
    "missing_field.run": f"missing_field.run:2: expected 6 fields {RUN_LAYOUT}, found 5",
    "utf16.run": "utf16.run: expected UTF-8 text, found UTF-16 (save the file as UTF-8)",
    "latin1_docid.run": "latin1_docid.run:2: expected UTF-8 text, found byte 0xe9",
    "nul_byte.run": "nul_byte.run:2: expected text, found a NUL byte (binary file?)",
    "png_image.run": "png_image.run: expected a text file, found a PNG image",
    "empty.run": f"empty.run: empty file: expected lines {RUN_LAYOUT}",
    "only_comments.run": f"only_comments.run: no data lines: expected lines {RUN_LAYOUT}",
    "score_nan.run": 'score_nan.run:2: expected a finite number in field 5 "score", found "nan"',
    "score_inf.run": 'score_inf.run:1: expected a finite number in field 5 "score", found "inf"',
    "score_1e999.run": 'score_1e999.run:2: expected a finite number in field 5 "score", found "1e999"',
    "score_empty.run": f"score_empty.run:1: expected 6 fields {RUN_LAYOUT}, found 5",
    "score_hex.run": 'score_hex.run:1: expected a finite number in field 5 "score", found "0x1p3"',
    "score_comma.run": 'score_comma.run:1: expected a finite number in field 5 "score", found "12,5"',
    "duplicate_doc.run": 'duplicate_doc.run:3: duplicate document "FT934-5418" for query "301" (first on line 1); '
                         "trec_eval rejects duplicates — remove one, or choose to keep the first, last or max",
    "qrels_given_as.run": f"qrels_given_as.run:1: expected 6 fields {RUN_LAYOUT}, found 4 — this looks like a "
                          'qrels file ("qid iter docid rel"); give it as the qrels',
    "fractional_grade.qrels": 'fractional_grade.qrels:2: expected an integer relevance grade in field 4, found "1.5"',
    "duplicate_doc.qrels": 'duplicate_doc.qrels:3: duplicate document "FT934-5418" for query "301" (first on line 1); '
                           "trec_eval rejects duplicates — remove one, or choose to keep the first, last or max",
    "run_given_as.qrels": 'run_given_as.qrels:1: expected 4 fields "qid iter docid rel", found 6 — this looks like '
                          'a run file ("qid Q0 docid rank score tag"); give it as a run',
    "five_fields.qrels": 'five_fields.qrels:1: expected 4 fields "qid iter docid rel", found 5',
}
# legal input: number of rows read
LEGAL = {
    "extra_fields.run": 2, "mixed_whitespace.run": 2, "crlf.run": 3, "bom.run": 3, "comments_and_blanks.run": 3,
    "exotic_scores.run": 6, "negative_grades.qrels": 3, "one_topic.run": 1, "disjoint_topics.run": 1,
    "hostile_docids.run": 4, "ties_100k.run.gz": 100_000, "long_line.run.gz": 1, "gzip_not_named_gz.run": 3,
}


def read(path: Path):
    return read_qrels(path) if path.suffix == ".qrels" else read_run(path)


def test_every_corpus_file_is_covered():
    files = {p.name for p in BAD.iterdir() if p.name != "make.py"}
    assert files == set(ERRORS) | set(LEGAL)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_reader_message(name):
    with pytest.raises(ParseError) as info:
        read(BAD / name)
    assert str(info.value) == ERRORS[name]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_reader_message_from_bytes_names_the_upload(name):
    with pytest.raises(ParseError) as info:
        (read_qrels if name.endswith(".qrels") else read_run)((BAD / name).read_bytes(), name=name)
    assert str(info.value) == ERRORS[name]


@pytest.mark.parametrize("name", sorted(LEGAL))
def test_legal_input_reads(name):
    assert len(read(BAD / name)) == LEGAL[name]


@pytest.mark.parametrize("name", sorted(n for n in ERRORS if n.endswith(".run")))
def test_cli_exits_2_with_one_line(name, tmp_path, capsys):
    qrels = tmp_path / "q.qrels"
    qrels.write_text(GOOD_QRELS)
    assert main(["eval", str(qrels), str(BAD / name)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"rankscope eval: {ERRORS[name]}\n"


@pytest.mark.parametrize("name", sorted(n for n in ERRORS if n.endswith(".qrels")))
def test_cli_bad_qrels(name, capsys):
    assert main(["eval", str(BAD / name), str(BAD / "one_topic.run")]) == 2
    assert capsys.readouterr().err == f"rankscope eval: {ERRORS[name]}\n"


def test_cli_in_a_real_process_prints_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "metrics.cli", "eval", str(BAD / "duplicate_doc.qrels"),
                           str(BAD / "one_topic.run")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_legal_oddities_evaluate_like_the_clean_file():
    clean = evaluate(GOOD_QRELS, {"s": BAD / "bom.run"}, ["map", "ndcg", "P_5"])
    for name in ("crlf.run", "comments_and_blanks.run", "gzip_not_named_gz.run"):
        other = evaluate(GOOD_QRELS, {"s": BAD / name}, ["map", "ndcg", "P_5"])
        assert other.equals(clean), name


def test_hostile_doc_ids_are_kept_verbatim():
    run = read_run(BAD / "hostile_docids.run")
    assert run.table.column("docid").to_pylist() == [
        "<script>alert(1)</script>", '"quoted"', "$(rm${IFS}-rf)`id`;|&>", "'--><img/src=x>"]


def test_disjoint_topics_evaluate_to_nothing_and_lint_says_why():
    qrels = read_qrels(GOOD_QRELS)
    run = read_run(BAD / "disjoint_topics.run")
    assert evaluate(qrels, run, ["map"]).empty
    codes = {item.code for item in lint(qrels, [run])}
    assert {"run-topics-not-judged", "judged-topics-not-in-run"} <= codes


def test_ties_are_reported_with_straddles():
    qrels = read_qrels("301 0 D5 1\n")
    items = {i.code: i for i in lint(qrels, [read_run(BAD / "ties_100k.run.gz")])}
    assert items["tied-scores"].count == 100_000
    assert "@5: 1, @10: 1, @20: 1" in items["tied-scores"].message
