"""The owner's side of judging, on the judges page: a task's progress, how sure each pair's order is under the
judgments so far (following new judgments without a reload), the documents two assessors graded differently
with the owner's adjudication, and the judgment sets the task makes, saved as a new version of the collection
so that every page reads them. The overview and trust pages show the same firming view of the collection's
task (:func:`firming_view`), the numbers computed once per task revision by :func:`dashboard.data.judging.firming`.

The firming view is a fragment that reruns every :data:`EVERY` seconds and reads one number (the task's
revision, shared by every page of a server process for a second); the decision is read again only when it moved.
"""

from __future__ import annotations

import streamlit as st

from dashboard import widgets
from dashboard.data import judging as data
from dashboard.widgets import md
from metrics import RankscopeError

__all__ = ["CHOSEN", "EVERY", "NOTICE", "firming_view", "tasks_view"]

EVERY = 3  # seconds between two looks at a task's revision
NOTICE = "tasks_notice"  # what the last action said, shown at the next run
CHOSEN = "tasks_task"  # the task chosen (the one just started, once started from the judges page)


def tasks_view(loaded) -> None:
    """The judging tasks of the loaded stored collection, one chosen."""
    tasks = _tasks(loaded)
    if tasks is None:
        return
    notice = st.session_state.pop(NOTICE, None)
    if notice is not None:
        (st.success if isinstance(notice, str) else widgets.error)(notice)
    if not tasks:
        st.caption("No judging task on this collection: an editor starts one here or with rankscope workspace "
                   "judge ID.")
        return
    names = {t.id: t for t in tasks}
    chosen = st.selectbox("Judging task", list(names), key=CHOSEN,
                          format_func=lambda tid: f"{names[tid].name} ({names[tid].method})")
    st.caption(md("Assessors judge at the judge page's link with ?task={}.", chosen))
    st.fragment(run_every=EVERY)(_firming)(chosen)
    _disagreements(chosen)
    st.button("Save the task's judgment sets as a new version", key="tasks_save", icon=":material/save:",
              on_click=_save, args=(chosen,))
    _downloads(names[chosen])


def _downloads(info) -> None:
    """The task's judgments to take away: every set as TREC qrels and the table, in one zip; the table alone."""
    from dashboard.exports import zip_bytes
    from dashboard.exports.judgments import file_name

    def files() -> dict[str, bytes]:
        return data.task_files(info)

    stem = file_name(info.name, "").split("/", 1)[1]
    widgets.downloads({"Judgments: every set as qrels, and the table (zip)": (lambda: zip_bytes(files()),
                                                                               f"{stem}.zip"),
                       "Judgments table (CSV)": (lambda: files()[file_name(info.name, ".csv")], f"{stem}.csv")},
                      key="tasks_dl")
    st.caption("The sets: merged (the collection's judgments and the task's, two grades merged by the task's rule), "
               "adjudicated (once the owner has decided one), and one per assessor; the table: every judgment with "
               "its assessor and time.")


def _tasks(loaded) -> list | None:
    """The loaded collection's judging tasks; None without a workspace, or when they cannot be read (said)."""
    if not data.available():
        return None
    try:
        return data.tasks_of(loaded)
    except RankscopeError as err:
        widgets.error(err)
        return None


def firming_view(loaded, key: str) -> None:
    """How the conclusion firms up under the loaded stored collection's judging task (the newest open one, else
    the newest): the pairs, Judged@10 before and now, the judgments still needed, following new judgments as the
    judges page does. Nothing when the collection has no task. ``key``: the prefix of its tables' keys."""
    tasks = _tasks(loaded)
    if not tasks:
        return
    info = next((t for t in tasks if not t.closed), tasks[0])
    st.subheader(md("As the judgments of {} arrive", info.name))
    st.fragment(run_every=EVERY)(_firming)(info.id, key, per_assessor=False)


def _firming(tid: str, key: str = "tasks", *, per_assessor: bool = True) -> None:
    try:
        info = data.judging().task(tid)
        firm = data.firming(info)
        progress = data.progress(info) if per_assessor else None
    except RankscopeError as err:
        widgets.error(err)
        return
    shown = st.columns(3)
    shown[0].metric("Documents judged by the task", f"{firm['judged_now']:,}")
    needed = firm["needed"]
    shown[1].metric("Judgments still needed (estimate)", "more than there are" if needed != needed else f"{needed:,.0f}")
    shown[2].metric("Pairs decided", f"{int(firm['pairs']['decided'].sum())} of {len(firm['pairs'])}")
    st.caption(md("{}: each pair's probability that its order holds under the judgments so far ({}; decided at "
                  "{:.0%}).", firm["measure"], firm["model"], firm["confidence"]))
    widgets.table(firm["pairs"].head(data.SHOWN_PAIRS), key=f"{key}_pairs", numbers=["probability"])
    widgets.table(firm["runs"], key=f"{key}_runs", numbers=["judged_before", "judged_after"])
    if progress is not None:
        widgets.table(progress, key=f"{key}_progress")


def _disagreements(tid: str) -> None:
    try:
        info = data.judging().task(tid)
        apart = data.disagreements(info)
    except RankscopeError as err:
        widgets.error(err)
        return
    if not len(apart):
        st.caption("No document has two different grades.")
        return
    st.subheader("Where the assessors disagree")
    widgets.table(apart, key="tasks_apart")
    rows = {f"{t} · {d}": (t, d) for t, d in zip(apart["topic"], apart["docid"])}
    pick, grade, go = st.columns([3, 2, 1], vertical_alignment="bottom")
    which = pick.selectbox("Document", list(rows), key="tasks_apart_doc")
    scale = info.scale
    given = grade.selectbox("Grade that counts", list(scale.grades), key="tasks_apart_grade",
                            format_func=lambda g: f"{g} · {scale.labels[scale.grades.index(g)]}")
    go.button("Adjudicate", key="tasks_adjudicate", on_click=_adjudicate, args=(tid, *rows[which], given))


def _adjudicate(tid: str, topic: str, docid: str, grade: int) -> None:
    try:
        data.judging().adjudicate(tid, topic, docid, grade)
    except RankscopeError as err:
        st.session_state[NOTICE] = err


def _save(tid: str) -> None:
    try:
        made = data.judging().save_sets(tid)
    except RankscopeError as err:
        st.session_state[NOTICE] = err
        return
    st.query_params["collection"] = made.id  # the next run opens the new version: every page reads its sets
    st.session_state[NOTICE] = f"Saved as version {made.version}: every page now reads the task's judgment sets."
