"""The teacher's side of a live class: questions made on the learn page from the ranking shown there, the
lesson (made now or saved before), the controls that open and reveal each question, the count of answers
while a question is open, and the reveal: the distribution, the right answer, the worked formula with this
ranking's numbers and each known mistake's share. Documents of the learn page's topic to judge are made there
too (:func:`judging_maker`); their reveal (:func:`judging_view`) shows each document's grades, how far the
students agree, and the two systems under the reference and under the class's grades.
"""

from __future__ import annotations

from urllib.parse import unquote

import streamlit as st

from dashboard import figures, pages, widgets
from dashboard.data import live_class as data
from dashboard.exports.class_results import class_csv
from dashboard.panels import class_student as live
from dashboard.session.typed_name import cookie_script
from metrics import RankscopeError, ValidationError
from metrics.teaching import questions as q
from metrics.teaching.judging import MAX_DOCUMENTS, Judging, first_under
from metrics.teaching.reveal import parse_answer

TOLERANCES = (0.001, 0.005, 0.01, 0.02, 0.05)
CLASS_COOKIE = "rankscope_class"  # "CODE.KEY": the class this browser teaches, for its reloads and new tabs
_KEEP = "class_keep"  # the cookie's value to write in this run ("": remove it)
COUNT_EVERY = 1.0  # seconds between two counts of the answers on the teacher's screen


# ---- making questions on the learn page ----------------------------------------------------------------
def question_maker(loaded, system: str, topic: str, source: str, ranks: int, *, stored: str | None = None) -> None:
    """"Ask the class about this ranking": a question on the learn page's ranking, added to the lesson.
    ``stored``: the stored collection (a version's id) the ranking comes from, None for none."""
    with st.expander("Ask the class about this ranking", icon=":material/co_present:"):
        kind = st.radio("Question", list(q.KINDS), format_func=q.KINDS.get, horizontal=True, key="class_kind")
        left, middle, right = st.columns(3)
        measure = left.selectbox("Measure", q.SUGGESTED, key="class_measure", accept_new_options=True)
        # one field per ranking shown: a ranking of another length starts from its own default, never from the
        # number the previous one had (8 ranks of a worked example kept for a ranking of 20)
        depth = middle.number_input("Ranks in the question", 1, q.MAX_RANKS, min(10, ranks, q.MAX_RANKS),
                                    key=f"class_depth_{source}_{system}_{topic}_{ranks}")
        tolerance = right.select_slider("Numbers right within", TOLERANCES, value=0.01, key="class_tolerance")
        others = [s for s in loaded.systems if s != system]
        try:
            first = data.ranking_of_topic(loaded, system, topic, int(depth))
            rankings, change = (first,), None
            if kind == "change":
                what, at, to = st.columns(3)
                how = what.radio("Change", ["move", "grade"], key="class_change",
                                 format_func={"move": "a document moves", "grade": "a grade changes"}.get)
                rank = at.number_input("Document at rank", 1, len(first.grades), 1, key="class_change_rank")
                top = len(first.grades) if how == "move" else q.MAX_GRADE
                new = to.number_input("to rank" if how == "move" else "new grade", 0 if how == "grade" else 1, top,
                                      min(top, 2), key="class_change_to")
                change = q.Change(how, int(rank), int(new))
            elif kind == "compare":
                rankings = (first, _second(loaded, topic, others, int(depth)))
            elif kind == "order":
                rankings = (first, *_more(loaded, topic, others, int(depth)))
            question = q.Question(kind, measure, rankings, change, rel=max(loaded.conventions.relevance_level, 1),
                                  tolerance=float(tolerance), source=f"{source}: {first.name}")
            preview = data.right(question)
        except RankscopeError as err:
            widgets.error(err)
            return
        st.text(q.prompt(question))
        st.caption(widgets.md("Right answer (students do not see it): {}", _shown(question, preview.answer)))
        if st.button("Add to the lesson", key="class_add", icon=":material/add:"):
            try:
                data.add_to_draft(question, stored or None)
            except RankscopeError as err:
                widgets.error(err)
        st.caption(widgets.md("The lesson has {} question(s).", len(data.draft())))
        st.page_link(pages.by_script("teach").path, label="Teach this lesson", icon=":material/co_present:")


