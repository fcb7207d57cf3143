"""A judging task's judgments taken away: the report's zip holds every set as TREC qrels that read back equal to
the judgments stored (each assessor's, merged by the task's rule, adjudicated) and the table with assessor and
time; the session file round-trips them; the report has a judging section with the task's numbers; the judges
and report pages offer them."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from dashboard.session.typed_name import NAME_KEY  # noqa: E402
from tests.dashboard.conftest import errors, open_page, unescaped  # noqa: E402
from tests.dashboard.judged_runs import QRELS, run_bytes  # noqa: E402

ORDERS = {"a": "d1 d2 d3 d4 d5", "b": "d5 d4 d3 d2 d1"}


@pytest.fixture
def judged(ws):
    """A task two assessors judged, every document twice, one disagreement adjudicated."""
    from workspace.dealing import next_for
    from workspace.judging import Judging

    info = ws.add_collection("judged", qrels=("nist.qrels", QRELS),
                             runs=[(f"{n}.run", run_bytes(n, o)) for n, o in ORDERS.items()], author="owner")
    judging = Judging(ws)
    task = judging.start(info.id, method="decide", name="week <1>", assessors=["ann", "bob"], overlap=1.0, depth=5,
                         author="owner", options={"measure": "P@3"}, scale="0=no,1=yes,2=very")
    for who, grade in (("ann", 2), ("bob", 0), ("ann", 1), ("bob", 1), ("ann", 0), ("bob", 0)):
        deal = next_for(ws, task.id, who)
        judging.judge(task.id, deal.topic, deal.docid, grade, assessor=who)
    rows = judging.judgments(task.id)
    first = rows.groupby(["topic", "docid"])["grade"].agg(["min", "max"]).query("min < max").index[0]
    judging.adjudicate(task.id, *first, 2, author="owner")
    return info, judging.task(task.id), judging


def _record(ws, monkeypatch, task):
    from dashboard.data import judging as data
    from dashboard.store import opened

    monkeypatch.setattr(opened, "store", lambda: ws)
    return data.record(task)


def _files(ws, monkeypatch, task):
    from dashboard.report import report_files
    from metrics.review.report import compute_report

    made = compute_report(QRELS, {n: run_bytes(n, o) for n, o in ORDERS.items()}, ["P@3"])
    record = _record(ws, monkeypatch, task)
    return record, report_files(made, images=False, judging=[record])


def _read(data: bytes) -> set:
    from metrics import read_qrels

    frame = read_qrels(data, name="q").frame
    return {(str(q), str(d), int(r)) for q, d, r in frame[["query", "docid", "relevance"]].itertuples(index=False)}


def test_the_exported_qrels_read_back_equal_the_stored_judgments(ws, judged, monkeypatch):
    _, task, judging = judged
    _, files = _files(ws, monkeypatch, task)
    rows = judging.judgments(task.id)
    graded = rows[rows["grade"].notna()]
    for who in ("ann", "bob"):
        mine = graded[graded["assessor"] == who]
        assert _read(files[f"judgments/week-1-{who}.qrels"]) == {(t, d, int(g)) for t, d, g in
                                                                 mine[["topic", "docid", "grade"]].values}
    reference = _read(QRELS)
    lower = graded.groupby(["topic", "docid"])["grade"].min()  # the task's rule: the lower of two grades
    task_grades = {(t, d): int(g) for (t, d), g in lower.items()}
    merged = {(t, d, g) for t, d, g in reference if (t, d) not in task_grades} | {(t, d, g) for (t, d), g in
                                                                                  task_grades.items()}
    assert _read(files["judgments/week-1-merged.qrels"]) == merged
    decided = judging.adjudications(task.id)
    (t, d, g), = decided[["topic", "docid", "grade"]].values.tolist()
    assert _read(files["judgments/week-1-adjudicated.qrels"]) == (merged - {(t, d, task_grades[(t, d)])}) | {(t, d, g)}
    table = pd.read_csv(__import__("io").BytesIO(files["judgments/week-1.csv"]), dtype=str, keep_default_na=False)
    assert list(table.columns) == ["topic", "docid", "assessor", "grade", "label", "skipped", "judged_at"]
    assert sorted(zip(table["topic"], table["docid"], table["assessor"], table["grade"], table["judged_at"])) == sorted(
        (t, d, a, str(int(g)), at) for t, d, a, g, at in rows[["topic", "docid", "assessor", "grade", "judged_at"]]
        .itertuples(index=False))
    assert set(table["label"]) <= {"no", "yes", "very"}


def test_the_session_file_round_trips_the_judgments_and_refuses_a_wrong_one_by_its_path(ws, judged, monkeypatch):
    import json

    from dashboard.exports.session_file import session_from_json
    from metrics.errors import ValidationError

    _, task, judging = judged
    _, files = _files(ws, monkeypatch, task)
    (read,) = session_from_json(files["session.json"]).judging
    rows = judging.judgments(task.id)
    assert (read["task"], read["method"]) == ("week <1>", "decide")
    assert [(s["grade"], s["label"]) for s in read["scale"]] == [(0, "no"), (1, "yes"), (2, "very")]
    assert sorted((j["topic"], j["docid"], j["assessor"], j["grade"], j["skipped"], j["judged_at"])
                  for j in read["judgments"]) == sorted(
        (t, d, a, int(g), bool(s), at) for t, d, a, g, s, at in
        rows[["topic", "docid", "assessor", "grade", "skipped", "judged_at"]].itertuples(index=False))
    decided = judging.adjudications(task.id)
    assert [(j["topic"], j["docid"], j["grade"], j["decided_by"]) for j in read["adjudications"]] == \
        [tuple(r) for r in decided[["topic", "docid", "grade", "decided_by"]].values.tolist()]
    document = json.loads(files["session.json"])
    document["judging"][0]["judgments"][3]["grade"] = 12
    with pytest.raises(ValidationError, match=r"^judging\[0\]\.judgments\[3\]\.grade: expected an integer from 0 "
                                              r"to 9 or null, found 12$"):
        session_from_json(json.dumps(document))


def test_the_report_has_the_judging_section_with_the_tasks_numbers(ws, judged, monkeypatch):
    import krippendorff
    import numpy as np

    _, task, judging = judged
    record, files = _files(ws, monkeypatch, task)
    html = files["report.html"].decode()
    assert '<section id="judging"><h2>Judging</h2>' in html and '<li><a href="#judging">Judging</a></li>' in html
    assert "<h3 id=\"judging-0\">week &lt;1&gt;</h3>" in html and "week <1>" not in html
    rows = judging.judgments(task.id)
    wide = rows.pivot(index="assessor", columns=["topic", "docid"], values="grade").to_numpy(dtype=float)
    alpha = krippendorff.alpha(reliability_data=wide, level_of_measurement="ordinal")
    assert record.agreement["alpha"] == pytest.approx(alpha, abs=1e-12)
    assert f"on the documents judged twice: {alpha:.4f}." in html
    assert record.agreement["twice"] == 3 and record.counts["judgments"] == 6
    for p in record.conclusion["pairs"].itertuples(index=False):
        assert f"<td>{p.better}</td><td>{p.worse}</td><td class=\"num\">{p.probability:.4f}</td>" in html
    assert np.isfinite(record.conclusion["pairs"]["probability"]).all()


def test_the_command_lines_report_of_the_collection_has_the_same_section_and_files(ws, judged, monkeypatch, tmp_path):
    """``rankscope report --collection``: the judging section and the sets' files of the page's report, from the
    same record."""
    from rankscope.cli import main

    info, task, _ = judged
    record, files = _files(ws, monkeypatch, task)
    out, exports = tmp_path / "report.html", tmp_path / "exports"
    assert main(["report", "--collection", info.id, "--workspace", str(tmp_path / "workspace"), "-m", "P@3",
                 "-o", str(out), "--exports", str(exports), "--no-images"]) == 0
    html = out.read_text()
    section = html[html.index('<section id="judging">'):]
    section = section[:section.index("</section>")]
    page = files["report.html"].decode()
    assert section == page[page.index('<section id="judging">'):][:len(section)]
    written = {name: data for name, data in files.items() if name.startswith("judgments/")}
    assert any(name.endswith(".qrels") for name in written) and any(name.endswith(".csv") for name in written)
    for name, data in written.items():
        assert (exports / name).read_bytes() == data, name


def test_the_judges_and_report_pages_offer_them(ws, judged):
    info, task, _ = judged
    judges = open_page("judges", {"collection": info.id}, session={NAME_KEY: "owner"})
    assert errors(judges) == []
    labels = [unescaped(b.proto.label) for b in judges.get("download_button")]
    assert "Judgments: every set as qrels, and the table (zip)" in labels and "Judgments table (CSV)" in labels
    report = open_page("report", {"collection": info.id}, session={NAME_KEY: "owner"})
    assert errors(report) == []
