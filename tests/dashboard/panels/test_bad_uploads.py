"""Every file of the bad-input corpus uploaded through the data page, one after another in one session.

A file the readers reject shows exactly the reader's message (tests/data/bad/cases.json) and leaves what was
loaded as it was; a legal file loads. Nothing ever raises, and no user text is rendered as HTML.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from tests.dashboard.app_pages.small_collection import QRELS, RUN_A, RUN_B, metrics_shown  # noqa: E402
from tests.dashboard.conftest import open_page, upload  # noqa: E402
from tests.paths import TESTS  # noqa: E402

BAD = TESTS / "data" / "bad"
CASES = [c for c in json.loads((BAD / "cases.json").read_text(encoding="utf-8"))["cases"]
         if c["file"] not in ("reference.qrels", "reference.run")]
UPLOADER = {"run": "Runs", "qrels": "Qrels"}


def _shown_errors(at) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def _load_good(at) -> None:
    upload(at, "Qrels", ("good.qrels", QRELS, "text/plain"))
    upload(at, "Runs", [("a.run", RUN_A, "text/plain"), ("b.run", RUN_B, "text/plain")])


def test_the_corpus_has_error_and_legal_cases_for_both_uploaders():
    kinds = {(c["read_as"], "error" in c) for c in CASES}
    assert kinds == {("run", True), ("run", False), ("qrels", True), ("qrels", False)}


def test_every_corpus_file_through_the_uploaders():
    at = open_page("data")
    _load_good(at)
    assert metrics_shown(at)["Systems"] == "2" and metrics_shown(at)["Topics judged"] == "2"
    problems = []
    for case in CASES:
        data = (BAD / case["file"]).read_bytes()
        before = metrics_shown(at)
        upload(at, UPLOADER[case["read_as"]], ([(case["file"], data, "application/octet-stream")]
                                                if case["read_as"] == "run" else
                                                (case["file"], data, "application/octet-stream")))
        if at.exception:
            problems.append(f"{case['file']}: raised {at.exception[0].value}")
            continue
        shown = _shown_errors(at)
        after = metrics_shown(at)
        if "error" in case:
            expected = case["error"].replace("\\", "")
            if shown != [expected]:
                problems.append(f"{case['file']}: expected the message {expected!r}, shown {shown!r}")
            if after != before:
                problems.append(f"{case['file']}: the loaded collection changed from {before} to {after}")
        else:
            if shown:
                problems.append(f"{case['file']}: legal, but shown {shown!r}")
            if case["read_as"] == "run" and int(after["Systems"]) != int(before["Systems"]) + 1:
                problems.append(f"{case['file']}: legal run not added ({before['Systems']} -> {after['Systems']})")
            if case["read_as"] == "qrels":
                upload(at, "Qrels", ("good.qrels", QRELS, "text/plain"))  # back to the judgments of the runs
        for element in at.markdown:
            if "<" in element.value and element.proto.allow_html:
                problems.append(f"{case['file']}: Markdown with HTML allowed: {element.value[:80]!r}")
    assert problems == []


def _said(at) -> list[str]:
    return [i.value.replace("\\", "") for i in at.info]


def _clash_button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_a_run_uploaded_with_the_name_of_a_loaded_one_asks_and_says_what_it_did():
    """A new beta.run while beta is loaded: nothing is added until the person chooses; each choice says what it
    did; the same content uploaded again is left out, and that is said too."""
    first, other = RUN_A.replace(b"2.0", b"2.5"), RUN_B.replace(b"2.0", b"2.5")
    at = open_page("data")
    _load_good(at)
    upload(at, "Runs", [("beta.run", first, "text/plain")])
    assert metrics_shown(at)["Systems"] == "3"  # a new name: added at once
    assert not any("The demo collection is loaded" in m.value for m in at.markdown)  # no longer the demo

    upload(at, "Runs", [("beta.run", other, "text/plain")])
    assert metrics_shown(at)["Systems"] == "3" and not at.exception
    assert any("Loaded already under the same name, with other content: beta (beta.run)" in w.value.replace("\\", "")
               for w in at.warning)
    _clash_button(at, "Keep both").click().run()
    assert metrics_shown(at)["Systems"] == "4" and "Kept both: beta.run added as beta-2." in _said(at)

    upload(at, "Runs", [("beta.run", b"1 Q0 x 1 1.0 beta\n", "text/plain")])
    _clash_button(at, "Replace").click().run()
    assert metrics_shown(at)["Systems"] == "4" and "beta.run replaced the loaded run of beta." in _said(at)
    systems = at.session_state["rankscope_loaded"].runs
    assert [name for name, _ in systems] == ["a", "b", "beta", "beta-2"]
    assert systems[2][1].data == b"1 Q0 x 1 1.0 beta\n"  # in the replaced run's place

    upload(at, "Runs", [("beta.run", first, "text/plain")])
    _clash_button(at, "Keep the loaded one").click().run()
    assert metrics_shown(at)["Systems"] == "4" and "Kept the loaded beta: beta.run was not added." in _said(at)

    upload(at, "Runs", [("again.run", other, "text/plain")])  # beta-2's content under another name
    assert metrics_shown(at)["Systems"] == "4"
    assert "again.run is loaded already (the same content): not added again." in _said(at)
