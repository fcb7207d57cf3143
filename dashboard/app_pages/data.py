"""Data: upload runs and qrels (or keep the demo, or load a worked example), name the systems, set the
conventions, read the lint, load a session file."""

from __future__ import annotations

import dataclasses

import streamlit as st

from dashboard import data, figures, widgets
from dashboard.panels import irds_field, judgment_sets, uploads
from dashboard.panels.session_loader import session_loader
from dashboard.session import state
from dashboard.widgets import md
from metrics import PRESETS, Conventions
from metrics.conventions import DEPTHS, RELEVANCE_LEVELS

LARGE = 2_000_000  # run lines from which the per-run counts wait until asked for

st.title("Data")
loaded = state.get()
widgets.start_here("What the dashboard evaluates: a qrels file (which documents are relevant to each topic) and "
                   "one run per system (its ranking for each topic). "
                   + ("The demo collection is loaded; upload your own files, or open a small worked example below."
                      if loaded.source == "demo" else "Upload more files, or open a small worked example below."))
seen = st.session_state.setdefault("data_seen_uploads", set())

left, right = st.columns(2)
loaded = uploads.receive(uploads.KINDS["runs"], loaded, seen, left)
loaded = uploads.receive(uploads.KINDS["qrels"], loaded, seen, right)
loaded = irds_field.field(loaded, right)  # or the qrels (and topics) of an ir_datasets id, from the local store

with st.expander("What the files look like: an example of each format", icon=":material/description:"):
    for label, example in uploads.FORMAT_EXAMPLES.items():
        st.markdown(label)
        st.code(example, language=None)

with st.expander("Other collections and session files", icon=":material/folder_open:"):
    cols = st.columns([3, 1, 3])
    examples = data.teaching_examples()
    name = cols[0].selectbox("Worked example", list(examples), key="data_example", format_func=widgets.example_title,
                             help="Small examples from textbooks and lecture notes (sample_data/teaching), each with "
                                  "the numbers its source prints.")
    cols[0].caption(md("{}", examples[name]))
    if cols[1].button("Load example", key="data_load_example", icon=":material/school:"):
        state.put(state.example(name))
        st.rerun()
    if loaded.source != "demo" and cols[1].button("Demo collection", key="data_demo", icon=":material/restart_alt:"):
        state.put(state.demo())
        st.rerun()
    with cols[2]:
        loaded = session_loader(loaded, seen)

left, right = st.columns(2)
loaded = uploads.receive(uploads.KINDS["topics"], loaded, seen, left)
loaded = uploads.receive(uploads.KINDS["documents"], loaded, seen, right)
if loaded.topics is not None:
    left.caption(md("Topics: {}, {:,} query texts.", loaded.topics.name, len(data.topic_texts(loaded))))
if loaded.documents is not None:
    right.caption(md("Documents: {}, {:,} documents.", loaded.documents.name, len(data.document_texts(loaded))))

SOURCES = {"demo": "Showing the bundled demo collection (synthetic, TREC-style). Upload your own files to replace it.",
           "ranking": "Showing a ranking typed in on the learn page."}
if loaded.source in SOURCES:
    st.info(SOURCES[loaded.source], icon=":material/info:")
elif loaded.source.startswith("example:"):
    example_id = loaded.source.split(':', 1)[1]
    st.info(md("Showing the worked example “{}” ({}) from sample_data/teaching.", widgets.example_title(example_id),
               example_id), icon=":material/info:")

with st.expander("Conventions", expanded=True, icon=":material/tune:"):
    c = loaded.conventions
    shown = {"data_preset": c.preset, "data_level": c.relevance_level, "data_depth": c.depth or 0,
             "data_judged": c.judged_only, "data_complete": c.complete}
    if st.session_state.get("data_conventions") != c or not shown.keys() <= st.session_state.keys():
        st.session_state.update(shown, data_conventions=c)  # set elsewhere (a session file, an example): shown here
    # each widget's default is the current value too: a widget drawn before its state arrives shows it, and a
    # rerun sent meanwhile sends it (with no default, the level read as its lowest, -1000)
    cols = st.columns(3)  # the switches in a row of their own: their labels whole on a projector
    preset = cols[0].selectbox("Preset", list(PRESETS), key="data_preset", index=list(PRESETS).index(c.preset),
                               help="trec_eval-9: as trec_eval 9 and pytrec_eval (scores as 32-bit floats, "
                                    "interpolation (long)(x·R + 0.9)); trec_eval-10; textbook.")
    level = cols[1].number_input("Relevant from grade", min_value=RELEVANCE_LEVELS[0], max_value=RELEVANCE_LEVELS[1],
                                 value=c.relevance_level, key="data_level",
                                 help="trec_eval -l: binary measures count grades ≥ this.")
    depth = cols[2].number_input("Depth (0 = all)", min_value=0, max_value=DEPTHS[1], value=c.depth or 0,
                                 key="data_depth",
                                 help="trec_eval -M: evaluate only the top documents of each ranking.")
    switches = st.columns(3)
    judged = switches[0].checkbox("Judged only", key="data_judged", value=c.judged_only,
                              help="trec_eval -J: drop unjudged documents before evaluating.")
    complete = switches[1].checkbox("Complete topics", key="data_complete", value=c.complete,
                                help="trec_eval -c: a judged topic a run does not answer scores 0.")
    kept = {"score_dtype": c.score_dtype, "interpolation": c.interpolation} if preset == c.preset else {}
    chosen = Conventions(preset=preset, relevance_level=int(level), depth=int(depth) or None,
                         judged_only=judged, complete=complete, **kept)
    if chosen != c:
        st.session_state["data_conventions"] = chosen
        loaded = dataclasses.replace(loaded, conventions=chosen)
        state.put(loaded)
        st.rerun()

