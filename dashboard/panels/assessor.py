"""The assessor's side of a judging task: one document at a time, its topic's text above it, the query's words
marked in it, the grades as large buttons and as keys.

Keys (each a button's shortcut, so the page needs no script of its own): a grade's digit judges the document
and brings the next one; ``S`` skips it (it stays unjudged); ``U`` takes back the last judgment and shows its
document again; the left and right arrows move through the documents already dealt (a judged one is judged
again by another grade). The document and its buttons are one fragment: a judgment reruns that part alone.
Every judgment is committed before the next document is shown (:meth:`workspace.judging.Judging.judge`); what
is shown after a reload, or after the server was started again, is the first document dealt and not judged.

Topic and document texts are user text: they reach the page through :func:`dashboard.session.user_text.md` and
:func:`~dashboard.session.user_text.md_marked` only, the marks ours, the text always text.
"""

from __future__ import annotations

import streamlit as st

from dashboard import widgets
from dashboard.data import judging as data
from dashboard.server import identity
from metrics import RankscopeError

__all__ = ["BUTTONS", "choose_task", "document_view", "grade_control", "judge_view"]

CURSOR = "judge_at_{}"  # the position (in the order dealt) of the document shown, per task; None: the next
NOTICE = "judge_notice"
TEXT_HEIGHT = 300  # pixels of the document's box (it scrolls): the buttons stay on a 1366x768 screen
# a constant stylesheet (never built from user text): large buttons, at least 44 px high for a finger
BUTTONS = """<style>
[data-testid="stMain"] [data-testid="stButton"] button { min-height: 3rem; font-size: 1.05rem; }
</style>"""


def _me() -> str | None:
    from workspace.access import identity as canonical

    who = identity.author()
    return canonical(who) if who else None


def choose_task(loaded):
    """The task this page judges: the link's ``?task=``, else the one open task of the collection that deals to
    this person (a choice among several). None, with a line saying why, when there is none."""
    if _me() is None:
        st.info("Type your name in the sidebar first: each judgment is kept with its assessor.",
                icon=":material/person:")
        return None
    store = data.judging()
    wanted = st.query_params.get("task")
    try:
        if wanted:
            return store.task(str(wanted), "judge")
        mine = [t for t in data.tasks_of(loaded) if not t.closed and t.may_judge(_me())]
    except RankscopeError as err:
        widgets.error(err)
        return None
    if not mine:
        st.info("No judging task deals documents to you on this collection. The owner starts one on the judges "
                "page and sends you its link.", icon=":material/inbox:")
        return None
    if len(mine) == 1:
        return mine[0]
    names = {t.id: t for t in mine}
    chosen = st.selectbox("Task", list(names), format_func=lambda tid: names[tid].name, key="judge_task")
    return names[chosen]


def _cursor(tid: str):
    return st.session_state.get(CURSOR.format(tid))


def _move(tid: str, position) -> None:
    st.session_state[CURSOR.format(tid)] = position


def _grade(tid: str, topic: str, docid: str, grade, skipped: bool = False) -> None:
    try:
        data.judging().judge(tid, topic, docid, grade, skipped=skipped)
    except RankscopeError as err:
        st.session_state[NOTICE] = err
        return
    _move(tid, None)


def _undo(tid: str, mine) -> None:
    judged = mine[mine["grade"].notna()]
    if not len(judged):
        return
    last = judged.sort_values("judged_at", kind="stable").iloc[-1]
    try:
        data.judging().judge(tid, last["topic"], last["docid"], None)
    except RankscopeError as err:
        st.session_state[NOTICE] = err
        return
    _move(tid, int(last["position"]))


def _shown(tid: str):
    """The assessor's documents and the one to show (a new one dealt when the cursor is past them)."""
    from workspace.dealing import next_for

    store = data.judging()
    mine = store.dealt(tid, _me())
    at = _cursor(tid)
    if at is None or at not in set(mine["position"]):
        deal = next_for(store._ws, tid)
        if deal is None:
            return mine, None
        mine = store.dealt(tid, _me())
        row = mine[(mine["topic"] == deal.topic) & (mine["docid"] == deal.docid)]
        at = int(row["position"].iloc[0])
        _move(tid, at)
    return mine, mine.index[mine["position"] == at][0]