def judging_maker(loaded, system: str, topic: str) -> None:
    """"Ask the class to judge this topic": the first documents of the learn page's system and another one, to
    be graded by every student, added to the lesson."""
    with st.expander("Ask the class to judge this topic", icon=":material/gavel:"):
        others = [s for s in loaded.systems if s != system]
        if not others:
            st.caption("The class's grades are read against two systems: load a second run.")
            return
        left, middle, right = st.columns(3)
        second = left.selectbox("Against the system", others, key="class_judge_system")
        count = middle.number_input("Documents to judge", 2, MAX_DOCUMENTS, min(10, MAX_DOCUMENTS),
                                    key="class_judge_count")
        measure = right.selectbox("Then both measured by", q.SUGGESTED, index=q.SUGGESTED.index("nDCG@10"),
                                  key="class_judge_measure")
        st.caption(widgets.md("The {} documents come from the tops of {} and {}, interleaved; students see them in an "
                              "order of their own, with the topic's text.", int(count), system, second))
        if st.button("Add to the lesson", key="class_judge_add", icon=":material/add:"):
            try:
                data.add_to_draft(data.judging_question(loaded, topic, (system, second), int(count), measure),
                                  loaded.collection or None)
            except RankscopeError as err:
                widgets.error(err)
        st.caption(widgets.md("The lesson has {} question(s).", len(data.draft())))
        st.page_link(pages.by_script("teach").path, label="Teach this lesson", icon=":material/co_present:")


def prompt(question) -> str:
    """What a question of the lesson asks (on rankings, or documents to judge)."""
    return question.prompt() if isinstance(question, Judging) else q.prompt(question)


def _shown(question, answer) -> str:
    from metrics.teaching.reveal import shown

    return shown(question, answer)


def _second(loaded, topic: str, others: list[str], depth: int) -> q.Ranking:
    if others and st.radio("Ranking B", ["system", "typed"], key="class_b_from", horizontal=True,
                           format_func={"system": "another system", "typed": "typed in"}.get) == "system":
        return data.ranking_of_topic(loaded, st.selectbox("System B", others, key="class_b_system"), topic, depth)
    return live.typed_ranking(st.text_input("Ranking B: grades at ranks 1, 2, 3, …", "0 1 1 0 1", key="class_b"))


def _more(loaded, topic: str, others: list[str], depth: int) -> list[q.Ranking]:
    if len(others) >= 1:
        chosen = st.multiselect("The other systems (1 to 5)", others, default=others[:2], max_selections=5,
                                key="class_order_systems")
        if chosen:
            return [data.ranking_of_topic(loaded, s, topic, depth) for s in chosen]
    text = st.text_area("The other rankings, one per line (grades)", "0 1 1 0\n1 1 0 0", key="class_order_typed")
    rows = [line for line in text.splitlines() if line.strip()][:5]
    return [live.typed_ranking(line) for line in rows]


# ---- the lesson -------------------------------------------------------------------------------------------
def lesson_panel() -> tuple[tuple, str | None]:
    """The questions to teach: the lesson made on the learn page, or a saved one (those the person may teach:
    :mod:`workspace.classroom`). Returns them and the id of the saved lesson they came from."""
    room = data.room()
    saved = room.lessons()
    choices = {"": "the lesson made on the learn page", **{info.id: _label(info) for info in saved}}
    chosen = st.selectbox("Lesson", list(choices), format_func=choices.get, key="class_lesson")
    questions = tuple(data.draft()) if not chosen else next(i.questions for i in saved if i.id == chosen)
    if not questions:
        st.info("No questions yet: on the learn page, choose a ranking and use \"Ask the class about this ranking\".")
        st.page_link(pages.by_script("learn").path, label="Go to learn", icon=":material/school:")
        return (), None
    for i, question in enumerate(questions, start=1):
        st.text(f"{i}. {prompt(question)}  [{question.source}]")
    if not chosen:
        name_col, save_col, clear_col = st.columns([3, 1, 1], vertical_alignment="bottom")
        name = name_col.text_input("Keep this lesson as", placeholder="e.g. week 3: AP and nDCG", key="class_name")
        if save_col.button("Save", key="class_save", icon=":material/save:", disabled=not name.strip()):
            try:
                info = room.save_lesson(name.strip(), questions, author=live.author(),
                                        collection=data.draft_collection())
                st.success(widgets.md("Saved as {}: it is in the list of lessons.", info.name))
            except RankscopeError as err:
                widgets.error(err)
        if clear_col.button("Clear", key="class_clear", icon=":material/delete:"):
            data.draft().clear()
            st.rerun()
    return questions, chosen or None


def _label(info) -> str:
    made = f", collection {info.collection} v{info.version}" if info.collection else ""
    return f"{info.name} ({len(info.questions)} questions, {info.created_at[:10]}{made})"


