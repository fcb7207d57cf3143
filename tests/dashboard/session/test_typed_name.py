"""The author's name kept in a cookie of the browser: the script that writes it keeps any typed text as data,
and the name read back from the cookie is the one typed (the browser part is tests/e2e/test_notes.py); the name
is the session's, so presentation mode, which hides the sidebar's field, keeps it."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

pytest.importorskip("streamlit", reason="the dashboard extra (streamlit) is not installed")
from dashboard.session.typed_name import AUTHOR_CHARS, AUTHOR_COOKIE, author_cookie_script, remembered_author  # noqa: E402

NAMES = ["ana", "Ana Lucía", "</script><script>alert(1)</script>", 'bo "the" \\ dev', "x\u2028y", "<!--", "李雷",
         "&amp; <b>", "a" * AUTHOR_CHARS]


@pytest.mark.parametrize("name", NAMES)
def test_the_cookie_script_holds_the_name_as_data_only(name):
    script = author_cookie_script(name)
    assert script.startswith("<script>") and script.endswith("</script>")
    inner = script[len("<script>"):-len("</script>")]
    assert not re.search(r"[<>&]", inner)  # nothing can close the script or open markup
    literal = re.fullmatch(rf'document\.cookie = "{AUTHOR_COOKIE}=" \+ encodeURIComponent\((".*")\) \+ '
                           r'"; path=/; max-age=31536000; SameSite=Strict";', inner).group(1)
    assert json.loads(literal) == name


def test_an_empty_name_removes_the_cookie():
    assert "max-age=0;" in author_cookie_script("")


@pytest.mark.parametrize("name", [n for n in NAMES if n.isprintable()])
def test_the_name_read_back_is_the_one_typed(name):
    encoded = quote(name, safe="-_.!~*'()")  # what encodeURIComponent writes
    assert remembered_author({AUTHOR_COOKIE: encoded}) == name


@pytest.mark.parametrize("cookies", [{}, None, {AUTHOR_COOKIE: ""}, {AUTHOR_COOKIE: quote("a" * (AUTHOR_CHARS + 1))},
                                     {AUTHOR_COOKIE: quote("two\nlines")}, {AUTHOR_COOKIE: "%20%20"}, {AUTHOR_COOKIE: 3}])
def test_a_missing_or_unfit_cookie_gives_no_name(cookies):
    assert remembered_author(cookies) is None


def test_a_name_typed_in_the_sidebar_survives_presentation_mode(ws):
    """Presentation mode hides the sidebar and its name field: the name is the session's, so it is still the
    author there, and the field shows it again when the sidebar comes back."""
    from tests.dashboard.conftest import errors, open_page

    cid = ws.add_collection("tiny", qrels=("q.txt", b"1 0 a 1\n"), runs=[("a.run", b"1 Q0 a 1 1.0 a\n")],
                            author="ana").id
    at = open_page("overview", {"collection": cid})
    at.text_input(key="rankscope_author_field").input("Bea").run()
    at.toggle(key="present").set_value(True).run()
    assert errors(at) == [] and at.session_state["rankscope_author"] == "Bea"
    assert not any(t.key == "rankscope_author_field" for t in at.text_input)  # no sidebar
    at.toggle(key="present").set_value(False).run()
    assert errors(at) == [] and at.text_input(key="rankscope_author_field").value == "Bea"
