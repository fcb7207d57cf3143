"""Starting a judging task from the judges page, for those whose role may (``assign``: an editor or owner in the
login mode; everyone in the open mode, as every other change): the method and its options, read from the
methods' declarations (:data:`metrics.judgments.pooling.METHODS`), the budget, the topics, the assessors, the
share of documents given to two of them, and the grade scale with a label per grade (the collection's by
default).

What is typed is handed to :meth:`workspace.judging.Judging.start` as the command line hands it
(``rankscope workspace judge``): the assessors read by the same :func:`workspace.judging.listed`, a method's
options only when they differ from its defaults, and every check and refusal the store's, shown in one line.
"""

from __future__ import annotations

import streamlit as st

from dashboard import widgets
from dashboard.data import judging as data
from dashboard.data.files import topics_of
from dashboard.panels.judging_tasks import CHOSEN, NOTICE
from dashboard.store import sync
from dashboard.widgets import md
from metrics import RankscopeError
from metrics.checks import Integer, Number, Options

__all__ = ["KEY", "form"]

KEY = "judging_start"  # the prefix of the form's widgets


def form(loaded) -> None:
    """The form that starts a judging task on the loaded stored collection; nothing for a person whose role may
    not start one, or without a workspace."""
    if not data.available() or not loaded.collection or not sync.may("assign"):
        return
    from metrics.judgments.assessors import MERGES, MOST_GRADES
    from metrics.judgments.pooling import METHODS

    from workspace.judging import MAX_BUDGET, MAX_DEPTH

    st.subheader("Start a judging task")
    try:
        default = data.judging().scale_of(loaded.collection)
    except RankscopeError as err:
        widgets.error(err)
        return
    top, left = st.columns([2, 3])
    method = top.selectbox("Method", list(METHODS), key=f"{KEY}_method",
                           format_func=lambda m: f"{METHODS[m].title[:1].upper()}{METHODS[m].title[1:]} ({m})")
    left.caption(md("{} ({})", METHODS[method].help, METHODS[method].reference))
    cols = st.columns(3)
    budget = cols[0].number_input("Budget (documents)", min_value=1, max_value=MAX_BUDGET, value=None, step=1,
                                  key=f"{KEY}_budget", placeholder="every one",
                                  help="The most documents to judge, a second assessor's copy not counted.")
    depth = cols[1].number_input("Depth of the runs", min_value=1, max_value=MAX_DEPTH, value=100, step=1,
                                 key=f"{KEY}_depth")
    overlap = cols[2].number_input("Share judged twice", min_value=0.0, max_value=1.0, value=0.0, step=0.05,
                                   key=f"{KEY}_overlap", help="The share of documents given to a second assessor, "
                                                              "for agreement (two assessors or more).")
    given = _options(METHODS[method])
    assessors = st.text_input("Assessors", key=f"{KEY}_assessors", placeholder="ana@example.org, bea@example.org",
                              help="Their identities, comma-separated; none: whoever may judge. An owner's "
                                   "assessors without a role get the assessor role.")
    topics = st.multiselect("Topics", topics_of(loaded), key=f"{KEY}_topics", placeholder="every topic of the runs")
    name, rule = st.columns([3, 2])
    title = name.text_input("Name", key=f"{KEY}_name", max_chars=120, placeholder="judging N",
                            help="Names the task's judgment sets (NAME:merged, NAME:adjudicated, NAME:assessor).")
    merge = rule.selectbox("Two different grades", list(MERGES), format_func=MERGES.get, key=f"{KEY}_rule")
    highest = st.number_input("Highest grade", min_value=1, max_value=MOST_GRADES - 1, value=default.grades[-1],
                              key=f"{KEY}_highest", help="The grades are 0 to this one, each with a label.")
    labels = _labels(int(highest), default)
    widgets.ask_name(f"{KEY}_author")
    if st.button("Start the task", key=f"{KEY}_go", icon=":material/rate_review:", type="primary"):
        _start(loaded.collection, dict(method=method, name=title.strip() or None, assessors=assessors,
                                       overlap=float(overlap), budget=None if budget is None else int(budget),
                                       depth=int(depth), topics=list(topics) or None, rule=merge, options=given),
               labels)
        st.rerun()  # the tasks' view, drawn above, shows the new task and what the store said


def _options(method) -> dict:
    """A field per option of the method, by its rule; the options set to something else than their default."""
    given = {}
    cols = st.columns(max(len(method.options), 1))
    for col, option in zip(cols, method.options):
        key, rule, name = f"{KEY}_{method.name}_{option.name}", option.rule, option.name.replace("_", " ").capitalize()
        if isinstance(rule, Options):
            value = col.selectbox(md("{}", name), list(rule.values), index=list(rule.values).index(option.default),
                                  key=key, help=md("{}", option.help))
        elif isinstance(rule, Integer):
            value = col.number_input(md("{}", name), min_value=rule.low, max_value=rule.high, value=option.default,
                                     step=1, key=key, help=md("{}", option.help))
        elif isinstance(rule, Number):
            value = col.number_input(md("{}", name), value=float(option.default), key=key, format="%g",
                                     help=md("{}", option.help))
        else:  # text the method checks itself
            value = col.text_input(md("{}", name), value=option.default or "", key=key,
                                   help=md("{}", option.help)).strip() or None
        if value is not None and value != option.default:
            given[option.name] = value
    return given


def _labels(highest: int, default) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """A label field per grade, each the collection's label (or the usual word) until changed."""
    from metrics.judgments.assessors import scale_of

    usual = default if default.grades[-1] == highest else scale_of([highest])
    cols = st.columns(min(highest + 1, 5))
    labels = [cols[g % len(cols)].text_input(md("Label of grade {}", g), value=usual.labels[g], max_chars=60,
                                             key=f"{KEY}_label_{highest}_{g}")
              for g in range(highest + 1)]
    return tuple(range(highest + 1)), tuple(labels)


def _start(cid: str, settings: dict, labels: tuple) -> None:
    from metrics.judgments.assessors import GradeScale
    from workspace.judging import listed

    try:
        info = data.judging().start(cid, **{**settings, "assessors": listed(settings["assessors"])},
                                    scale=GradeScale(*labels))
    except RankscopeError as err:
        st.session_state[NOTICE] = err
        return
    st.session_state[CHOSEN] = info.id
    st.session_state[NOTICE] = (f"Started {info.name} ({info.method}): assessors judge at the judge page's link "
                                f"with ?task={info.id}.")
