"""The data page's "ir_datasets id" field (AppTest) and a collection made from an id in the workspace: qrels
and topics read from a real ir_datasets store built at run time (``tests/irds_store.py``), the dataset's
relevance level applied and said, and every id that cannot be loaded one line on the page, without the
network."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")

from rankscope.cli import main  # noqa: E402
from tests.dashboard.conftest import errors, open_page, upload  # noqa: E402
from tests.dashboard.conftest import ws  # noqa: E402,F401 (fixture)
from tests.irds_store import CRANFIELD, irds_home, no_network  # noqa: E402,F401 (fixtures)

RUN = b"1 Q0 184 1 3.0 r\n1 Q0 29 2 2.0 r\n1 Q0 5 3 1.0 r\n2 Q0 12 1 1.0 r\n"


def load(at, typed: str):
    at.text_input(key="data_irds").input(typed)
    next(b for b in at.button if b.proto.label == "Load").click()
    at.run()
    return at


def captions(at) -> str:
    return " ".join(c.value for c in at.caption).replace("\\", "")


def test_an_id_loads_qrels_topics_and_the_datasets_relevance_level(irds_home, no_network):
    at = load(open_page("data"), "cranfield")
    assert errors(at) == []
    shown = captions(at)
    assert "Qrels from ir_datasets: irds:cranfield." in shown
    assert "relevance level 1: the lowest positive grade of ir_datasets' grade definitions for cranfield" in shown
    assert "Topics: irds:cranfield.topics.tsv, 225 query texts." in shown
    upload(at, "Runs", [("r.run", RUN, "text/plain")])
    assert errors(at) == []
    assert {m.label: m.value for m in at.metric}["Topics judged"] == "225"
    assert {m.label: m.value for m in at.metric}["Judgments"] == "1,837"
    # the person's own level overrides the dataset's, and the caption says which applies
    at.number_input(key="data_level").set_value(3)
    at.run()
    assert "Relevant from grade 3 (set under Conventions); the dataset's: relevance level 1" in captions(at)
    assert not no_network


@pytest.mark.parametrize("typed, expected", [
    ("../../etc/passwd", "irds:: expected an ir_datasets id such as 'cranfield'"),
    ("/root/.ir_datasets/cranfield", "irds:: expected an ir_datasets id"),
    ("<b>cranfield</b>", "irds:: expected an ir_datasets id"),
    ("no-such-dataset", "irds:no-such-dataset: no such dataset in ir_datasets "),
    ("trec-robust04", "irds:trec-robust04: the local ir_datasets store has no "),
])
def test_an_id_that_cannot_be_loaded_is_one_line_and_keeps_the_collection(irds_home, no_network, typed, expected):
    at = load(open_page("data"), typed)
    assert [e.value for e in at.exception] == []
    shown = errors(at)
    assert len(shown) == 1 and shown[0].startswith(expected) and "\n" not in shown[0], shown
    assert {m.label: m.value for m in at.metric}["Systems"] == "6"  # the demo is still loaded
    if typed == "trec-robust04":  # names the file, where it goes and where it comes from, never fetched
        assert "trec-robust04/qrels (ir_datasets downloads it from https://trec.nist.gov/" in shown[0]
        assert "trec-robust04/queries.gz (ir_datasets downloads it from https://trec.nist.gov/" in shown[0]
    assert not no_network


def test_a_collection_from_an_id_keeps_its_qrels_and_source_in_the_workspace(irds_home, ws, tmp_path, capsys,
                                                                            no_network):
    from metrics.io.irds import dataset_qrels_bytes, load_topics
    from metrics.io.writers import topics_bytes

    run = tmp_path / "r.run"
    run.write_bytes(RUN)
    assert main(["workspace", "add", "irds:cranfield", str(run), "--workspace", str(tmp_path / "workspace")]) == 0
    cid = capsys.readouterr().out.strip()
    stored = ws.load(cid)
    assert stored.qrels.name == "irds:cranfield"  # the source id, recorded as the file's name
    assert stored.qrels.read() == dataset_qrels_bytes("irds:cranfield")  # stored like an uploaded file
    assert stored.topics.read() == topics_bytes(load_topics("irds:cranfield"))
    assert stored.conventions["relevance_level"] == 1
    judged = {tuple(line.split()[::2]) for line in (CRANFIELD / "cranqrel").read_text().split("\n") if line.strip()}
    assert {(q, g) for q, _, _, g in (l.split() for l in stored.qrels.read().decode().splitlines())} == \
        {(q, g) for q, g in judged}
    at = open_page("data", {"collection": cid})  # opened again: the page says where the qrels came from
    assert errors(at) == []
    assert "Qrels from ir_datasets: irds:cranfield." in captions(at)
    assert not no_network


def test_an_id_loaded_on_the_data_page_is_stored_like_an_upload(irds_home, ws, no_network):
    from metrics.io.irds import dataset_qrels_bytes

    at = open_page("data", session={"rankscope_author": "bea"})
    load(at, "vaswani")
    upload(at, "Runs", [("r.run", b"1 Q0 1239 1 2.0 r\n1 Q0 7 2 1.0 r\n2 Q0 5 1 1.0 r\n", "text/plain")])
    at.run()
    assert errors(at) == []
    cid = at.session_state["rankscope_loaded"].collection
    assert cid and at.query_params["collection"] == cid
    held = ws.load(cid)
    assert held.qrels.name == "irds:vaswani" and held.qrels.read() == dataset_qrels_bytes("irds:vaswani")
    assert held.topics.name == "irds:vaswani.topics.tsv" and held.topics.read().startswith(b"1\tMEASUREMENT OF")
    assert held.info.systems == ("r",) and held.info.topics == 93
    assert not no_network