def start(questions: tuple, lesson: str | None) -> tuple[str, str]:
    """Start a class of a saved lesson, or of the lesson being made (with the collection it comes from)."""
    if lesson:
        return data.room().start(author=live.author(), lesson=lesson)
    return data.room().start(questions, author=live.author(), collection=data.draft_collection())


# ---- the running class --------------------------------------------------------------------------------------
def teaching() -> tuple[str, str] | None:
    """``(code, key)`` of the class this session teaches: the one it started or, in a session the teacher
    opened since (a reload, a new tab), the running class whose key this browser kept (:data:`CLASS_COOKIE`).
    A class belongs to its teacher's browser, not to one of its sessions, so a reload never strands the
    students. Asked again at every run: a class that ended, or whose collection the person may no longer
    teach, is not theirs any more. The cookie is written here, in the run after the class started, and
    removed after it ended."""
    now = st.session_state.get(live.TEACHING)
    if now is None:
        code, _, key = unquote(str(st.context.cookies.get(CLASS_COOKIE) or "")).partition(".")
        now = (code, key) if code else None
    try:
        if now is not None and not data.room().teaches(*now):
            now = None
    except RankscopeError as err:
        widgets.error(err)
        now = None
    if now is None:
        st.session_state.pop(live.TEACHING, None)
    else:
        st.session_state[live.TEACHING] = now
    kept = st.session_state.pop(_KEEP, None)
    if kept is not None:
        from workspace.classroom import CLASS_HOURS

        st.html(cookie_script(CLASS_COOKIE, kept, CLASS_HOURS * 3600), unsafe_allow_javascript=True)
    return now


def started(code: str, key: str) -> None:
    """The class just started is this session's, and its browser's (written in the next run)."""
    st.session_state[live.TEACHING] = (code, key)
    st.session_state[_KEEP] = f"{code}.{key}"


def controls(code: str, key: str, status, count: int) -> None:
    """Open the next question, reveal the shown one, close the class (each a callback: the page then draws
    the new state in one run)."""
    nxt = status.current + 1
    cols = st.columns(3)
    if status.phase == "open":
        cols[0].button("Reveal the answer", type="primary", key="class_reveal", icon=":material/visibility:",
                       on_click=_act, args=("reveal", code, key))
    elif nxt < count:
        cols[0].button(widgets.md("Open question {}", nxt + 1), type="primary", key="class_next", icon=":material/play_arrow:",
                       on_click=_act, args=("show", code, key, nxt))
    cols[2].button("End the class", key="class_end", icon=":material/stop:", on_click=_act, args=("close", code, key))
    if st.session_state.get(ACTION_ERROR):
        widgets.error(st.session_state.pop(ACTION_ERROR))


ACTION_ERROR = "class_action_error"


def _act(action: str, code: str, key: str, *args) -> None:
    try:
        getattr(data.room(), action)(code, key, *args)
    except RankscopeError as err:
        st.session_state[ACTION_ERROR] = err
        return
    if action == "close":
        st.session_state.pop(live.TEACHING, None)
        st.session_state[_KEEP] = ""  # the browser forgets the key


def answer_count(code: str, status) -> None:
    """How many have answered the question shown, counted again every :data:`COUNT_EVERY` seconds, and what
    this server refused the class in the last minute (new sessions, answers past one address's bounds); the
    page is drawn again when the class changed elsewhere (another tab of the teacher's)."""

    @st.fragment(run_every=COUNT_EVERY)
    def _count() -> None:
        try:
            now = data.room().status(code)
        except RankscopeError as err:
            widgets.error(err)
            return
        if now.revision != status.revision:
            st.rerun()
        shown = data.room().count(code, status.current) if status.current >= 0 else 0
        st.metric("Answers" if status.phase != "revealed" else "Answers (closed)", shown)
        refused = data.flood().refused(code)
        if refused:
            st.warning(widgets.md("{}: more than the bounds of one address (see the server's settings).",
                                  refused.sentence().capitalize()), icon=":material/block:")

    _count()


