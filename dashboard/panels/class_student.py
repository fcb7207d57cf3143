"""What the live class draws: a question as a phone shows it, the students' answer form and the live part of
their page that follows the teacher, and the teacher's code, link and QR code.

Students' pages are made for a 390x844 screen: one question, large type and inputs (:data:`PHONE`), no
sidebar, the rankings as wrapping rows of grade boxes (markup built from numbers and fixed letters only,
never from user text), nothing that needs hovering. The class's part of the page is a fragment;
a second one, with nothing to draw, runs every :data:`POLL` seconds and compares the class's revision (from
its status, cached per server process for a second, see :mod:`dashboard.data.live_class`) with the one drawn,
and draws the page again only when the teacher changed something: the page follows the teacher without a
reload, and a poll costs the server almost nothing.
"""

from __future__ import annotations

import io
from urllib.parse import urlsplit

import streamlit as st

from dashboard import widgets
from dashboard.data import live_class as data
from dashboard.data import typed_grades
from dashboard.server import identity
from metrics import RankscopeError, ValidationError
from metrics.teaching import questions as q
from metrics.teaching.judging import NOT_GRADED, Judging, grades_text, parse_grades
from metrics.teaching.mistakes import MISTAKES

POLL = 3.0  # seconds between two looks of a student's page at the class's status
TEACHING = "class_teaching"  # (code, key) of the class this session teaches
TOKEN = "class_student"  # this browser session's random student token
SENT = "class_sent"  # {(code, position): the answer as stored}
NICKNAME = "class_nickname"
SEEN = "class_seen"  # (revision, closed) of the class as the page last drew it
ADMITTED = "class_admitted"  # the class codes this session joined: counted once each against its address's bound
CHANGES = "class_changes"  # {(code, position): answers sent}
MAX_NICKNAME = 24
# constant stylesheet (never built from user text): large type, large inputs, no sidebar, grade boxes wrapping
PHONE = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stSidebarNav"] { display: none !important; }
html, html:root { font-size: 19px; }
[data-testid="stMainBlockContainer"] { padding: 3.5rem 1rem 2rem !important; max-width: 100% !important; }
[data-testid="stMain"] input { font-size: 1.3rem !important; min-height: 3rem; }
[data-testid="stMain"] button { min-height: 3rem; font-size: 1.1rem; }
[data-testid="stMain"] label p, [data-testid="stMarkdownContainer"] p { font-size: 1.1rem; color: #000000; }
[data-testid="stMain"] button [data-testid="stMarkdownContainer"] p { color: inherit; }
[data-testid="stMain"] [data-testid="stCaptionContainer"], [data-testid="stMain"] [data-testid="stCaptionContainer"] p {
  color: #3d3d4a !important; opacity: 1 !important; }
.rs-ranking ol { display: flex; flex-wrap: wrap; gap: 0.35rem; list-style: none; padding: 0; margin: 0.3rem 0; }
.rs-ranking li { display: flex; flex-direction: column; align-items: center; min-width: 2.4rem; }
.rs-ranking .rank { font-size: 0.8rem; color: #262730; }
.rs-ranking .grade { display: block; width: 2.4rem; line-height: 2.4rem; text-align: center; border-radius: 6px;
  font-size: 1.25rem; font-weight: 700; }
.rs-ranking .g0 { background: #f1dcae; color: #000000; } .rs-ranking .g1 { background: #a6cee3; color: #000000; }
.rs-ranking .g2 { background: #1f5fa0; color: #ffffff; } .rs-ranking .g3 { background: #08224f; color: #ffffff; }
.rs-ranking .gu { background: #e0e0e0; color: #000000; }
.rs-ranking h2 { font-size: 1.15rem !important; margin: 0.6rem 0 0.1rem !important; padding: 0 !important;
  font-weight: 700; line-height: 1.4; }
.rs-ranking p { margin: 0.2rem 0; font-size: 1rem; }
</style>"""
DIRECTIONS = {"up": "it rises", "down": "it drops", "same": "it stays the same"}


# ---- a question as students see it -------------------------------------------------------------------------
def ranking_html(label: str, ranking: q.Ranking) -> str:
    """One ranking as wrapping boxes: its rank above each grade (``?`` unjudged). Numbers and a letter only."""
    cells = []
    for i, grade in enumerate(ranking.grades, start=1):
        css = "gu" if grade is None else f"g{min(int(grade), 3)}"
        text = "?" if grade is None else str(int(grade))
        cells.append(f'<li><span class="rank">{i}</span><span class="grade {css}">{text}</span></li>')
    missed = len(ranking.missing)
    tail = (f"<p>Judged relevant but not retrieved: {missed} (grades {', '.join(map(str, ranking.missing[:12]))}"
            f"{', …' if missed > 12 else ''})</p>" if missed else "")
    return (f'<div class="rs-ranking"><h2>Ranking {label}</h2><ol aria-label="Ranking {label}: the grade at each '
            f'rank, from rank 1">{"".join(cells)}</ol>{tail}</div>')


def show_question(question: q.Question, position: int, count: int) -> None:
    """The question: its number, what it asks, and its rankings (grades by rank)."""
    st.caption(widgets.md("Question {} of {}", position + 1, count))
    st.markdown(widgets.md("**{}**", q.prompt(question)))
    markup = "".join(ranking_html(label, r) for label, r in zip(q.labels(question), question.rankings))
    st.html(PHONE + markup)
    st.caption("Grades: 0 not relevant; 1, 2, 3 more relevant; ? not judged. "
               + (widgets.md("Relevant means grade {} or more. ", question.rel) if question.rel != 1 else "")
               + (widgets.md("Numbers are right within ±{:g}.", question.tolerance) if question.numeric else ""))


def student_token() -> str:
    """A random token for this browser session: answers are anonymous."""
    from workspace.checks import new_id

    return st.session_state.setdefault(TOKEN, new_id())


def nickname() -> str | None:
    return (st.session_state.get(NICKNAME) or "").strip() or None


def answer_form(code: str, position: int, question: q.Question) -> None:
    """The answer's input, large, and a Send button; what was sent is shown back."""
    sent = st.session_state.setdefault(SENT, {})
    with st.form(f"class_form_{position}", border=False):
        if question.kind == "value":
            typed = st.text_input("Your answer", placeholder="e.g. 0.25 or 1/4", max_chars=32,
                                  key=f"class_value_{position}")
        elif question.kind == "compare":
            typed = st.radio("Your answer", q.options(question), index=None, key=f"class_choice_{position}",
                             format_func=lambda o: "they are equal" if o == q.EQUAL else f"{o} is higher")
        elif question.kind == "order":
            example = " ".join(reversed(q.labels(question)))
            typed = st.text_input("The letters, best first", placeholder=f"e.g. {example}", max_chars=32,
                                  key=f"class_order_{position}")
        else:
            way = st.radio("The measure…", list(DIRECTIONS), index=None, format_func=DIRECTIONS.get,
                           key=f"class_way_{position}")
            size = st.text_input("By how much", placeholder="e.g. 0.1 or 1/6 (0 if it stays)", max_chars=24,
                                 key=f"class_size_{position}")
            typed = None if way is None else "0" if way == "same" else f"{'-' if way == 'down' else ''}{size.strip()}"
        send = st.form_submit_button("Send my answer", type="primary", width="stretch")
    if send:
        changes = st.session_state.setdefault(CHANGES, {})
        if not typed:
            st.warning("Give an answer first.", icon=":material/edit:")
        elif changes.get((code, position), 0) >= data.changes_allowed():
            st.warning(widgets.md("You sent {} answers to this question: the last one counts.",
                                  changes[(code, position)]), icon=":material/block:")
        elif not data.flood().answer(code, st.context.ip_address):
            st.error("Too many answers from your network address in the last minute: wait a moment, then send "
                     "again.", icon=":material/block:")
        else:
            try:
                sent[(code, position)] = data.room().answer(code, student_token(), position, typed, nickname())
                changes[(code, position)] = changes.get((code, position), 0) + 1
            except RankscopeError as err:
                widgets.error(err)
    if (code, position) in sent:
        st.success(widgets.md("Sent: {}. You can change it until the answer is shown.", sent[(code, position)]),
                   icon=":material/check:")


def own_result(code: str, position: int, question: q.Question) -> None:
    """After the reveal: the right answer, and whether this student's was right (or which mistake it was)."""
    from metrics.teaching.reveal import parse_answer, shown

    right = data.right(question)
    st.markdown(widgets.md("The right answer: **{}**", shown(question, right.answer)))
    mine = st.session_state.get(SENT, {}).get((code, position))
    if mine is None:
        st.info("You did not answer this one.", icon=":material/info:")
        return
    said = shown(question, parse_answer(question, mine))
    verdict = data.verdict(question, mine)
    if verdict == "right":
        st.success(widgets.md("You answered {}: right.", said), icon=":material/check_circle:")
    elif verdict in MISTAKES:
        st.warning(widgets.md("You answered {}: that is what you get when you {}.", said, MISTAKES[verdict].title),
                   icon=":material/lightbulb:")
    else:
        st.warning(widgets.md("You answered {}.", said), icon=":material/lightbulb:")


# ---- documents to judge ----------------------------------------------------------------------------------
JUDGE_AT = "class_judge_at_{}_{}"  # the document shown, per class and question
JUDGE_ERROR = "class_judge_error"


def _judge(code: str, position: int, question: Judging, at: int, grade: int) -> None:
    sent = st.session_state.setdefault(SENT, {})
    grades = list(parse_grades(question, sent.get((code, position)) or NOT_GRADED * len(question.documents)))
    grades[at] = grade
    changes = st.session_state.setdefault(CHANGES, {})
    if changes.get((code, position), 0) >= data.changes_allowed() * len(grades):  # each document's grade changed
        st.session_state[JUDGE_ERROR] = RankscopeError(  # as often as an answer may be
            f"You changed these grades {changes[(code, position)]} times: the last ones count.")
        return
    if not data.flood().answer(code, st.context.ip_address):
        st.session_state[JUDGE_ERROR] = RankscopeError(
            "Too many answers from your network address in the last minute: wait a moment, then grade again.")
        return
    try:
        sent[(code, position)] = data.room().answer(code, student_token(), position, grades_text(grades), nickname())
        changes[(code, position)] = changes.get((code, position), 0) + 1
    except RankscopeError as err:
        st.session_state[JUDGE_ERROR] = err
        return
    later = [i for i in range(at + 1, len(grades)) if grades[i] is None]
    st.session_state[JUDGE_AT.format(code, position)] = later[0] if later else min(at + 1, len(grades) - 1)


def _go(code: str, position: int, at: int) -> None:
    st.session_state[JUDGE_AT.format(code, position)] = at


def judge_documents(code: str, position: int, question: Judging) -> None:
    """Documents to judge on a phone, one at a time: the topic's text, the document, the grades as large buttons
    (the assessor's page's parts), progress, and previous and next. Every grade is stored when given (all of
    this student's grades, as one answer replacing the last), and the next document not graded is shown."""
    from dashboard.panels import assessor

    n = len(question.documents)
    grades = parse_grades(question, st.session_state.get(SENT, {}).get((code, position)) or NOT_GRADED * n)
    at = min(max(int(st.session_state.get(JUDGE_AT.format(code, position), 0)), 0), n - 1)
    done = sum(g is not None for g in grades)
    st.progress(done / n, text=widgets.md("Document {} of {} · {} graded", at + 1, n, done))
    if st.session_state.get(JUDGE_ERROR):
        widgets.error(st.session_state.pop(JUDGE_ERROR))
    doc = question.documents[at]
    assessor.document_view(question.topic, doc.docid, question.query, doc.title, doc.text)
    assessor.grade_control(question.grades, question.labels, grades[at], _judge, (code, position, question, at),
                           key="class_grade")
    back, forward = st.columns(2)
    back.button("Previous", key="class_judge_previous", icon=":material/arrow_back:", width="stretch",
                disabled=at == 0, on_click=_go, args=(code, position, at - 1))
    forward.button("Next", key="class_judge_next", icon=":material/arrow_forward:", width="stretch",
                   disabled=at == n - 1, on_click=_go, args=(code, position, at + 1))
    if done == n:
        st.success(widgets.md("All {} documents graded. You can change a grade until the teacher shows the class's.",
                              n), icon=":material/check:")


def admitted(code: str) -> bool:
    """Whether this session may take part in class ``code``: a session's first look at a class counts against
    its address's bound of new sessions (:func:`dashboard.data.live_class.flood`); past it, one line, and
    nothing else is done for it."""
    from workspace.classroom import normal_code

    try:
        key = normal_code(code)
    except RankscopeError:
        key = "?"  # not a code: counted all the same, and refused by the status read after
    joined = st.session_state.setdefault(ADMITTED, set())
    if key in joined:
        return True
    if not data.flood().join(key, st.context.ip_address):
        st.error("Too many new sessions from your network address in the last minute: wait a minute, then open "
                 "the link again.", icon=":material/block:")
        return False
    joined.add(key)
    return True


def _seen(status) -> tuple[int, bool]:
    return status.revision, status.closed


def follow(code: str) -> None:
    """The poll: the class's revision (and whether it closed), read from the status kept a second per server
    process; the whole page is drawn again only when it differs from the one the page shows."""
    try:
        now = _seen(data.status(code))
    except RankscopeError:
        now = None
    if now != st.session_state.get(SEEN):
        st.rerun()


def current(code: str) -> None:
    """The class as it is now: the nickname, then the waiting line, the question open (with the answer form)
    or revealed (with the right answer), or the end. Records the revision it drew."""
    # typing the nickname or sending an answer reruns this part alone
    st.text_input("Nickname (optional)", max_chars=MAX_NICKNAME, key=NICKNAME,
                  help="Shown to the teacher in the results; leave it empty to stay anonymous.")
    try:
        status = data.status(code)
    except RankscopeError as err:
        st.session_state[SEEN] = None
        st.error(widgets.md("{}", str(err).splitlines()[0]), icon=":material/error:")
        return
    st.session_state[SEEN] = _seen(status)
    if status.closed:
        st.info(widgets.md("The class {} is over.", status.code), icon=":material/event_busy:")
        return
    if status.current < 0:
        st.info("Waiting for the teacher to open the first question…", icon=":material/hourglass_top:")
        return
    question = data.class_questions(status.code)[status.current]
    if isinstance(question, Judging):
        if status.phase == "open":
            judge_documents(status.code, status.current, question)
        else:
            st.info("Grading is over: the class's grades are on the teacher's screen.", icon=":material/visibility:")
        return
    show_question(question, status.current, status.count)
    if status.phase == "open":
        answer_form(status.code, status.current, question)
    else:
        own_result(status.code, status.current, question)


def live_view(code: str) -> None:
    """A student's page of the class: :func:`current` as a fragment of its own (answering or typing the
    nickname reruns it alone), and :func:`follow`, a fragment with nothing to draw that runs every
    :data:`POLL` seconds and reads one number. A student's poll therefore costs the server one cached status
    read; the page is drawn again only when the teacher opened, revealed or ended something."""
    st.fragment(current)(code)
    st.fragment(follow, run_every=POLL)(code)


# ---- the teacher's side ------------------------------------------------------------------------------------
def link_base(url: str | None) -> str:
    """``scheme://host:port`` of the address the teacher's browser uses (students' phones need the same)."""
    parts = urlsplit(url or "")
    if parts.scheme in ("http", "https") and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return "http://127.0.0.1:8501"


def qr_png(text: str) -> bytes:
    """A QR code of ``text`` drawn here (segno), as PNG bytes: nothing is asked of another service."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=8, border=2, dark="#000000", light="#ffffff")
    return out.getvalue()


def class_banner(code: str) -> str:
    """The code in large type, the link and its QR code; returns the link."""
    default = link_base(st.context.url)
    base = st.text_input("Address students use", default, key="class_base",
                         help="The address of this server as the students' phones reach it. Started on 127.0.0.1 "
                              "it is reachable from this machine only: start it with --address 0.0.0.0 and give "
                              "the machine's network address here.")
    if not link_base(base).startswith(("http://", "https://")) or link_base(base) != base.rstrip("/"):
        st.warning("Expected an address such as http://192.168.1.20:8501.", icon=":material/warning:")
        base = default
    link = f"{base.rstrip('/')}/class?code={code}"
    left, right = st.columns([3, 2])
    left.markdown(widgets.md("## Code: {}", code))
    left.text(link)
    left.caption("Students open the link (or scan the code) on their phones: no account, a nickname is optional.")
    right.image(qr_png(link), width=220, caption="Scan to join")
    return link


def author() -> str:
    """Who the teacher is (:func:`dashboard.server.identity.author`), ``teacher`` when nobody signed in or typed a name."""
    return identity.author() or "teacher"


def typed_ranking(text: str) -> q.Ranking:
    """A ranking typed as grades (``1 0 ? 2``), as a question's ranking."""
    grades = typed_grades(text)
    if not grades:
        raise ValidationError("a ranking: expected at least one grade")
    return q.Ranking(grades)
