"""Many people on one server: twenty sessions load different files, and each sees its own numbers.

AppTest sessions share the process (and so every cache), like browser tabs on one Streamlit server. Their
steps are interleaved (every session uploads its qrels, then every session its runs, then every session
opens the overview), so each step runs among nineteen other live sessions. AppTest cannot run sessions in
parallel threads (it installs one runtime per process); tests/e2e/test_soak.py does that with twenty
browser tabs on one real server.

Session files are uploads like any other: every hostile file of tests/data/bad/sessions/ is refused with its
exact message and leaves the loaded collection as it was, and reading stays linear in the file's size.
"""

from __future__ import annotations

import gc
import json
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from dashboard.exports import session_from_json, session_to_json  # noqa: E402
from metrics import (  # noqa: E402
    DEFAULT_MEASURES,
    RankscopeError,
    ValidationError,
    aggregate,
    evaluate,
)
from metrics.conventions import DEPTHS, RELEVANCE_LEVELS  # noqa: E402
from tests.dashboard.app_pages.small_collection import QRELS, RUN_A, RUN_B  # noqa: E402
from tests.dashboard.conftest import errors, open_page  # noqa: E402
from tests.dashboard.conftest import upload as _upload
from tests.dashboard.exports.session_files import session_collection
from tests.paths import TESTS  # noqa: E402

SESSIONS = 20


def _expected(i: int) -> dict[str, dict[str, str]]:
    """What the overview must show for session i, computed by metrics alone: {system: {measure: 0.1234}}."""
    qrels, runs = session_collection(i)
    means = aggregate(evaluate(qrels, {name.removesuffix(".run"): body for name, body, _ in runs}, DEFAULT_MEASURES))
    return {system: {m: f"{v:.4f}" for m, v in zip(group["measure"], group["value"])}
            for system, group in means.groupby("system", sort=False)}


def _overview(at) -> dict[str, dict[str, str]]:
    """The overview table as shown: {system: {measure: "0.1234"}} (interval, markers, baseline tag dropped)."""
    table = at.dataframe[0].value
    measures = [m for m in table.columns if m != "system" and not m.endswith((" group", " ties"))]
    return {row["system"].split()[0]: {m: re.match(r"[0-9.]+", str(row[m]))[0] for m in measures}
            for _, row in table.iterrows()}


def test_twenty_interleaved_sessions_each_get_their_own_correct_results():
    files = [session_collection(i) for i in range(SESSIONS)]
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


# ---- hostile session files --------------------------------------------------------------------------------
BAD_SESSIONS = TESTS / "data" / "bad" / "sessions"
SESSION_CASES = json.loads((BAD_SESSIONS / "sessions.json").read_text(encoding="utf-8"))["cases"]
BY_FILE = {case["file"]: case for case in SESSION_CASES}


def test_every_session_corpus_file_has_one_entry():
    files = {p.name for p in BAD_SESSIONS.iterdir()} - {"make_sessions.py", "sessions.json"}
    assert files == set(BY_FILE) and len(SESSION_CASES) == len(BY_FILE)
    for case in SESSION_CASES:
        assert case["case"] and ("error" in case) != ("conventions" in case), case["file"]
    assert all((BAD_SESSIONS / name).stat().st_size < 300_000 for name in BY_FILE)


@pytest.mark.parametrize("name", sorted(BY_FILE))
def test_session_corpus_message(name):
    case = BY_FILE[name]
    data = (BAD_SESSIONS / name).read_bytes()
    if "error" in case:
        with pytest.raises(ValidationError) as info:
            session_from_json(data)
        assert str(info.value) == case["error"]
        assert "\n" not in str(info.value) and len(str(info.value)) < 200
    else:
        conventions = session_from_json(data).conventions
        assert {k: getattr(conventions, k) for k in case["conventions"]} == case["conventions"]


def _state(at) -> tuple:
    return at.session_state["rankscope_loaded"].key, at.session_state["rankscope_notes"]