def reveal_view(question: q.Question, answers: tuple[str, ...]) -> None:
    """The distribution of the answers, the right answer, the worked formula, each mistake's share."""
    shown = data.class_reveal(question, answers)
    st.markdown(widgets.md("### Right answer: {}", shown.right_answer))
    st.caption(widgets.md("{} of {} right ({:.0%}).", shown.right_count, shown.answers, shown.right_share))
    if shown.answers:
        widgets.show_figure(figures.answers_chart(shown.bars, shown.right_answer, "The class's answers"),
                            key="class_answers_chart", name="answers")
    for title, latex in data.worked_formulas(question):
        st.caption(widgets.md("{}", title.capitalize()))
        st.latex(latex)
    if shown.mistakes:
        st.markdown("**The usual mistakes on this question**")
        for m in shown.mistakes:
            st.text(f"{m.share:.0%} ({m.count}) {m.title}: {m.answer}")
    for title in shown.indistinct:
        st.caption(widgets.md("Not told apart here (it gives the right answer on this ranking): {}.", title))


def results(code: str, questions: tuple) -> None:
    """The class's answers as a CSV file (anonymous unless nicknames were given)."""
    answers = data.room().answers(code)
    st.download_button("Results (CSV)", lambda: class_csv(questions, answers), f"class-{code}.csv", "text/csv",
                       key="class_csv", icon=":material/download:", on_click="ignore")


def answers_of(code: str, position: int, question: q.Question) -> tuple[str, ...]:
    """The stored answers to one question (each one readable: :func:`metrics.teaching.reveal.parse_answer`)."""
    out = []
    for a in data.room().answers(code, position):
        try:
            parse_answer(question, a.answer)
        except ValidationError:  # pragma: no cover - stored answers were read the same way
            continue
        out.append(a.answer)
    return tuple(out)


# ---- documents to judge -------------------------------------------------------------------------------------
def judging_view(code: str, status, question: Judging) -> None:
    """Documents to judge on the teacher's screen: what the class is asked, then, once revealed, each document's
    grades, the students' agreement (Fleiss' kappa among those who graded every document, Krippendorff's alpha
    among all), the reference's when it judged them, and the two systems under the reference and the class."""
    st.caption(widgets.md("Question {} of {}", status.current + 1, status.count))
    st.markdown(widgets.md("**{}**", question.prompt()))
    st.caption(widgets.md("Topic {}: {}", question.topic, question.query or "(no text)"))
    if status.phase != "revealed":
        return
    answers = tuple((a.student, a.answer) for a in data.room().answers(code, status.current))
    shown = data.class_judged(question, answers)
    if shown is None:
        st.info("Nobody gave a grade.", icon=":material/info:")
        return
    counts, reference, agreement, systems = shown
    widgets.show_figure(figures.class_grades_chart(counts, reference, "The class's grades of each document"),
                        key="class_grades_chart", name="grades")
    _agreement(agreement)
    st.markdown(widgets.md("**{} and {} by {}**", *(name for name, _ in question.systems), question.measure))
    widgets.table(systems, key="class_judge_systems", numbers=["value"])
    _order(systems)


def _agreement(found: dict) -> None:
    """The students' agreement, and the reference's, in words; an undefined statistic says why."""
    kappa, complete = found["fleiss_kappa"], int(found["complete"])
    if complete < 2:
        st.markdown(widgets.md("Fleiss' kappa is undefined: it needs two students who graded every document, and {} "
                               "did.", complete))
    elif kappa != kappa:
        st.markdown("Fleiss' kappa is undefined: every grade given was the same, so nothing tells agreement from "
                    "chance.")
    else:
        st.markdown(widgets.md("Fleiss' kappa among the {} students who graded every document: **{:.3f}**.", complete,
                               kappa))
    alpha = found["alpha_ordinal"]
    st.markdown(widgets.md("Krippendorff's alpha (ordinal) among all {} students: {}.", int(found["students"]),
                           "undefined" if alpha != alpha else f"{alpha:.3f}"))
    if "reference_documents" not in found:
        st.markdown("The reference judged none of these documents.")
        return
    with_ref = found["kappa_with_reference"]
    st.markdown(widgets.md("Against the reference, which judged {} of these documents: the class's grade (the most "
                           "given) is the reference's on {:.0%} of them; Cohen's kappa {}.",
                           int(found["reference_documents"]), found["agreement_with_reference"],
                           "undefined" if with_ref != with_ref else f"{with_ref:.3f}"))


def _order(systems) -> None:
    """Whether the class's grades change which of the two systems is first."""
    first = first_under(systems)
    said = {j: f"{name} is first" if name else "they tie (or one has no judged document)" for j, name in first.items()}
    if first["reference"] is None or first["reference"] != first["class"]:
        st.markdown(widgets.md("Under the reference {}; under the class's grades {}.", said["reference"],
                               said["class"]))
    else:
        st.markdown(widgets.md("The order holds: {} is first under the reference and under the class's grades.",
                               first["reference"]))
