"""A run's ir_metadata block in the manifest, the HTML report and the data page: shown, and escaped."""

from __future__ import annotations

import html
import json

import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")

from metrics.review.manifest import Manifest  # noqa: E402
from metrics.review.report import compute_report  # noqa: E402

from dashboard.report import build_report  # noqa: E402

HOSTILE = '<img src=x onerror="alert(1)">**bold** [link](http://x.invalid) </script>'
QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 1\n3 0 e 1\n"
RANKING = "1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 2 x\n2 Q0 d 2 1 x\n3 Q0 e 1 1 x\n"
PLAIN = b"1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n2 Q0 d 1 2 y\n2 Q0 c 2 1 y\n3 Q0 z 1 1 y\n"


def annotated() -> bytes:
    """A run with a block whose strings try to be markup (YAML single quotes keep them plain)."""
    quoted = "'" + HOSTILE.replace("'", "''") + "'"
    return ("# ir_metadata.start\n# tag: x\n# actor:\n#   team: " + quoted + "\n#   fields:\n#   - ir\n"
            "# method:\n#   automatic: true\n# ir_metadata.end\n" + RANKING).encode()


def test_manifest_carries_the_block_and_reads_it_back():
    data = compute_report(QRELS, {"described": annotated(), "plain": PLAIN}, ["AP"])
    described, plain = data.manifest.runs
    assert described.ir_metadata == {"tag": "x", "actor": {"team": HOSTILE, "fields": ["ir"]},
                                      "method": {"automatic": True}}
    assert plain.ir_metadata is None
    document = json.loads(data.manifest.to_json())
    assert document["runs"][0]["ir_metadata"]["actor"]["team"] == HOSTILE
    assert "ir_metadata" not in document["runs"][1]
    assert Manifest.from_dict(document).runs[0].ir_metadata == described.ir_metadata


def test_manifest_refuses_a_malformed_block():
    from metrics import ValidationError

    document = json.loads(compute_report(QRELS, {"described": annotated()}, ["AP"]).manifest.to_json())
    document["runs"][0]["ir_metadata"] = {"tag": {"x": object.__name__, "y": [1, {"z": set()}]}}
    with pytest.raises(ValidationError, match=r"runs\[0\]\.ir_metadata\.tag\.y\[1\]\.z"):
        Manifest.from_dict(document)


def test_report_shows_the_block_escaped():
    text = build_report(QRELS, {"described": annotated(), "plain": PLAIN}, ["AP"])
    assert "How the runs were made" in text
    assert HOSTILE not in text
    assert f"<td>{html.escape(HOSTILE)}</td>" in text
    assert "<td>actor › team</td>" in text and "<td>method › automatic</td><td>true</td>" in text


def test_data_page_shows_each_runs_block_as_plain_data():
    pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
    import re

    from tests.dashboard.conftest import errors, open_page, upload

    at = open_page("data")
    upload(at, "Qrels", ("q.qrels", QRELS, "text/plain"))
    upload(at, "Runs", [("**described**.run", annotated(), "text/plain"), ("plain.run", PLAIN, "text/plain")])
    assert errors(at) == []
    assert any(s.value == "How the runs were made" for s in at.subheader)
    tables = [frame.value for frame in at.dataframe if list(frame.value.columns) == ["key", "value"]]
    assert len(tables) == 1  # the described run's; the other says it has none
    shown = dict(zip(tables[0]["key"], tables[0]["value"]))
    assert shown == {"tag": "x", "actor › team": HOSTILE, "actor › fields": "ir", "method › automatic": "true"}
    assert any(c.value == "No ir_metadata block in this run's file." for c in at.caption)
    names = [m.value for m in at.markdown if "described" in m.value]
    assert names == [r"**\*\*described\*\***"]  # the system's name, as text in our bold
    for element in [*at.markdown, *at.caption, *at.info, *at.error, *at.warning]:
        assert not getattr(element.proto, "allow_html", False)
        assert not re.search(r"(?<!\\)<img", element.value)
        assert "onerror" not in element.value
