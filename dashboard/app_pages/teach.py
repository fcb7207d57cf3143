"""Live class: the teacher's screen. Students predict on their phones, then the measure reveals."""

from __future__ import annotations

import streamlit as st

from dashboard import widgets
from dashboard.data import live_class as data
from dashboard.panels import class_teacher as teacher
from dashboard.panels import class_student as live
from metrics import RankscopeError
from metrics.teaching.judging import Judging
from metrics.teaching.questions import labels

st.title("Live class")
widgets.start_here("Students predict, then the measure reveals. Make questions on the **learn** page (\"Ask the "
                   "class about this ranking\"), start the class, let students join with the code, open each "
                   "question, then reveal the answers, the formula with the ranking's numbers and the usual "
                   "mistakes.")
if not data.available():
    st.info("A live class keeps its state in the workspace, which this server has none of: start it with "
            "`rankscope dashboard` (it opens ./rankscope-workspace) or set RANKSCOPE_WORKSPACE.")
    st.stop()

teaching = teacher.teaching()
if teaching is None:
    questions, lesson = teacher.lesson_panel()
    if questions and st.button("Start the class", type="primary", key="class_start", icon=":material/groups:"):
        try:
            teacher.started(*teacher.start(questions, lesson))
        except RankscopeError as err:
            widgets.error(err)
        else:
            st.rerun()
    st.stop()

code, key = teaching
try:
    status = data.status_now(code)
    questions = data.class_questions(code)
except RankscopeError as err:
    widgets.error(err)
    st.stop()
live.class_banner(code)
teacher.controls(code, key, status, status.count)
teacher.answer_count(code, status)
if status.current < 0:
    st.info(widgets.md("{} questions ready. Open the first when the students have joined.", status.count))
elif isinstance(questions[status.current], Judging):
    teacher.judging_view(code, status, questions[status.current])
else:
    question = questions[status.current]
    live.show_question(question, status.current, status.count)
    names = [f"{label}: {r.name}" for label, r in zip(labels(question), question.rankings) if r.name]
    if names:
        st.caption(widgets.md("Rankings (not shown to students): {}", "; ".join(names)))
    if status.phase == "revealed":
        teacher.reveal_view(question, teacher.answers_of(code, status.current, question))
teacher.results(code, questions)
