"""Many people on one server: twenty sessions load different files, and each sees its own numbers.

AppTest sessions share the process (and so every cache), like browser tabs on one Streamlit server. Their
steps are interleaved (every session uploads its qrels, then every session its runs, then every session
opens the overview), so each step runs among nineteen other live sessions. AppTest cannot run sessions in
parallel threads (it installs one runtime per process); tests/e2e/test_soak.py does that with twenty
browser tabs on one real server.
"""

from __future__ import annotations

import random
import re
import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from metrics import DEFAULT_MEASURES, aggregate, evaluate  # noqa: E402
from tests.dashboard.test_app import _upload, errors, open_page  # noqa: E402

SESSIONS = 20


def _files(i: int):
    """Session i's collection: i + 1 topics, 1 + i % 3 systems, random grades and scores (seed i)."""
    rnd = random.Random(i)
    topics = range(1, i + 2)
    qrels = "".join(f"{q} 0 d{q}-{j} {rnd.choice((0, 0, 1, 2))}\n" for q in topics for j in range(8)).encode()
    runs = []
    for s in range(1 + i % 3):
        lines = "".join(f"{q} Q0 d{q}-{j} {j + 1} {rnd.random():.6f} s{s}\n" for q in topics for j in range(10))
        runs.append((f"session{i}_system{s}.run", lines.encode(), "text/plain"))
    return qrels, runs


def _expected(i: int) -> dict[str, dict[str, str]]:
    """What the overview must show for session i, computed by metrics alone: {system: {measure: 0.1234}}."""
    qrels, runs = _files(i)
    means = aggregate(evaluate(qrels, {name.removesuffix(".run"): body for name, body, _ in runs}, DEFAULT_MEASURES))
    return {system: {m: f"{v:.4f}" for m, v in zip(group["measure"], group["value"])}
            for system, group in means.groupby("system", sort=False)}


def _overview(at) -> dict[str, dict[str, str]]:
    """The overview table as shown: {system: {measure: "0.1234"}} (interval, markers, baseline tag dropped)."""
    table = at.dataframe[0].value
    return {row["system"].split()[0]: {m: re.match(r"[0-9.]+", str(row[m]))[0] for m in table.columns if m != "system"}
            for _, row in table.iterrows()}


def test_twenty_interleaved_sessions_each_get_their_own_correct_results():
    files = [_files(i) for i in range(SESSIONS)]
    sessions = [open_page("data") for _ in range(SESSIONS)]
    for i, at in enumerate(sessions):
        _upload(at, "Qrels", (f"session{i}.qrels", files[i][0], "text/plain"))
    for i, at in enumerate(sessions):
        _upload(at, "Runs", files[i][1])
    for i, at in enumerate(sessions):
        assert errors(at) == [], i
        shown = {m.label: m.value for m in at.metric}
        assert shown["Systems"] == str(1 + i % 3), i
        assert shown["Topics judged"] == str(i + 1), i
    for at in sessions:
        open_page("overview", at=at)
    for i, at in enumerate(sessions):
        assert errors(at) == [], i
        assert _overview(at) == _expected(i), i
    for i, at in enumerate(sessions):  # after every other session has loaded, each still holds its own
        open_page("data", at=at)
        assert at.dataframe[0].value["system"].tolist() == [f"session{i}_system{s}" for s in range(1 + i % 3)]


def test_the_sessions_differ_so_a_mix_up_would_show():
    expected = [_expected(i) for i in range(SESSIONS)]
    assert len({repr(e) for e in expected}) == SESSIONS


def test_notes_views_and_conventions_stay_in_their_session():
    first, second = open_page("queries", {"view": "One topic", "topic": "414"}), open_page("queries")
    first.multiselect(key="queries_tags_414").set_value(["hard topic"])
    first.get("form_submit_button")[0].click()
    first.run()
    open_page("data", at=first)
    first.number_input(key="data_level").set_value(3)
    first.run()
    assert first.session_state["rankscope_notes"] == {"414": {"tags": ["hard topic"], "comment": ""}}
    second.run()
    assert errors(second) == []
    assert "rankscope_notes" not in second.session_state or second.session_state["rankscope_notes"] == {}
    assert second.session_state["rankscope_loaded"].conventions.relevance_level == 1
    assert second.session_state["view"] == "All topics"  # the first session's link opened its topic, not this one's
