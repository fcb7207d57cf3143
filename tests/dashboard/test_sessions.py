"""Many people on one server: twenty sessions load different files, and each keeps seeing only its own.

AppTest sessions share the process (and so every cache), like browser tabs on one Streamlit server.
"""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from tests.dashboard.test_app import _upload, errors, open_page  # noqa: E402

SESSIONS = 20


def _files(i: int):
    qrels = "".join(f"{q} 0 d{q}-{j} {j % 3}\n" for q in range(1, i + 2) for j in range(4)).encode()
    runs = []
    for s in range(1 + i % 3):
        lines = "".join(f"{q} Q0 d{q}-{j} {j + 1} {10 - j - s * 0.5} s{s}\n" for q in range(1, i + 2) for j in range(4))
        runs.append((f"session{i}_system{s}.run", lines.encode(), "text/plain"))
    return qrels, runs


def test_twenty_sessions_keep_their_own_collections():
    sessions = []
    for i in range(SESSIONS):
        at = open_page("data")
        qrels, runs = _files(i)
        _upload(at, "Qrels", (f"session{i}.qrels", qrels, "text/plain"))
        _upload(at, "Runs", runs)
        sessions.append(at)
    for i, at in enumerate(sessions):  # revisit every session after all the others have loaded
        at.run()
        assert errors(at) == []
        shown = {m.label: m.value for m in at.metric}
        assert shown["Systems"] == str(1 + i % 3)
        assert shown["Topics judged"] == str(i + 1)
        systems = at.dataframe[0].value["system"].tolist()
        assert systems == [f"session{i}_system{s}" for s in range(1 + i % 3)]


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
