"""The conclusion firming up on the overview and trust pages, headless (AppTest): shown only for a collection with
a judging task, each pair's probability the one a decision computed afresh from the stored judgments gives, before
and after new judgments arrive; Judged@10 before the task and now as computed from the runs."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
pytest.importorskip("sqlalchemy", reason="the workspace extra (sqlalchemy) is not installed")

from dashboard.session.typed_name import NAME_KEY  # noqa: E402
from tests.dashboard.conftest import errors, open_page  # noqa: E402
from tests.dashboard.judged_runs import QRELS, run_bytes  # noqa: E402

ORDERS = {"a": "d1 d2 d3 d4 d5", "b": "d5 d4 d3 d2 d1", "c": "d3 d1 d5 d2 d4"}


def _fresh(judged):
    """Each pair's probability from a decision made now on the collection's judgments and the task's (the lower
    grade of two, the task's rule), with each run's Judged@10 before and now, independently of the pages."""
    from metrics import evaluate, read_qrels, read_run
    from metrics.judgments.candidates import gather
    from metrics.judgments.decide import Decision

    merged = judged[judged["grade"].notna()].groupby(["topic", "docid"])["grade"].min()
    task = "".join(f"{t} 0 {d} {int(g)}\n" for (t, d), g in merged.items()).encode()
    runs = [read_run(run_bytes(n, o), name=n) for n, o in ORDERS.items()]
    fresh = Decision(gather(runs, read_qrels(QRELS + task, name="q"), depth=5), measure="P@3").probabilities()
    judged_at = {when: evaluate(read_qrels(q, name="q"), runs, ["Judged@10"]).groupby("system")["value"].mean()
                 for when, q in (("before", QRELS), ("now", QRELS + task))}
    return fresh, judged_at


def _shown(at):
    """The firming view's tables: the pairs and the runs' Judged@10 (one of each on the page)."""
    pairs = [d.value for d in at.dataframe if "probability" in d.value.columns]
    runs = [d.value for d in at.dataframe if "judged_before" in d.value.columns]
    assert len(pairs) <= 1 and len(runs) <= 1
    return (pairs or [None])[0], (runs or [None])[0]


@pytest.mark.parametrize("page", ["overview", "trust"])
def test_the_pages_follow_the_judgments_with_a_fresh_decisions_probabilities(ws, page):
    from workspace.dealing import next_for
    from workspace.judging import Judging

    info = ws.add_collection("judged", qrels=("nist.qrels", QRELS),
                             runs=[(f"{n}.run", run_bytes(n, o)) for n, o in ORDERS.items()], author="owner")
    untouched = open_page(page, {"collection": info.id}, session={NAME_KEY: "owner"})
    assert errors(untouched) == [] and _shown(untouched) == (None, None)
    judging = Judging(ws)
    task = judging.start(info.id, method="decide", assessors=["ann", "bob"], overlap=1.0, depth=5, author="owner",
                         options={"measure": "P@3"})
    at = open_page(page, {"collection": info.id}, session={NAME_KEY: "owner"})
    for round_ in range(2):
        for who, grade in (("ann", 1), ("bob", 0), ("ann", 0), ("bob", 0))[2 * round_:2 * round_ + 2] * 2:
            deal = next_for(ws, task.id, who)
            judging.judge(task.id, deal.topic, deal.docid, grade, assessor=who)
        at.run()  # what the fragment's next beat draws (run_every cannot be waited for headless)
        assert errors(at) == []
        pairs, runs = _shown(at)
        fresh, judged_at = _fresh(judging.judgments(task.id))
        assert len(pairs) == len(fresh) == 3
        got = pairs.set_index(["better", "worse"])["probability"]
        want = fresh.set_index(["better", "worse"])["probability"]
        assert got.sort_index().index.tolist() == want.sort_index().index.tolist()
        assert got.sort_index().tolist() == pytest.approx(want.sort_index().tolist(), abs=1e-12)
        by_run = runs.set_index("system")
        assert by_run["judged_before"].to_dict() == pytest.approx(judged_at["before"].to_dict(), abs=1e-12)
        assert by_run["judged_after"].to_dict() == pytest.approx(judged_at["now"].to_dict(), abs=1e-12)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["Documents judged by the task"] == str(len(judging.judgments(task.id)[["topic", "docid"]]
                                                                  .drop_duplicates()))