def test_every_hostile_session_file_through_the_data_page():
    at = open_page("data")
    _upload(at, "Qrels", ("good.qrels", QRELS, "text/plain"))
    _upload(at, "Runs", [("a.run", RUN_A, "text/plain"), ("b.run", RUN_B, "text/plain")])
    good = session_to_json({"a": "a.run"}, None, {"1": "keep me"}, {"page": "data"})
    _upload(at, "Session file", ("good.json", good, "application/json"))
    assert errors(at) == [] and at.session_state["rankscope_notes"] == {"1": {"tags": [], "comment": "keep me"}}
    problems = []
    for case in SESSION_CASES:
        name, before = case["file"], _state(at)
        _upload(at, "Session file", (name, (BAD_SESSIONS / name).read_bytes(), "application/json"))
        if at.exception:
            problems.append(f"{name}: raised {at.exception[0].value}")
            continue
        shown = [e.value.replace("\\", "") for e in at.error]
        if "error" in case:
            if shown != [f"{name}: {case['error']}".replace("\\", "")]:
                problems.append(f"{name}: shown {shown!r}")
            if _state(at) != before:
                problems.append(f"{name}: the loaded collection or the notes changed")
        else:
            level, depth = case["conventions"]["relevance_level"], case["conventions"]["depth"]
            widgets = (at.number_input(key="data_level").value, at.number_input(key="data_depth").value)
            if shown or widgets != (level, depth or 0):
                problems.append(f"{name}: shown {shown!r}, widgets {widgets}")
            if _state(at)[0][:2] != before[0][:2]:
                problems.append(f"{name}: the loaded files changed")
    assert problems == []
    assert [m.value for m in at.metric][0] == "2"  # the two runs loaded first are still there


@settings(max_examples=60, deadline=None)
@given(token=st.from_regex(r"-?[1-9][0-9]{0,5000}", fullmatch=True), field=st.sampled_from(["relevance_level",
                                                                                             "depth"]))
def test_any_integer_in_the_conventions_loads_within_the_widget_bounds_or_is_refused(token, field):
    document = json.loads(session_to_json(["a"]))
    document["conventions"][field] = "@"
    data = json.dumps(document).replace('"@"', token).encode()
    low, high = RELEVANCE_LEVELS if field == "relevance_level" else DEPTHS
    try:
        value = getattr(session_from_json(data).conventions, field)
    except RankscopeError as err:
        assert field in str(err) or "at most 64 characters" in str(err)
        assert len(str(err)) < 200
    else:
        assert low <= value <= high


# ---- reading stays linear ----------------------------------------------------------------------------------
def _topics(n: int) -> bytes:
    notes = {str(100_000 + i): {"tags": ["hard"], "comment": "judge again"} for i in range(n)}
    return session_to_json(["bm25"], None, notes, {"page": "overview"})


def _repeated_tags(n: int) -> bytes:
    return session_to_json(["bm25"], None, {"401": {"tags": ["hard"] * n, "comment": ""}}, {})


def _duplicate_topic_last(n: int) -> bytes:
    return _topics(n).replace(b'"100000"', f'"{100_000 + n - 1}"'.encode(), 1)


def _unknown_fields(n: int) -> bytes:
    return _topics(1)[:-2] + "".join(f',\n "x{i}": {i}' for i in range(n)).encode() + b"\n}"


def _cpu_seconds(data: bytes, repeat: int) -> float:
    """Best CPU time of ``repeat`` reads, with the garbage collector paused (it measures the reader, not the
    allocator)."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.process_time()
            try:
                session_from_json(data)
            except ValidationError:
                pass
            best = min(best, time.process_time() - start)
    finally:
        if enabled:
            gc.enable()
    return best


@pytest.mark.parametrize("shape, n", [(_topics, 8_000), (_repeated_tags, 100_000), (_duplicate_topic_last, 8_000),
                                      (_unknown_fields, 20_000)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_reading_time_grows_linearly(shape, n):
    small, large = shape(n), shape(10 * n)
    assert len(large) < 8 * 1024 * 1024
    ratio = _cpu_seconds(large, 3) / max(_cpu_seconds(small, 5), 1e-4)
    per_mb = _cpu_seconds(large, 1) / (len(large) / 1e6)
    assert ratio < 30, f"ten times the input took {ratio:.0f} times as long (quadratic would be about 100)"
    assert per_mb < 1.0, f"{per_mb:.2f} s per MB"

