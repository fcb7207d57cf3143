"""Render helpers shared by the pages: one way to show a chart, a table, an error, a picker, a download.

View widgets are bound to the URL (``bind="query-params"``): the widget's key is the query parameter, so
the same key on two pages (``topic``, ``systems``, ``measure``, ``baseline``...) carries the view from page
to page, and a link reproduces it. Keys of widgets that do not belong in a link carry their page's prefix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import metrics
from dashboard import data, figures, state
from dashboard.text import md, md_paragraphs  # noqa: F401  (the pages' one escaping path, re-exported)

PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
BIND = "query-params"
_NAMES = "The names are those of the measures' registry ({})."
PRESENT = "present"  # the URL's ?present=true: presentation mode, kept from page to page
PRESENT_SCALE = 1.35  # charts' text in presentation mode
# the narrowest main column a chart is drawn in, in pixels: a 1366-pixel window with the sidebar open, and a
# 1024-pixel projector in presentation mode (the screens tests/e2e/test_layout.py checks); a chart's texts are
# fitted to it (figures.fitted)
NARROWEST = {False: 906, True: 976}
GAP = 16  # pixels between columns
# constant stylesheets (never built from user text): captions in full contrast; a chart's texts in the page's
# font, the one plotly measures them in (its measuring box sits in the page's body: drawn in plotly's own
# fallback font, wider, the labels would pass the margins and titles measured for them); in presentation mode
# larger type, the page as wide as the screen, no sidebar
STYLE = """<style>
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { color: #262730; opacity: 1; }
.js-plotly-plot .plotly, .js-plotly-plot .plotly div { font-family: inherit !important; }
</style>"""
PRESENTATION = """<style>
html, html:root { font-size: 20px !important; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"]
  { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 100% !important; padding: 4.5rem 1.2rem 3rem !important; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.05rem; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { color: #000000; font-size: 0.95rem; }
[data-testid="stWidgetLabel"] p { font-size: 0.95rem; color: #000000; }
h1 { font-size: 2.1rem !important; }
</style>"""
# the file formats, one small example each (shown on the data page)
_QRELS = "401 0 FBIS3-10082 1\n401 0 FBIS3-10169 0\n401 0 LA012390-0040 2\n402 0 FT921-7107 1"
_RUN = ("401 Q0 LA012390-0040 1 14.82 bm25\n401 Q0 FBIS3-10082 2 13.50 bm25\n401 Q0 FT934-5418 3 11.07 bm25\n"
        "402 Q0 FT921-7107 1 9.93 bm25")
FORMAT_EXAMPLES = {
    "**Qrels** (the judgments), one line per judged document: topic, an unused column (0), document, grade "
    "(0 not relevant; 1, 2, ... more relevant).": _QRELS,
    "**Run** (one system's rankings), one line per ranked document: topic, Q0, document, rank, score, the "
    "system's name. Higher scores rank first (the rank column is not used).": _RUN,
}
OFFERED = ("AP", "nDCG@10", "nDCG@20", "nDCG", "P@5", "P@10", "P@20", "R@100", "R@1000", "RR", "Rprec", "bpref",
           "IPrecAvg", "Success@10", "F@10", "ERR@20", "RBP", "Judged@10")


def show_figure(fig: go.Figure, key: str, name: str | None = None, on_select: Callable | None = None,
                share: float = 1.0):
    """Every chart goes through here: same size rules and toolbar everywhere, PNG and SVG downloads.

    ``on_select``: a callback run when the user clicks points (the chart's selection is then in
    ``st.session_state[key]``). ``share``: the part of the page's width the chart is drawn in (0.5 in one
    of two columns): its texts are fitted to that part of the narrowest screen (:data:`NARROWEST`).
    Returns the chart's state.
    """
    present = bool(st.session_state.get(PRESENT))
    fig = go.Figure(fig)
    if present:
        fig = figures.presented(fig, PRESENT_SCALE)
    fig = figures.fitted(fig, NARROWEST[present] * share - (GAP if share < 1 else 0))
    shown = st.plotly_chart(fig, width="stretch", config=PLOTLY_CONFIG, key=key, theme=None,
                            on_select=on_select or "ignore", selection_mode="points")
    st.caption(md("{}", figures.text_alternative(fig)))  # the chart in words, for those who cannot see it
    _figure_downloads(fig, key, name or key)
    return shown


def open_topic(chart: str, tab: str, label: str, topic: str = "topic") -> None:
    """A click on a chart point selects its topic (the point's ``customdata[0]``) and opens the tab ``label``."""
    points = st.session_state.get(chart, {}).get("selection", {}).get("points", [])
    if points and points[0].get("customdata") is not None:
        st.session_state[topic] = str(points[0]["customdata"][0])
        st.session_state[tab] = label


def _figure_downloads(fig: go.Figure, key: str, name: str) -> None:
    """PNG and SVG of the figure, drawn by plotly's static export only when the button is pressed."""
    from dashboard import exports

    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "figure"
    with st.popover("Download figure", icon=":material/download:"):
        st.download_button("PNG", lambda: exports.figure_png(fig), f"{stem}.png", "image/png", key=f"{key}_png",
                           icon=":material/image:", on_click="ignore")
        st.download_button("SVG", lambda: exports.figure_svg(fig), f"{stem}.svg", "image/svg+xml",
                           key=f"{key}_svg", icon=":material/polyline:", on_click="ignore")


def error(err: Exception) -> None:
    """A reader's or a validator's message, shown as text."""
    st.error(md("{}", err), icon=":material/error:")


def need_collection(loaded: state.Loaded) -> bool:
    """Stop the page with a pointer to the data page when nothing is loaded."""
    if loaded.ready:
        return True
    st.info("Load a qrels file and at least one run on the **data** page first.")
    st.page_link("app_pages/data.py", label="Go to data", icon=":material/upload_file:")
    return False


def need_two_runs(loaded: state.Loaded, why: str) -> bool:
    """:func:`need_collection`, and at least two runs: else ``why`` (what two runs are for) is shown instead."""
    if not need_collection(loaded):
        return False
    if len(loaded.systems) >= 2:
        return True
    st.info(why)  # our literal, checked at each call (tests/dashboard/test_one_text_path.py)
    return False


def provenance(loaded: state.Loaded, measures: Sequence[str] = (), ties: str = "docid", *, card=None,
               **settings) -> None:
    """The provenance card of the page's numbers (:meth:`metrics.review.provenance.Provenance.compact`), as text:
    ``card`` when given (e.g. a report's), else :func:`dashboard.data.provenance` of ``measures`` with ``ties``
    and ``settings`` (the paired tests' ``test``, ``correction``, ``family``)."""
    card = card if card is not None else data.provenance(loaded, tuple(measures), ties, **settings)
    st.caption(md("Provenance: {}", card.compact()))


def cautions(sentences: Sequence[str]) -> None:
    """Each caution on a comparison (:mod:`metrics.review.cautions`), as text."""
    for sentence in sentences:
        st.info(md("{}", sentence), icon=":material/info:")


# ---- measures from the registry -----------------------------------------------------------------------
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


TERMS = 5  # terms of a sum on one line of a worked formula: a ranking of 20 documents stays on a projector


def _top_level(tex: str, sep: str) -> list[str]:
    """``tex`` split at each ``sep`` outside braces."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(tex):
        ch = tex[i]
        depth += (ch == "{") - (ch == "}")
        if depth == 0 and tex.startswith(sep, i):
            parts.append(tex[start:i])
            start = i = i + len(sep)
            continue
        i += 1
    return parts + [tex[start:]]


def formula_lines(tex: str, terms: int = TERMS) -> str:
    r"""A worked formula laid out on lines that fit: one line per ``=``, a long sum broken every ``terms``
    terms (an ``aligned`` block); a short formula unchanged.

    Examples
    --------
    >>> formula_lines("x = 1 + 2")
    'x = 1 + 2'
    >>> print(formula_lines("s = a + b + c = 3", terms=2))
    \begin{aligned}s &= a + b \\ &\quad + c \\ &= 3\end{aligned}
    """
    sides = _top_level(tex.replace(r"\left(", r"\Big(").replace(r"\right)", r"\Big)"), " = ")
    if len(sides) < 2 or all(len(_top_level(side, " + ")) <= terms for side in sides) and len(sides) <= 3:
        return tex
    lines = []
    for side in sides[1:]:
        summed = _top_level(side, " + ")
        for i in range(0, len(summed), terms):
            chunk = " + ".join(summed[i:i + terms])
            lines.append(("&= " if i == 0 else r"&\quad + ") + chunk)
    return r"\begin{aligned}" + sides[0].strip() + " " + r" \\ ".join(lines) + r"\end{aligned}"


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
    chosen = st.multiselect(label, offered, default=list(default), key=key, accept_new_options=True, bind=BIND,
                            help=md('Any measure of the registry, e.g. nDCG(gain="exp")@10 or P(rel=2)@5. ' + _NAMES,
                                    _names(offered)))
    chosen = [label_of(m) for m in chosen if valid_measure(m, show=True)]
    return tuple(dict.fromkeys(chosen)) or tuple(default)


def pick_measure(key: str, options: Sequence[str], label: str = "Measure") -> str:
    """One measure, bound to the URL (any registry spelling accepted); returned as its tables label it
    (:func:`label_of`), the spelling typed or linked kept among the options."""
    current = st.session_state.get(key, st.query_params.get(key))
    options = list(dict.fromkeys([*options, *([current] if isinstance(current, str) and current else [])]))
    chosen = st.selectbox(label, options, key=key, accept_new_options=True, bind=BIND,
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
    chosen = st.selectbox(label, systems, index=index, key=key, bind=BIND)
    return chosen if chosen in systems else systems[index]


FEW = figures.HIGHLIGHTED  # systems chosen by default (and drawn in colour) when there are more


def pick_systems(key: str, systems: Sequence[str], label: str = "Systems",
                 ranked: Sequence[str] | None = None) -> tuple[str, ...]:
    """Systems shown, bound to the URL (type to find one): all of them up to :data:`FEW` systems, else the
    first :data:`FEW` of ``ranked`` (the systems best first, e.g. :func:`dashboard.data.by_mean`); an empty
    choice shows that default."""
    systems = list(systems)
    default = systems if len(systems) <= FEW else list(ranked or systems)[:FEW]
    chosen = st.multiselect(label, systems, default=default, key=key, bind=BIND,
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
        test = choose("test", "Test", data.TESTS)
    with columns[2]:
        correction = choose("correction", "Correction", data.CORRECTIONS)
    alpha = columns[3].select_slider("Significance level α", [0.01, 0.05, 0.1], value=0.05, key="alpha", bind=BIND)
    return measures, baseline, test, correction, alpha


ALL_TOPICS = "all topics"


def pick_topic(key: str, topics: Sequence[str], label: str = "Topic", allow_all: bool = False,
               texts: Mapping[str, str] | None = None) -> str | None:
    """A topic (or all of them, averaged), bound to the URL; with ``texts``, the chosen topic's query text
    is shown beneath, as plain text."""
    options = ([ALL_TOPICS] if allow_all else []) + list(topics)
    chosen = st.selectbox(label, options, key=key, bind=BIND)
    topic = None if chosen in (None, ALL_TOPICS) else chosen
    if topic is not None and texts is not None and texts.get(topic):
        st.text(texts[topic])
    return topic


def choose(key: str, label: str, options: dict, *, radio: bool = False, horizontal: bool = True, index: int = 0,
           help: str | None = None):
    """A choice among named options (``{value: label}``), bound to the URL."""
    values = list(options)
    if radio:
        return st.radio(label, values, index=index, key=key, format_func=options.get, horizontal=horizontal,
                        help=help, bind=BIND)
    return st.selectbox(label, values, index=index, key=key, format_func=options.get, help=help, bind=BIND)


# ---- tables -----------------------------------------------------------------------------------------------
NUMBER = st.column_config.NumberColumn(format="%.4f")


WIDE = 5  # columns from which a table may be wider than the page on a projector


def scrolls(columns: Sequence[str]) -> str:
    """The words under a table of many columns: it scrolls sideways where it is wider than the page."""
    return (md("The table scrolls sideways where it is wider than the page ({} columns, the first kept in view). ",
               len(columns)) if len(columns) >= WIDE else "")


def table(frame: pd.DataFrame, key: str | None = None, numbers: Sequence[str] = (), **config) -> None:
    """A table with every value of the named columns shown to 4 decimals (user text shown as text)."""
    column_config = {name: st.column_config.NumberColumn(name, format="%.4f") for name in numbers}
    if len(frame.columns) >= WIDE:  # the first column (what each row is) kept in view when the table scrolls
        column_config[frame.columns[0]] = st.column_config.Column(pinned=True)
    column_config.update(config)
    st.dataframe(frame, hide_index=True, width="stretch", column_config=column_config, key=key)
    if len(frame.columns) >= WIDE:
        st.caption(scrolls(frame.columns))


def downloads(files: dict[str, tuple[bytes | Callable[[], bytes], str]], key: str) -> None:
    """Download buttons side by side: ``{label: (data or a function making it, file name)}``."""
    cols = st.columns(len(files))
    mimes = {"csv": "text/csv", "tex": "application/x-tex", "md": "text/markdown", "parquet": "application/octet-stream",
             "json": "application/json", "html": "text/html", "zip": "application/zip"}
    for col, (label, (payload, name)) in zip(cols, files.items()):
        col.download_button(md("{}", label), payload, name, mimes.get(name.rsplit(".", 1)[-1], "application/octet-stream"),
                            key=f"{key}_{re.sub(r'[^a-z0-9]+', '_', label.lower())}", icon=":material/download:",
                            on_click="ignore", width="stretch")


def presenting() -> bool:
    """Presentation mode: the toggle's value, which a link's ``?present=1`` (or ``true``) sets on arrival."""
    if PRESENT not in st.session_state:
        asked = str(st.query_params.get(PRESENT, "")).lower()
        if asked in ("1", "true", "yes", "on"):
            st.session_state[PRESENT] = True
    present = bool(st.session_state.get(PRESENT, False))
    if present and st.query_params.get(PRESENT) != "true":  # kept in the link, from page to page
        st.query_params[PRESENT] = "true"
    elif not present and PRESENT in st.query_params:
        del st.query_params[PRESENT]
    return present


def presentation_toggle() -> bool:
    """The presentation-mode switch; :func:`presenting` keeps it in the URL (``?present=true``) on every page.

    Not bound to the URL by Streamlit: a bound value would be dropped from the link on a change of page."""
    return st.toggle("Presentation mode", key=PRESENT,
                     help="For a projector: no sidebar (pages in the top bar), larger type in text and charts, "
                          "tables as wide as the screen. The link keeps it (?present=true).")


def frame(loaded: state.Loaded, present: bool) -> None:
    """What every page shows around its own content: the sidebar (or, presenting, only the switch) and the
    stylesheet."""
    st.html(STYLE + (PRESENTATION if present else ""))
    if present:
        presentation_toggle()
    else:
        sidebar(loaded)


def start_here(text: str) -> None:
    """The line at the top of a page saying what it shows and what to try."""
    st.markdown(":material/flag: **Start here.** " + text)


def example_title(name: str) -> str:
    """A worked example's name as students read it."""
    return data.example_titles().get(name, name)


def sidebar(loaded: state.Loaded) -> None:
    """The loaded collection, the conventions in force, and the notes, on every page."""
    from dashboard import stored, team

    with st.sidebar:
        presentation_toggle()
        if stored.enabled():
            team.author_input()
        st.caption("Collection")
        if loaded.ready:
            where = {"demo": " (demo)", "ranking": " (typed in)"}.get(loaded.source, "")
            if loaded.source.startswith("example:"):
                where = f" (worked example: {example_title(loaded.source.split(':', 1)[1])})"
            st.text(f"{len(loaded.runs)} system{'s' * (len(loaded.runs) != 1)} · qrels {loaded.qrels.name}{where}")
            if loaded.judges:
                st.text(f"judged by {state.judged_by(loaded)} (of {len(loaded.judges)} judgment sets)")
        else:
            st.text("nothing loaded")
        st.caption("Conventions")
        st.text(loaded.conventions.describe())
        notes = state.notes()
        if notes:
            st.caption("Review notes")
            st.text(f"{len(notes)} topic{'s' * (len(notes) != 1)} noted")


def results_table(table, key: str) -> None:
    """A metrics.review.compare.SummaryTable as shown on screen: value, marker and interval per cell, best values
    highlighted, its caption below."""
    from metrics.review.compare import to_frame

    frame = to_frame(table, ci=True)

    def best(column: pd.Series) -> list[str]:
        if column.name not in table.best.columns:
            return [""] * len(column)
        return ["background-color: #d6e6f5; font-weight: bold" if flag else "" for flag in table.best[column.name]]

    st.dataframe(frame.style.apply(best), hide_index=True, width="stretch", key=key)
    st.caption(md("{}", table.caption(ci=True)))


VIEW_PAGES = ("overview", "curves", "gain", "queries", "significance", "learn", "report")


def session_loader(loaded: state.Loaded, seen: set) -> state.Loaded:
    """The session-file uploader: a good file applies its conventions, names, notes and view (opening the
    saved page); a bad one shows its message and changes nothing."""
    from dashboard import exports, guard, stored_notes

    upload = st.file_uploader("Session file", type=["json"], key="data_session",
                              help="A session saved on the report page: conventions, system names, review notes and "
                                   "the view. Load the same files first.")
    if upload is not None and upload.file_id not in seen:
        seen.add(upload.file_id)
        data = upload.getvalue()
        try:  # under the guard, as every upload
            session = guard.call(upload.name, exports.session_from_json, data, in_process=guard.small(data))
        except guard.LimitError as err:  # names the file already
            st.session_state["data_session_error"] = str(err)
        except metrics.RankscopeError as err:
            st.session_state["data_session_error"] = f"{upload.name}: {err}"
        else:
            st.session_state.pop("data_session_error", None)
            loaded, problems = state.with_session(loaded, session)
            state.put(loaded)
            try:
                stored_notes.put_notes(loaded, session.notes)
            except metrics.RankscopeError as err:
                st.session_state["data_session_error"] = f"{upload.name}: {err}"
            st.session_state["data_session_problems"] = problems
            page = str(session.view.get("page", ""))
            if page in VIEW_PAGES and not problems:
                st.switch_page(f"app_pages/{page}.py", query_params={k: v for k, v in session.view.items()
                                                                    if k != "page"})
    if st.session_state.get("data_session_error"):
        error(st.session_state["data_session_error"])
    for problem in st.session_state.get("data_session_problems", []):
        st.warning(md("{} (its notes and conventions were applied)", problem), icon=":material/warning:")
    return loaded
