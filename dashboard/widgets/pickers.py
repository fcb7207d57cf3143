"""Pickers bound to the URL (``bind="query-params"``): the widget's key is the query parameter, so the same
key on two pages (``topic``, ``systems``, ``measure``, ``baseline``...) carries the view from page to page, and
a link reproduces it. Keys of widgets that do not belong in a link carry their page's prefix. Measures come
from the registry: any spelling it parses is accepted, and its labels and help texts are the registry's.

Every widget bound to the URL is bound through :func:`in_link`, which keeps its key among the view's
(:func:`in_view`): what a presenter's followers are shown. A followed view sets those widgets and nothing
else, so it can never set a field that changes data (a system's name, a note): only the view is followed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

import metrics
from dashboard import data, figures
from dashboard.session.user_text import md
from dashboard.widgets.notices import error

__all__ = ["ALL_TOPICS", "BIND", "FEW", "choose", "in_link", "in_view", "highlighted", "label_of", "measure_help", "measure_label",
           "pick_measure", "pick_measures", "pick_system", "pick_systems", "pick_topic", "results_controls",
           "valid_measure"]

BIND = "query-params"
_VIEW: set[str] = set()  # keys of the widgets bound to the URL that this server process has drawn


def in_link(key: str) -> dict:
    """The keyword arguments of a widget bound to the URL under ``key`` (its key and the binding); the key
    is one of the view's from now on (:func:`in_view`)."""
    _VIEW.add(key)
    return {"key": key, "bind": BIND}


def in_view(name: str) -> bool:
    """Whether ``name`` is the key of a widget bound to the URL (a part of the view a presenter shows): any
    widget key of a session is one of these once that session has drawn it."""
    return name in _VIEW
_NAMES = "The names are those of the measures' registry ({})."
OFFERED = ("AP", "nDCG@10", "nDCG@20", "nDCG", "P@5", "P@10", "P@20", "R@100", "R@1000", "RR", "Rprec", "bpref",
           "IPrecAvg", "Success@10", "F@10", "ERR@20", "RBP", "Judged@10")


def valid_measure(spec: str, show: bool = False) -> bool:
    try:
        metrics.parse_measure(spec)
        return True
    except metrics.RankscopeError as err:
        if show:
            error(err)
        return False


def measure_label(spec: str) -> str:
    """``nDCG@10 — nDCG@k``: a measure with its pretty name from the registry."""
    try:
        measure = metrics.parse_measure(spec)
    except metrics.RankscopeError:
        return spec
    pretty = type(measure).pretty_name
    return spec if pretty in (spec, "") else f"{spec} — {pretty}"


def measure_help(spec: str) -> str:
    """The registry's description and formula of a measure (one source for every help text)."""
    measure = metrics.parse_measure(spec)
    cls = type(measure)
    trec = measure.trec_label()
    where = f"\n\ntrec_eval: `{trec}`" if trec else ""
    return md("**{}.** {}", cls.pretty_name or cls.name, cls.description) + f"\n\n$$ {cls.latex} $$" + where


def _names(measures: Sequence[str]) -> str:
    """The first measures offered, each with its pretty name, for a picker's help."""
    return ", ".join(f"{m}: {measure_label(m).split(' — ')[-1]}" for m in measures[:8])


def pick_measures(key: str, default: Sequence[str], label: str = "Measures") -> tuple[str, ...]:
    """A multiselect of measures (common ones offered, any registry spelling accepted), bound to the URL."""
    offered = list(dict.fromkeys([*default, *OFFERED]))
    chosen = st.multiselect(label, offered, default=list(default), accept_new_options=True, **in_link(key),
                            help=md('Any measure of the registry, e.g. nDCG(gain="exp")@10 or P(rel=2)@5. ' + _NAMES,
                                    _names(offered)))
    chosen = [label_of(m) for m in chosen if valid_measure(m, show=True)]
    return tuple(dict.fromkeys(chosen)) or tuple(default)


def pick_measure(key: str, options: Sequence[str], label: str = "Measure") -> str:
    """One measure, bound to the URL (any registry spelling accepted); returned as its tables label it
    (:func:`label_of`), the spelling typed or linked kept among the options."""
    current = st.session_state.get(key, st.query_params.get(key))
    options = list(dict.fromkeys([*options, *([current] if isinstance(current, str) and current else [])]))
    chosen = st.selectbox(label, options, accept_new_options=True, **in_link(key),
                          help=md('Any measure of the registry, e.g. nDCG(gain="exp")@10. ' + _NAMES, _names(options)))
    if chosen is None or not valid_measure(chosen, show=True):
        return options[0]
    return label_of(chosen)