if not widgets.need_collection(loaded):
    st.stop()

judged = data.judgments(loaded)
a, b, c_ = st.columns(3)
a.metric("Systems", len(loaded.runs))
b.metric("Topics judged", judged.n_topics)
c_.metric("Judgments", f"{judged.n_judged:,}")

st.subheader("Systems")
TABLE = {"system": "system", "topics": "topics answered", "judged_topics_answered": "judged topics answered",
         "documents": st.column_config.NumberColumn("documents", format="localized"),
         "min_depth": "shortest ranking", "max_depth": "longest ranking",
         "judged_share": st.column_config.ProgressColumn("judged share", format="%.2f", min_value=0.0, max_value=1.0,
                                                         help="fraction of the run's documents that have a judgment")}
large = data.run_lines(loaded) > LARGE
counts = st.expander("What each run covers: topics, documents, depths, judged share"
                     + (" (counting takes a few seconds per run on runs this large)" if large else ""),
                     expanded=not large, key="data_counts", on_change="rerun", icon=":material/table_rows:")
with counts:
    if counts.open:
        systems = data.systems(loaded)
        st.dataframe(systems, hide_index=True, width="stretch", column_config=TABLE)
        st.caption(widgets.scrolls(systems.columns))
with st.expander("Rename or remove systems", icon=":material/edit:"):
    for i, name in enumerate(loaded.systems):
        col1, col2 = st.columns([4, 1], vertical_alignment="bottom")
        new = col1.text_input(md("System {} ({})", i + 1, loaded.runs[i][1].name), value=name,
                              key=f"data_name_{i}_{name}")
        if new != name:
            state.put(state.renamed(loaded, name, new))
            st.rerun()
        if col2.button("Remove", key=f"data_remove_{i}_{name}", icon=":material/delete:"):
            state.put(state.without(loaded, name))
            st.rerun()

described = data.run_metadata(loaded)
if any(block is not None for block in described.values()):
    st.subheader("How the runs were made")
    st.caption("Each run's ir_metadata block (PRIMAD: platform, research goal, implementation, method, actor, "
               "data), as its file gives it; `rankscope meta RUN` prints it too.")
    for i, (name, block) in enumerate(described.items()):
        with st.container(border=True, key=f"data_meta_{i}"):
            st.markdown(md("**{}**", name))
            if block is None:
                st.caption("No ir_metadata block in this run's file.")
                continue
            st.dataframe(block[0], hide_index=True, width="stretch")
            st.download_button("YAML", block[1], f"ir_metadata-{i + 1}.yaml", "application/yaml",
                               key=f"data_meta_yaml_{i}", icon=":material/download:", on_click="ignore")

st.subheader("Judgments")
loaded = judgment_sets.editor(uploads.receive(uploads.KINDS["judgments"], loaded, seen))
widgets.show_figure(figures.grades_chart(judged.grades), key="data_grades", name="judgments-per-grade")

st.subheader("Lint report")
report = data.lint(loaded)
if report.empty:
    st.success("Nothing suspicious found.", icon=":material/check:")
for item in report.itertuples(index=False):
    show = {"error": st.error, "warning": st.warning}.get(item.severity, st.info)
    message = str(item.message).rstrip(".") + "."
    text = (md("**{}** · {} Examples: {}.", item.source, message, item.examples)
            if isinstance(item.examples, str) and item.examples else md("**{}** · {}", item.source, message))
    show(text, icon={"error": ":material/error:", "warning": ":material/warning:"}.get(item.severity, ":material/info:"))
