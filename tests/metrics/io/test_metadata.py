"""The ir_metadata block of a run: read back as repro_eval writes it, refused in one line when malformed."""

from __future__ import annotations

import re

import pytest

from metrics.errors import ParseError
from metrics.io import read_run
from metrics.io.metadata import MAX_BLOCK_BYTES, find_metadata, metadata_yaml
from tests.metrics.io.metadata_cases import FULL, RANKING, annotated_run, repro_metadata


@pytest.mark.parametrize("metadata", [FULL, {"tag": "bm25"}, {"tag": "x <script>alert(1)</script> **bold**",
                                                              "actor": {"name": "Zoë «quoted» 'name'"}}])
def test_repro_eval_block_reads_back_equal(tmp_path, metadata):
    path = annotated_run(tmp_path, metadata)
    run = read_run(path)
    assert run.metadata == metadata
    assert run.metadata == repro_metadata.MetadataHandler.read_metadata(path)  # repro_eval's own reader agrees


@pytest.mark.parametrize("ahead", [False, True], ids=["checks first", "parse started early"])
def test_ranking_is_the_same_with_and_without_block(tmp_path, ahead, monkeypatch):
    import metrics.io.parsing

    monkeypatch.setattr(metrics.io.parsing, "AHEAD_BYTES", 0 if ahead else 1 << 40)
    with_block, without = read_run(annotated_run(tmp_path, FULL)), read_run(RANKING.encode(), name="bm25")
    assert with_block.table.equals(without.table)
    assert with_block.tag == without.tag == "bm25"
    assert without.metadata is None
    assert with_block.renamed("other").metadata == FULL


def test_yaml_text_round_trips():
    import yaml

    assert yaml.safe_load(metadata_yaml(FULL)) == FULL
    assert list(yaml.safe_load(metadata_yaml(FULL))) == list(FULL)  # the file's order, not sorted


def _block(*lines: str, after: str = RANKING) -> bytes:
    return ("# ir_metadata.start\n" + "".join(f"# {line}\n" for line in lines) + "# ir_metadata.end\n"
            + after).encode()