def label_of(spec: str) -> str:
    """The label the tables give a measure typed or linked as ``spec`` (:func:`metrics.resolve_measures`:
    ``IPrec@0.5`` is ``IPrec(recall=0.5)``, ``MAP`` is ``AP``, ``P_10`` stays ``P_10``), so that a page finds
    its rows under the name it asked for. A trec_eval list (``P``: P_5 ... P_1000) is the one measure it
    parses to."""
    pairs = metrics.resolve_measures([spec])
    return pairs[0][0] if len(pairs) == 1 else metrics.resolve_measures([metrics.parse_measure(spec)])[0][0]


def pick_system(key: str, systems: Sequence[str], label: str, default: int = 0) -> str:
    """One system, bound to the URL; a name the collection does not hold (a link of another collection, a
    session's earlier choice) gives the default."""
    systems = list(systems)
    index = min(default, len(systems) - 1)
    chosen = st.selectbox(label, systems, index=index, **in_link(key))
    return chosen if chosen in systems else systems[index]


FEW = figures.HIGHLIGHTED  # systems chosen by default (and drawn in colour) when there are more


def pick_systems(key: str, systems: Sequence[str], label: str = "Systems",
                 ranked: Sequence[str] | None = None) -> tuple[str, ...]:
    """Systems shown, bound to the URL (type to find one): all of them up to :data:`FEW` systems, else the
    first :data:`FEW` of ``ranked`` (the systems best first, e.g. :func:`dashboard.data.by_mean`); an empty
    choice shows that default."""
    systems = list(systems)
    default = systems if len(systems) <= FEW else list(ranked or systems)[:FEW]
    chosen = st.multiselect(label, systems, default=default, **in_link(key),
                            placeholder="Type to find a system")
    return tuple(s for s in systems if s in chosen) or tuple(s for s in systems if s in default)


def highlighted(shown: Sequence[str], ranked: Sequence[str] | None = None,
                pinned: Sequence[str] = ()) -> list[str] | None:
    """The systems a chart of ``shown`` draws in colour (:func:`dashboard.figures.highlight`): None (all of
    them) up to :data:`FEW`; else ``pinned`` first, then the best of ``shown`` in ``ranked``'s order."""
    if len(shown) <= FEW:
        return None
    wanted = set(shown)
    return list(dict.fromkeys([*pinned, *(s for s in (ranked or shown) if s in wanted)]))[:FEW]


def results_controls(systems: Sequence[str]) -> tuple[tuple[str, ...], str, str, str, float]:
    """Measures, baseline, test, correction and alpha of a results table, in one row, bound to the URL.

    The overview and the report share these keys, so a choice made on one page holds on the other.
    """
    measures = pick_measures("measures", data.DEFAULT_MEASURES)
    columns = st.columns([3, 3, 3, 2])
    with columns[0]:
        baseline = pick_system("baseline", systems, "Baseline")
    with columns[1]:
        test = choose("test", "Test", data.TESTS, help=data.TEST_HELP)
    with columns[2]:
        correction = choose("correction", "Correction", data.CORRECTIONS, help=data.CORRECTION_HELP)
    alpha = columns[3].select_slider("Significance level α", [0.01, 0.05, 0.1], value=0.05, **in_link("alpha"))
    return measures, baseline, test, correction, alpha


ALL_TOPICS = "all topics"


def pick_topic(key: str, topics: Sequence[str], label: str = "Topic", allow_all: bool = False,
               texts: Mapping[str, str] | None = None) -> str | None:
    """A topic (or all of them, averaged), bound to the URL; with ``texts``, the chosen topic's query text
    is shown beneath, as plain text."""
    options = ([ALL_TOPICS] if allow_all else []) + list(topics)
    chosen = st.selectbox(label, options, **in_link(key))
    topic = None if chosen in (None, ALL_TOPICS) else chosen
    if topic is not None and texts is not None and texts.get(topic):
        st.text(texts[topic])
    return topic


def choose(key: str, label: str, options: dict, *, radio: bool = False, horizontal: bool = True, index: int = 0,
           help: str | None = None):
    """A choice among named options (``{value: label}``), bound to the URL."""
    values = list(options)
    if radio:
        return st.radio(label, values, index=index, format_func=options.get, horizontal=horizontal,
                        help=help, **in_link(key))
    return st.selectbox(label, values, index=index, format_func=options.get, help=help, **in_link(key))