def _texts(info, topic: str, docid: str) -> tuple[str, str, str]:
    topics, documents = data.task_texts(info)
    query = topics.get(topic, "") if topics is not None else ""
    doc = documents.get(docid) if documents is not None else None
    return query, (doc.title if doc is not None else ""), (doc.text if doc is not None else "")


def document_view(topic: str, docid: str, query: str, title: str, text: str) -> None:
    """One document to judge: its topic's text, then the document (title and text, the topic's words marked) in
    a box of its own that scrolls, and its id. Every string is shown as text."""
    st.markdown(widgets.md("**Topic {}**: {}", topic, query or "(no text loaded for this topic)"))
    with st.container(height=TEXT_HEIGHT, border=True):
        st.markdown(widgets.md("**{}**", title) if title else widgets.md("Document {}", docid))
        if text:
            st.markdown(widgets.md_marked(data.marked(text, data.terms_of(query))))
        else:
            st.caption("No text of this document is loaded: judge it by its id, or skip it.")
    st.caption(widgets.md("Document {}. Words of the topic are marked.", docid))


def grade_control(grades, labels, given: int | None, on_grade, args: tuple, key: str = "judge_grade") -> None:
    """The grades as large buttons side by side (``on_grade(*args, grade)`` when one is pressed), each with its
    digit as a key; the grade ``given`` already is the highlighted one."""
    for column, (grade, label) in zip(st.columns(len(grades)), zip(grades, labels)):
        column.button(widgets.md("{} · {}", grade, label), key=f"{key}_{grade}", shortcut=str(grade),
                      type="primary" if given == grade else "secondary", width="stretch",
                      on_click=on_grade, args=(*args, grade))


def _document(tid: str) -> None:
    store = data.judging()
    try:
        info = store.task(tid, "judge")
        mine, row = _shown(tid)
    except RankscopeError as err:
        widgets.error(err)
        return
    notice = st.session_state.pop(NOTICE, None)
    if notice is not None:
        widgets.error(notice)
    if row is None:
        st.success(widgets.md("Nothing more to judge in {} for now: {} documents judged. Thank you.", info.name,
                              int(mine["grade"].notna().sum())), icon=":material/task_alt:")
        if len(mine):
            st.button("Back to my last document", key="judge_back", icon=":material/arrow_back:", shortcut="Left",
                      on_click=_move, args=(tid, int(mine["position"].iloc[-1])))
        return
    shown = mine.loc[row]
    topic, docid = str(shown["topic"]), str(shown["docid"])
    on_topic = mine[mine["topic"] == topic]
    total = f"{info.budget:,}" if info.budget is not None else "every one the method proposes"
    st.caption(widgets.md("Document {} of yours · topic {}: {} of {} judged · the task: {} judged of {}",
                          list(mine.index).index(row) + 1, topic, int(on_topic["grade"].notna().sum()), len(on_topic),
                          data.judging().counts(tid)["documents"], total))
    document_view(topic, docid, *_texts(info, topic, docid))
    given = None if shown["grade"] != shown["grade"] else int(shown["grade"])
    grade_control(info.scale.grades, info.scale.labels, given, _grade, (tid, topic, docid))
    back, skip, undo, forward = st.columns(4)
    position = int(shown["position"])
    earlier = mine[mine["position"] < position]["position"]
    back.button("Previous", key="judge_previous", icon=":material/arrow_back:", shortcut="Left", width="stretch",
                disabled=not len(earlier), on_click=_move, args=(tid, int(earlier.iloc[-1]) if len(earlier) else None))
    skip.button("Skip", key="judge_skip", icon=":material/skip_next:", shortcut="S", width="stretch",
                on_click=_grade, args=(tid, topic, docid, None, True))
    undo.button("Undo", key="judge_undo", icon=":material/undo:", shortcut="U", width="stretch",
                disabled=not mine["grade"].notna().any(), on_click=_undo, args=(tid, mine))
    later = mine[mine["position"] > position]["position"]
    forward.button("Next", key="judge_next", icon=":material/arrow_forward:", shortcut="Right", width="stretch",
                   disabled=given is None and not shown["skipped"],
                   on_click=_move, args=(tid, int(later.iloc[0]) if len(later) else None))
    st.caption("Keys: a grade's digit judges and moves on · S skips · U takes back the last judgment · ← → move "
               "through your documents.")


def judge_view(info) -> None:
    """The document to judge and its buttons, as a fragment of its own."""
    st.html(BUTTONS)
    st.fragment(_document)(info.id)