MALFORMED = {
    "unterminated": (("# ir_metadata.start\n# tag: bm25\n" + RANKING).encode(), 3, '"# ir_metadata.end" to close'),
    "unterminated at end of file": (b"# ir_metadata.start\n# tag: bm25\n", 1, "found the end of the file"),
    "bad yaml": (_block("tag: [bm25"), 2, "expected YAML"),
    "wrong type, boolean": (_block("tag: bm25", "method:", "  automatic: sometimes"), 4,
                            "ir_metadata.method.automatic: expected true or false, found 'sometimes'"),
    "wrong type, mapping": (_block("actor: bob"), 2, "ir_metadata.actor: expected a mapping, found 'bob'"),
    "wrong type, sequence item": (_block("actor:", "  fields:", "  - ir", "  - {a: 1}"), 5,
                                  "ir_metadata.actor.fields[1]: expected a scalar, found a mapping of 1 key"),
    "wrong type, scalar": (_block("tag: [a, b]"), 2, "ir_metadata.tag: expected a scalar, found ['a', 'b']"),
    "unknown top-level key": (_block("tag: a", "colour: red"), 3,
                              "ir_metadata.colour: expected one of the fields schema-version, run-version, tag, "
                              "platform, research goal, implementation, method, actor, data, found an unknown field"),
    "not a mapping": (_block("- a"), 2, "ir_metadata: expected a mapping of PRIMAD components, found ['a']"),
    "key twice": (_block("tag: a", "tag: b"), 3, 'found "tag" again'),
    "alias": (_block("tag: &t a", "run-version: *t"), 3, "an alias"),
    "nested too deep": (_block("tag: " + "[" * 5000), 2, "at most 32 levels of nesting"),
    "python tag": (_block("tag: !!python/object/apply:os.system [ls]"), 2, "expected plain YAML"),
    "past the cap": (_block(*(f"k{i}: {i}" for i in range(MAX_BLOCK_BYTES // 8))), 1, "at most 64 KB"),
    "not at the top": (("301 Q0 d1 1 2.5 bm25\n# ir_metadata.start\n# tag: x\n# ir_metadata.end\n").encode(), 2,
                       "at the top of the file (line 1)"),
    "not UTF-8": (b"# ir_metadata.start\n# tag: \xff\n# ir_metadata.end\n" + RANKING.encode(), 2, "byte 0xff"),
}


@pytest.mark.parametrize("ahead", [False, True], ids=["checks first", "parse started early"])
@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_block_is_one_line(case, ahead, monkeypatch):
    # the same answer whether the file's parse started before its checks (as on a large file) or not
    import metrics.io.parsing

    monkeypatch.setattr(metrics.io.parsing, "AHEAD_BYTES", 0 if ahead else 1 << 40)
    data, line, words = MALFORMED[case]
    with pytest.raises(ParseError) as caught:
        read_run(data, name="bad.run")
    message = str(caught.value)
    assert "\n" not in message
    assert re.match(f"bad.run:{line}: (ir_metadata[^:]*: )?expected", message), message
    assert words in message
    assert caught.value.line == line


def test_block_past_the_cap_reads_only_the_cap():
    huge = b"# ir_metadata.start\n" + b"# " + b"x" * (MAX_BLOCK_BYTES * 64) + b"\n"
    with pytest.raises(ParseError, match="at most 64 KB"):
        find_metadata(huge, "big.run")


def test_empty_block_and_plain_comments():
    assert find_metadata(_block(), "r") is None
    assert read_run(b"# a comment\n" + RANKING.encode(), name="r").metadata is None
    assert find_metadata(_block("tag: x", "platform:"), "r") == {"tag": "x", "platform": None}


def test_crlf_and_dates():
    data = _block("tag: bm25", "run-version: 2019-01-02", "research goal:", "  venue:", "    year: 2019")
    meta = find_metadata(data.replace(b"\n", b"\r\n"), "r")
    assert meta == {"tag": "bm25", "run-version": "2019-01-02", "research goal": {"venue": {"year": 2019}}}


def test_credentials_in_a_location_are_masked_as_read():
    meta = find_metadata(_block("implementation:", "  source:", "    repository: https://me:tok3n@git.example.invalid/r"),
                         "r")
    assert meta["implementation"]["source"]["repository"] == "https://***@git.example.invalid/r"


def test_cli_meta_prints_yaml_json_or_one_line(tmp_path, capsys):
    import json

    import yaml

    from rankscope.cli import main

    path = annotated_run(tmp_path, FULL)
    assert main(["meta", path]) == 0
    assert yaml.safe_load(capsys.readouterr().out) == FULL
    assert main(["meta", "--format", "json", path]) == 0
    assert json.loads(capsys.readouterr().out) == FULL
    plain = tmp_path / "plain.run"
    plain.write_text(RANKING)
    assert main(["meta", str(plain)]) == 0
    assert capsys.readouterr().out == f"{plain}: no ir_metadata block\n"
    bad = tmp_path / "bad.run"
    bad.write_bytes(MALFORMED["wrong type, mapping"][0])
    assert main(["meta", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().count("\n") == 0
    assert "bad.run:2: ir_metadata.actor: expected a mapping, found 'bob'" in captured.err
    assert main(["meta", str(tmp_path / "missing.run")]) == 2
    assert "missing.run" in capsys.readouterr().err


def test_any_block_gives_data_or_one_line():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    pieces = st.sampled_from(["tag:", " x", "\n# ", "\n", "[", "]", "{", "}", "- ", ": ", "&a ", "*a", "!!str ",
                              "!!python/name:os.system", "'", '"', "actor:", "\n#   ", "method:", "automatic: ",
                              "yes", "1e9", "2019-13-45", "\t", "\r", "# ir_metadata.end", "\u2028", "%YAML 1.1\n"])

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(pieces, max_size=40))
    def check(parts):
        data = ("# ir_metadata.start\n# " + "".join(parts) + "\n# ir_metadata.end\n" + RANKING).encode()
        try:
            found = find_metadata(data, "r.run")
        except ParseError as err:
            assert "\n" not in str(err) and str(err).startswith("r.run:")
        else:
            assert found is None or isinstance(found, dict)

    check()
