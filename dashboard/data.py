"""Every computation the pages show, as cached calls into ``metrics``; nothing here computes a number itself.

Caches are keyed on immutable values only: content digests, names, tuples of options, the conventions. The
bytes and the :class:`~dashboard.state.Loaded` value travel in arguments whose names start with ``_``
(Streamlit does not hash those); the key beside them identifies them. Parsed files and rankings are shared
read-only between sessions (``cache_resource``); tables are copied per caller (``cache_data``). Each run is
parsed and ranked once per content and conventions, so adding a run, renaming one or changing a measure
never re-reads or re-ranks the others.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from metrics import Conventions, Qrels, Run
from metrics import anatomy as anatomy_module
from metrics import compare, curves, judgements, topics, worked as worked_module
from metrics.collection import CollectionSummary, describe_collection
from metrics.evaluate import per_query_frame
from metrics.rankings import Rankings
from metrics.report import compute_report, paired_conventions, paired_measures
from metrics.significance import CORRECTIONS as _CORRECTIONS
from metrics.significance import TESTS as _TESTS
from metrics.significance import FAMILIES as _FAMILIES
from metrics.significance import MAXT
from metrics.significance import Comparison, compare_systems

from dashboard import guard, stored
from dashboard.state import Loaded, Upload

DEFAULT_MEASURES = metrics.DEFAULT_MEASURES
SEED = 0
# the labels are what a link says (?test=Wilcoxon), so they stay short
TESTS = {"t": "t-test", "wilcoxon": "Wilcoxon", "sign": "sign test", "permutation": "randomisation",
         "bootstrap": "bootstrap", "tukey": "Tukey HSD"}
TESTS = {k: v for k, v in TESTS.items() if k in _TESTS}
CORRECTIONS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli",
               "none": "none", MAXT: "max-T (randomisation only)"}
# the significance page's corrections: metrics' names in metrics' order, and max-T on the randomisation test's flips;
# the results table and the report take the p-value corrections only
TEST_CORRECTIONS = {k: CORRECTIONS.get(k, k) for k in (*_CORRECTIONS, MAXT)}
CORRECTIONS = {k: CORRECTIONS.get(k, k) for k in _CORRECTIONS}
FAMILIES = {"per_measure": "each measure", "all": "all measures together"}
FAMILIES = {k: FAMILIES.get(k, k) for k in _FAMILIES}  # what a correction counts together
RESAMPLED = ("permutation", "bootstrap")  # tests that run in a worker (dashboard.guard) whatever the size
INTERPOLATIONS = {"trec_eval-9": "trec_eval 9", "trec_eval-10": "trec_eval 10", "textbook": "textbook"}


# ---- files and rankings ---------------------------------------------------------------------------------
# Parsed files are the largest values kept: at most FILES_KEPT of each, none for longer than FILES_TTL.
FILES_KEPT = 32
FILES_TTL = "1h"


@st.cache_resource(max_entries=FILES_KEPT, ttl=FILES_TTL, show_spinner=False)
def _qrels(digest: str, name: str, _upload: Upload) -> Qrels:
    return stored.parse("qrels", _upload)  # the workspace's cache, else parsed under the guard (once)


@st.cache_resource(max_entries=FILES_KEPT, ttl=FILES_TTL, show_spinner=False)
def _run(digest: str, name: str, _upload: Upload) -> Run:
    return stored.parse("run", _upload)  # a stored run: its cached parse, without reading the text again


def read_qrels(upload: Upload) -> Qrels:
    """Parse (once per content) a qrels upload; raises :class:`metrics.ParseError`, or
    :class:`dashboard.guard.LimitError` past the worker's memory ceiling or time limit."""
    return _qrels(upload.digest, upload.name, upload)


def read_run(upload: Upload, system: str | None = None) -> Run:
    """Parse (once per content) a run upload, named ``system``; raises :class:`metrics.ParseError`, or
    :class:`dashboard.guard.LimitError` past the worker's memory ceiling or time limit."""
    run = _run(upload.digest, upload.name, upload)
    return run.renamed(system) if system and system != run.name else run


def runs(loaded: Loaded) -> list[Run]:
    return [read_run(up, name) for name, up in loaded.runs]


@st.cache_resource(max_entries=64, show_spinner=False)
def _ranked(qrels_digest: str, run_digest: str, system: str, conventions: Conventions, _qrels: Upload,
            _run: Upload) -> Rankings:
    return metrics.rank_runs(read_qrels(_qrels), [read_run(_run, system)], conventions)[0]


def rankings(loaded: Loaded) -> list[Rankings]:
    """Each run ranked once per content, name and conventions (shared by every page and session)."""
    out = []
    for name, up in loaded.runs:
        with st.spinner(f"Ranking {name}…", show_time=True):
            out.append(_ranked(loaded.qrels.digest, up.digest, name, loaded.conventions, loaded.qrels, up))
    return out


def _ranked_run(loaded: Loaded, name: str, up: Upload) -> Rankings:
    return _ranked(loaded.qrels.digest, up.digest, name, loaded.conventions, loaded.qrels, up)


def _of(loaded: Loaded, systems: tuple[str, ...] | None) -> list[Rankings]:
    return [r for r in rankings(loaded) if systems is None or r.system in systems]


def topics_of(loaded: Loaded) -> list[str]:
    """Topic ids evaluated for any system, in trec_eval's order."""
    return sorted(set().union(*(r.queries.tolist() for r in rankings(loaded))))


# ---- the collection ---------------------------------------------------------------------------------------
@st.cache_resource(max_entries=16, show_spinner=False)
def _judgments(digest: str, _qrels: Upload) -> CollectionSummary:
    return describe_collection(read_qrels(_qrels), [])


def judgments(loaded: Loaded) -> CollectionSummary:
    """Topics, judgments and grades of the qrels (no run: cheap)."""
    return _judgments(loaded.qrels.digest, loaded.qrels)


@st.cache_data(max_entries=64, show_spinner="Counting each run's documents…")
def _run_summary(qrels_digest: str, run_digest: str, system: str, _qrels: Upload, _run: Upload) -> pd.DataFrame:
    return describe_collection(read_qrels(_qrels), [read_run(_run, system)]).systems


def systems(loaded: Loaded) -> pd.DataFrame:
    """What each run covers (topics, documents, depths, judged share), counted once per run."""
    return pd.concat([_run_summary(loaded.qrels.digest, up.digest, name, loaded.qrels, up)
                      for name, up in loaded.runs], ignore_index=True)


def run_lines(loaded: Loaded) -> int:
    """Lines of all the loaded runs."""
    return sum(read_run(up, name).table.num_rows for name, up in loaded.runs)


@st.cache_data(max_entries=16, show_spinner="Checking the files…")
def _lint(key: tuple, _loaded: Loaded) -> pd.DataFrame:
    return metrics.lint_frame(metrics.lint(read_qrels(_loaded.qrels), runs(_loaded), rankings(_loaded)))


def lint(loaded: Loaded) -> pd.DataFrame:
    """The lint report of the loaded collection (severity, source, code, message, count, examples)."""
    return _lint(loaded.key, loaded)


# ---- measures ---------------------------------------------------------------------------------------------
@st.cache_data(max_entries=64, show_spinner="Computing the measures…")
def _per_query(key: tuple, measures: tuple[str, ...], _loaded: Loaded) -> pd.DataFrame:
    pairs = metrics.resolve_measures(list(measures))
    return pd.concat([stored.run_table("per_query", _loaded, name, up, {"measures": list(measures)},
                                       lambda name=name, up=up: per_query_frame(_ranked_run(_loaded, name, up),
                                                                                pairs))
                      for name, up in _loaded.runs], ignore_index=True)  # a stored run's table: kept in the store


def per_query(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Tidy per-query values (system, query, measure, value)."""
    return _per_query(loaded.key, tuple(measures), loaded)


@st.cache_data(max_entries=64, show_spinner=False)
def _summary(key: tuple, measures: tuple[str, ...], _loaded: Loaded) -> pd.DataFrame:
    return metrics.summarise(per_query(_loaded, measures))


def summary(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Means over queries with 95% confidence intervals (system, measure, value, ci_low, ci_high, ...)."""
    return _summary(loaded.key, tuple(measures), loaded)


def by_mean(loaded: Loaded, measure: str) -> tuple[str, ...]:
    """The systems, the best mean of ``measure`` first (higher first; ties and missing values in the order
    they were loaded, missing last)."""
    means = summary(loaded, (measure,))
    values = means[means["measure"] == measure].set_index("system")["value"].reindex(list(loaded.systems))
    key = values.to_numpy(dtype=float)
    order = np.argsort(np.where(np.isnan(key), np.inf, -key), kind="stable")
    return tuple(loaded.systems[i] for i in order)


def tested_on_every_topic(loaded: Loaded) -> Loaded:
    """The collection the paired tests use: with complete topics when the systems answered different ones.

    The rule is :func:`metrics.report.paired_conventions`, the report's: a paired test needs every system's
    value on every topic, so a topic a run does not answer then scores as trec_eval ``-c`` scores it.
    """
    conventions = paired_conventions(loaded.conventions, _answered(loaded))
    return loaded if conventions == loaded.conventions else replace(loaded, conventions=conventions)


_Answered = namedtuple("_Answered", "queries")  # what paired_conventions reads of each ranked run


def _answered(loaded: Loaded) -> list[_Answered]:
    """Each run's evaluated topics (for a stored collection, kept in the store: nothing ranked again)."""
    return [_Answered(stored.run_table("queries", loaded, name, up, {}, lambda name=name, up=up: pd.DataFrame(
        {"system": name, "query": _ranked_run(loaded, name, up).queries.astype(object)}))["query"].to_numpy())
        for name, up in loaded.runs]


@st.cache_data(max_entries=64, show_spinner="Testing…")
def _comparison(key: tuple, measures: tuple[str, ...], test: str, baseline: str | None, correction: str,
                alpha: float, _loaded: Loaded, family: str = "per_measure") -> Comparison:
    tested = [label for label, _ in paired_measures(metrics.resolve_measures(list(measures)))]
    if not tested:
        raise metrics.ValidationError(f"{', '.join(measures)}: only means of per-topic values are tested "
                                      "(counts and sums are not)")
    values = per_query(tested_on_every_topic(_loaded), measures)
    return guard.call(f"the {TESTS.get(test, test)} test", compare_systems, values, measures=tested, test=test,
                      baseline=baseline, correction=correction, family=family, alpha=alpha, seed=SEED,
                      in_process=test not in RESAMPLED)


def comparison(loaded: Loaded, measures: tuple[str, ...], test: str, baseline: str | None, correction: str,
               alpha: float, family: str = "per_measure") -> Comparison:
    """Paired tests between systems (all pairs, or each against ``baseline``), corrected over each measure
    (``family="per_measure"``) or over all of them together (``"all"``, :data:`FAMILIES`).

    The report's rule chooses what is tested: the measures of :func:`metrics.report.paired_measures`
    (means of per-topic values), on the topics of :func:`tested_on_every_topic`. Raises
    :class:`metrics.ValidationError` when there is nothing to test (one system, one topic, no measure
    averaged over topics).
    """
    return _comparison(loaded.key, tuple(measures), test, baseline, correction, float(alpha), loaded, family)


def results(loaded: Loaded, measures: tuple[str, ...], baseline: str | None, test: str, correction: str = "holm",
            alpha: float = 0.05) -> tuple[compare.SummaryTable, str | None]:
    """Systems × measures with their intervals and the markers of significant differences (metrics.compare).

    Against ``baseline``, or letters for all pairs when it is None; counts and sums carry no markers
    (:func:`metrics.report.paired_measures`). Returns the table and, when nothing could be tested (one
    system, one topic, no measure averaged over topics), the reason instead of markers.
    """
    means = summary(loaded, measures)
    if len(loaded.systems) < 2:
        return compare.summary_table(None, means), "one system: nothing to compare"
    try:
        tested = comparison(loaded, measures, test, baseline, correction, alpha)
    except metrics.ValidationError as err:
        return compare.summary_table(None, means), str(err)
    return compare.summary_table(tested, means, baseline=baseline), None


def reading(tested: Comparison) -> tuple[str, ...]:
    """The tests' result in plain sentences (metrics.worked.comparison_in_words)."""
    return worked_module.comparison_in_words(tested)


# ---- topic by topic -------------------------------------------------------------------------------------
@st.cache_data(max_entries=64, show_spinner=False)
def _paired(key: tuple, measure: str, a: str, b: str, _loaded: Loaded) -> topics.PairedTopics:
    return topics.paired_topics(per_query(_loaded, (measure,)), measure, a, b)


def paired(loaded: Loaded, measure: str, a: str, b: str) -> topics.PairedTopics:
    """One measure of systems A and B on each topic both answer, sorted by B − A."""
    return _paired(loaded.key, measure, a, b, loaded)


@st.cache_data(max_entries=64, show_spinner=False)
def _side_by_side(key: tuple, topic: str, systems: tuple[str, ...], depth: int, _loaded: Loaded) -> pd.DataFrame:
    ranked = {r.system: r for r in _of(_loaded, systems)}
    return topics.side_by_side([ranked[s] for s in systems if s in ranked], topic, depth)


def side_by_side(loaded: Loaded, topic: str, systems: tuple[str, ...], depth: int) -> pd.DataFrame:
    """The top ``depth`` documents of one topic for each system (in the order given), with their judgments."""
    return _side_by_side(loaded.key, topic, tuple(systems), int(depth), loaded)


def extremes(loaded: Loaded, measure: str, a: str, b: str) -> tuple[topics.Extreme | None, topics.Extreme | None]:
    """The topics where B gains most and loses most against A (metrics.topics.extremes)."""
    return topics.extremes(paired(loaded, measure, a, b))


@st.cache_data(max_entries=64, show_spinner=False)
def _topic_table(key: tuple, measure: str, a: str, b: str, texts: str | None, notes_json: str, tag: str | None,
                 worst_first: bool, _loaded: Loaded) -> pd.DataFrame:
    import json

    return topics.topic_table(paired(_loaded, measure, a, b), topic_texts(_loaded), json.loads(notes_json), tag,
                              worst_first)


def topic_table(loaded: Loaded, measure: str, a: str, b: str, notes: dict, tag: str | None = None,
                worst_first: bool = True) -> pd.DataFrame:
    """Every topic with its query text (when loaded), A, B, B − A and its review tags, sorted by B − A."""
    import json

    return _topic_table(loaded.key, measure, a, b, loaded.topics.digest if loaded.topics else None,
                        json.dumps(notes, sort_keys=True), tag, bool(worst_first), loaded)


@st.cache_data(max_entries=64, show_spinner=False)
def _side_by_side_texts(key: tuple, topic: str, systems: tuple[str, ...], depth: int, documents: str,
                        _loaded: Loaded) -> pd.DataFrame:
    return topics.ranking_texts(side_by_side(_loaded, topic, systems, depth), document_texts(_loaded))


def side_by_side_texts(loaded: Loaded, topic: str, systems: tuple[str, ...], depth: int) -> pd.DataFrame:
    """:func:`side_by_side` with each document's ``title`` and ``preview`` when documents are loaded."""
    if loaded.documents is None:
        return side_by_side(loaded, topic, systems, depth)
    return _side_by_side_texts(loaded.key, topic, tuple(systems), int(depth), loaded.documents.digest, loaded)


# ---- topic and document texts ---------------------------------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner=False)
def _topics_file(digest: str, name: str, _data: bytes):
    from metrics.texts import read_topics

    return read_topics(_data, name=name)


@st.cache_resource(max_entries=8, show_spinner=False)
def _documents_file(digest: str, name: str, _data: bytes):
    from metrics.texts import read_documents

    return read_documents(_data, name=name)


def read_topics(upload: Upload):
    """Parse (once per content) a topics upload: topic id -> query text; raises :class:`metrics.ParseError`."""
    return _topics_file(upload.digest, upload.name, upload.data)


def read_documents(upload: Upload):
    """Parse (once per content) a documents upload: docid -> title and text; raises :class:`metrics.ParseError`."""
    return _documents_file(upload.digest, upload.name, upload.data)


def topic_texts(loaded: Loaded):
    """The loaded query texts (topic id -> text), or None."""
    return read_topics(loaded.topics) if loaded.topics is not None else None


def document_texts(loaded: Loaded):
    """The loaded documents (docid -> title and text, with ``preview``), or None."""
    return read_documents(loaded.documents) if loaded.documents is not None else None


@st.cache_data(max_entries=32, show_spinner=False)
def _topic_labels(texts: str | None, ids: tuple[str, ...], _loaded: Loaded) -> dict[str, str]:
    return topics.topic_labels(ids, topic_texts(_loaded))


def topic_labels(loaded: Loaded, ids) -> dict[str, str]:
    """Each topic id with the start of its query text (just the id without texts), for selectors."""
    return _topic_labels(loaded.topics.digest if loaded.topics else None, tuple(map(str, ids)), loaded)


@st.cache_data(max_entries=128, show_spinner=False)
def _anatomy(key: tuple, system: str, topic: str, gain: str, discount: str, level: int | None,
             _loaded: Loaded) -> pd.DataFrame:
    return anatomy_module.anatomy(_of(_loaded, (system,)), topic, gain=gain, discount=discount, rel=level)


def anatomy(loaded: Loaded, system: str, topic: str, gain: str = "linear", discount: str = "log2",
            level: int | None = None) -> pd.DataFrame:
    """The per-rank table of one system's ranking of one topic (metrics.anatomy)."""
    return _anatomy(loaded.key, system, topic, gain, discount, level, loaded)


def relevant_count(loaded: Loaded, system: str, topic: str, level: int | None = None) -> int:
    return anatomy_module.relevant_count(_of(loaded, (system,)), topic, rel=level)


def worked(table: pd.DataFrame, num_rel: int, gain: str, discount: str, complete: bool):
    """Each measure of the table's ranking with its formula and its numbers (metrics.worked)."""
    return worked_module.worked(table, num_rel, gain=gain, discount=discount, complete=complete)


@st.cache_data(max_entries=128, show_spinner=False)
def _effects(key: tuple, system: str, topic: str, cutoff: int, _loaded: Loaded) -> pd.DataFrame:
    return worked_module.convention_effects(_of(_loaded, (system,))[0], topic, cutoff)


def convention_effects(loaded: Loaded, system: str, topic: str, cutoff: int) -> pd.DataFrame:
    """The topic's numbers under each choice of each convention (metrics.worked.convention_effects)."""
    return _effects(loaded.key, system, topic, int(cutoff), loaded)


def typed_grades(text: str) -> tuple[int | None, ...]:
    """A ranking typed as grades, rank by rank: ``"3 2 0 ? 1"`` (spaces or commas; ``?`` or ``-`` for a
    document without a judgment). Raises :class:`metrics.ValidationError` naming the first bad entry."""
    grades: list[int | None] = []
    for i, word in enumerate(text.replace(",", " ").split(), start=1):
        if word in ("?", "-"):
            grades.append(None)
        elif word.isdigit() and int(word) <= 9:
            grades.append(int(word))
        else:
            raise metrics.ValidationError(f'rank {i}: expected a grade 0 to 9, or "?" for no judgment, found "{word}"')
    return tuple(grades)


def typed_ranking(grades: tuple, missing: int, level: int) -> Loaded:
    """A ranking typed in as grades, as a one-topic collection evaluated like any other."""
    qrels, run = worked_module.ranking_files(list(grades), missing, missing_grade=max(level, 1))
    return Loaded(qrels=Upload.of("typed.qrels", qrels.encode()), runs=(("typed", Upload.of("typed.run", run.encode())),),
                  conventions=Conventions(relevance_level=level), source="ranking")


def printed(example: str, system: str, topic: str) -> dict[str, str]:
    """What the source document of a worked example prints for one system and topic ({measure: value as printed})."""
    import json

    from sample_data import TEACHING_DIR

    document = json.loads((TEACHING_DIR / "expected.json").read_text(encoding="utf-8"))
    return dict(document["examples"].get(example, {}).get("per_query", {}).get(system, {}).get(topic, {}))


def teaching_examples() -> dict[str, str]:
    """The worked examples of sample_data/teaching: name -> its description."""
    from sample_data import teaching_examples as examples

    return {name: example["description"] for name, example in examples().items()}


def example_titles() -> dict[str, str]:
    """The worked examples' names as students read them (``{id: title}``; the ids stay in links)."""
    from sample_data import teaching_titles

    return teaching_titles()


# ---- curves -----------------------------------------------------------------------------------------------
def _queries(topic: str | None) -> list[str] | None:
    return None if topic is None else [topic]


@st.cache_data(max_entries=32, show_spinner="Computing curves…")
def _eleven(key: tuple, systems: tuple[str, ...], topic: str | None, _loaded: Loaded) -> pd.DataFrame:
    return curves.eleven_point_rules(_of(_loaded, systems), queries=_queries(topic))


def eleven_points(loaded: Loaded, systems: tuple[str, ...], topic: str | None) -> pd.DataFrame:
    """The eleven interpolated points under every rule, per query and averaged (``rule`` column)."""
    return _eleven(loaded.key, tuple(systems), topic, loaded)


def eleven_point_table(points: pd.DataFrame, topic: str | None) -> pd.DataFrame:
    """One row per system and rule: the eleven points side by side and their average (11pt_avg)."""
    return curves.eleven_point_table(points, curves.ALL if topic is None else topic)


@st.cache_data(max_entries=32, show_spinner="Computing curves…")
def _pr(key: tuple, systems: tuple[str, ...], topic: str, rule: str, _loaded: Loaded):
    chosen = _of(_loaded, systems)
    return curves.pr_curve(chosen, queries=[topic]), curves.interpolated_pr(chosen, rule=rule, queries=[topic])


def pr_curves(loaded: Loaded, systems: tuple[str, ...], topic: str, rule: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One topic's raw precision–recall points and its interpolated curve (rank points and envelope)."""
    return _pr(loaded.key, tuple(systems), topic, rule, loaded)


@st.cache_data(max_entries=32, show_spinner="Computing curves…")
def _at_k(key: tuple, systems: tuple[str, ...], topic: str | None, depth: int, _loaded: Loaded) -> pd.DataFrame:
    return curves.precision_recall_at_k(_of(_loaded, systems), depth=depth, queries=_queries(topic), per_query=False)


def at_k(loaded: Loaded, systems: tuple[str, ...], topic: str | None, depth: int) -> pd.DataFrame:
    """P@k and R@k for k = 1..depth, for one topic or averaged (system, k, precision, recall)."""
    return _at_k(loaded.key, tuple(systems), topic, int(depth), loaded)


@st.cache_data(max_entries=32, show_spinner="Computing gain curves…")
def _gain(key: tuple, systems: tuple[str, ...], topic: str | None, gain: str, discount: str, ideal: str,
          depth: int, _loaded: Loaded) -> pd.DataFrame:
    return curves.gain_curves(_of(_loaded, systems), gain=gain, discount=discount, ideal=ideal, depth=depth,
                              queries=_queries(topic), per_query=False)


def gain_curves(loaded: Loaded, systems: tuple[str, ...], topic: str | None, gain: str, discount: str, ideal: str,
                depth: int) -> pd.DataFrame:
    """DCG@k, IDCG@k and nDCG@k for k = 1..depth, for one topic or averaged (system, k, dcg, idcg, ndcg)."""
    return _gain(loaded.key, tuple(systems), topic, gain, discount, ideal, int(depth), loaded)


def identical_curves(frame: pd.DataFrame, values: tuple[str, ...], where: str, x: str = "x") -> str | None:
    """The systems whose curves coincide in ``frame``, in words ("lucene is identical to bm25 on this
    topic"), or None when every curve differs (:func:`metrics.curves.identical_series`)."""
    groups = curves.identical_series(frame, x, list(values))
    if not groups:
        return None
    parts = []
    for first, *same in groups:
        names = same[0] if len(same) == 1 else ", ".join(same[:-1]) + " and " + same[-1]
        parts.append(f"{names} {'is' if len(same) == 1 else 'are'} identical to {first}")
    return "; ".join(parts) + f" {where}: the lines lie on top of each other, each with its own dash and marker."


def ndcg_measure(gain: str, discount: str, ideal: str, cutoff: int | None = None) -> str:
    """The registry's spelling of nDCG with these options (``nDCG@10``, ``nDCG(gain="exp")@10``)."""
    measure = metrics.parse_measure("nDCG")(gain=gain, discount=discount, ideal=ideal)
    return str(measure @ cutoff if cutoff else measure)


def gain_table(loaded: Loaded, frame: pd.DataFrame, systems: tuple[str, ...], topic: str | None, cutoff: int,
               gain: str, discount: str, ideal: str) -> pd.DataFrame:
    """Per system: DCG@k, IDCG@k and nDCG@k read off the curves at the cutoff, and nDCG of the whole ranking."""
    rows = curves.at_x(frame, cutoff)[["system", "dcg", "idcg", "ndcg"]]
    rows = rows.rename(columns={"dcg": f"DCG@{cutoff}", "idcg": f"IDCG@{cutoff}", "ndcg": f"nDCG@{cutoff}"})
    whole = measure_means(loaded, systems, topic, ndcg_measure(gain, discount, ideal))
    return rows.merge(whole.rename(columns={"value": "nDCG, whole ranking"}), on="system", how="left")


def measure_means(loaded: Loaded, systems: tuple[str, ...], topic: str | None, measure: str) -> pd.DataFrame:
    """One measure per system: its mean over topics, or its value on one topic (system, value)."""
    if topic is None:
        rows = summary(loaded, (measure,))
    else:
        rows = per_query(loaded, (measure,))
        rows = rows[rows["query"] == topic]
    return rows[rows["system"].isin(systems)][["system", "value"]].reset_index(drop=True)


# ---- the report and its exports ---------------------------------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner="Preparing the report (every number recomputed from the files)…")
def _report(key: tuple, measures: tuple[str, ...], baseline: str | None, test: str, correction: str, alpha: float,
            notes_json: str, family: str, _loaded: Loaded):
    import json

    sources = {name: up.data for name, up in _loaded.runs}
    what = f"the report on {_loaded.qrels.name} and {len(sources)} run{'s' * (len(sources) != 1)}"
    return guard.call(what, compute_report, _loaded.qrels.data, sources, list(measures), _loaded.conventions,
                      baseline, test, correction, alpha, SEED, json.loads(notes_json), qrels_name=_loaded.qrels.name,
                      file_names={name: up.name for name, up in _loaded.runs}, family=family,
                      in_process=guard.small(_loaded.qrels.data, *sources.values()) and test not in RESAMPLED)


def report(loaded: Loaded, measures: tuple[str, ...], baseline: str | None, test: str, correction: str, alpha: float,
           notes: dict, family: str = "per_measure"):
    """Everything the HTML report shows, with its manifest (:func:`metrics.report.compute_report`)."""
    import json

    return _report(loaded.key, tuple(measures), baseline, test, correction, float(alpha),
                   json.dumps(notes, sort_keys=True), family, loaded)


def session_file(loaded: Loaded, notes: dict, view: dict, manifest=None) -> bytes:
    """This session as a JSON file: file names and digests, conventions, notes, view and manifest."""
    from dashboard import exports

    digests = {"qrels": loaded.qrels.digest, **{name: up.digest for name, up in loaded.runs}}
    return exports.session_to_json({name: up.name for name, up in loaded.runs}, loaded.conventions, notes, view,
                                   qrels_name=loaded.qrels.name, digests=digests, manifest=manifest)


# ---- can this conclusion be trusted: provenance, cautions, tie ranges, judged and residual, risk --------
# each measure with a residual (metrics.measures.residual): the residual's name in the registry
RESIDUALS = metrics.measures.RESIDUAL_OF


@st.cache_data(max_entries=64, show_spinner=False)
def _provenance(key: tuple, measures: tuple[str, ...], ties: str, settings: tuple, _loaded: Loaded):
    from metrics.provenance import build_provenance, provenance_of

    if not measures:  # curves: the conventions and rules, no mean
        return build_provenance(_loaded.conventions, (), ties=ties)
    return provenance_of(per_query(_loaded, measures), _loaded.conventions, list(measures), dict(settings),
                         ties=ties)


def provenance(loaded: Loaded, measures: tuple[str, ...] = (), ties: str = "docid", **settings):
    """The provenance card of the numbers of ``measures`` (:func:`metrics.provenance.provenance_of`);
    ``ties``: a rule of :data:`metrics.provenance.TIE_RULES`; ``settings``: the paired tests' ``test``,
    ``correction`` and ``family`` when numbers were tested."""
    return _provenance(loaded.key, tuple(measures), ties, tuple(sorted(settings.items())), loaded)


def cautions(loaded: Loaded, measures: tuple[str, ...], test: str, baseline: str | None, correction: str,
             alpha: float, family: str = "per_measure") -> tuple[str, ...]:
    """The sentences of :func:`metrics.cautions.comparison_cautions` on the comparison of :func:`comparison`
    (nothing tested when it cannot be), for a page that shows its provenance card (nDCG's gain stated)."""
    from metrics.cautions import comparison_cautions

    tests = 0
    if len(loaded.systems) > 1:
        try:
            tests = len(comparison(loaded, measures, test, baseline, correction, alpha, family).frame)
        except metrics.ValidationError:  # nothing to test: no test to caution about
            pass
    topics = max((n for _, n in provenance(loaded, measures).topics), default=0)
    found = comparison_cautions(metrics.resolve_measures(list(measures)), test=test if tests else None,
                                correction=correction, tests=tests, topics=topics, gain_stated=True)
    return tuple(c.sentence for c in found)


@st.cache_data(max_entries=32, show_spinner="Ordering the tied scores…")
def _tie_ranges(key: tuple, measures: tuple[str, ...], _loaded: Loaded) -> pd.DataFrame:
    from metrics.ties import tie_ranges as ranges

    return pd.concat([stored.run_table("tie_ranges", _loaded, name, up, {"measures": list(measures)},
                                       lambda name=name, up=up: ranges(None, [_ranked_run(_loaded, name, up)],
                                                                       list(measures), inexact="nan"))
                      for name, up in _loaded.runs], ignore_index=True)


def tie_ranges(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Per system, topic and measure: ``low``, ``reported`` and ``high`` over the orders of tied scores
    (:func:`metrics.ties.tie_ranges`; NaN bounds for a measure without exact ones)."""
    return _tie_ranges(loaded.key, tuple(measures), loaded)


def tie_summary(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """Each system's ``low``, ``reported`` and ``high`` mean per measure (:func:`metrics.ties.tie_summary`)."""
    from metrics.ties import tie_summary as summarised

    return summarised(tie_ranges(loaded, measures))


def tie_flips(loaded: Loaded, measures: tuple[str, ...]) -> pd.DataFrame:
    """The pairs whose reported order some order of their tied scores reverses (:func:`metrics.ties.tie_flips`)."""
    from metrics.ties import tie_flips as flips

    return flips(tie_summary(loaded, measures))


def residual_of(spec: str) -> str | None:
    """The residual of a measure with the same parameters, or None (:func:`metrics.judgements.residual_spec`)."""
    return judgements.residual_spec(spec)


def judged_residual(loaded: Loaded, measure: str, judged: str, systems: tuple[str, ...]) -> pd.DataFrame:
    """Per system and topic: the measure, its residual, the gap between them and Judged@k
    (:func:`metrics.judgements.residual_gaps`). Raises :class:`metrics.ValidationError` for a measure
    without a residual.
    """
    residual = residual_of(measure)
    if residual is None:
        raise metrics.ValidationError(f"{measure}: no residual measure (those of {', '.join(RESIDUALS)} have one)")
    return judgements.residual_gaps(per_query(loaded, (measure, residual, judged)), measure, residual, judged,
                                    systems)


@st.cache_data(max_entries=32, show_spinner="Weighing the losses…")
def _risk(key: tuple, measure: str, baseline: str, alpha: float, _loaded: Loaded) -> pd.DataFrame:
    from metrics.risk import risk_table

    return risk_table(per_query(tested_on_every_topic(_loaded), (measure,)), baseline, alpha, [measure])


def risk(loaded: Loaded, measure: str, baseline: str, alpha: float) -> pd.DataFrame:
    """Every system against the baseline: URisk, TRisk (flagged beyond ±2), ZRisk and GeoRisk, on the
    topics of :func:`tested_on_every_topic` (:func:`metrics.risk.risk_table`)."""
    return _risk(loaded.key, measure, baseline, float(alpha), loaded)


def risk_topics(loaded: Loaded, measure: str, system: str, baseline: str, alpha: float) -> pd.DataFrame:
    """Per topic: ``query``, ``baseline``, ``system``, ``delta`` (system − baseline) and ``adjusted`` (a loss
    times 1 + α, :func:`metrics.risk.risk_adjusted_deltas`), the largest gain first."""
    from metrics.risk import risk_adjusted_deltas

    rows = topics.paired_topics(per_query(tested_on_every_topic(loaded), (measure,)), measure, baseline,
                                system).frame
    return pd.DataFrame({"query": rows["query"].to_numpy(), "baseline": rows["a"].to_numpy(),
                         "system": rows["b"].to_numpy(), "delta": rows["diff"].to_numpy(),
                         "adjusted": risk_adjusted_deltas(rows["b"], rows["a"], alpha)})


def judged_measure(measure: str) -> str:
    """Judged@k at the measure's cutoff, or at :data:`metrics.judgements.JUDGED_CUTOFF` without one."""
    from metrics.judgements import JUDGED_CUTOFF

    cutoff = metrics.parse_measure(measure).values.get("cutoff")
    return f"Judged@{cutoff or JUDGED_CUTOFF}"


@st.cache_data(max_entries=16, show_spinner=False)
def _judged_gaps(key: tuple, cutoff: int, _loaded: Loaded) -> tuple[str, ...]:
    found = metrics.lint(read_qrels(_loaded.qrels), runs(_loaded), rankings(_loaded), judged_cutoff=cutoff)
    return tuple(f"{item.source}: {item.message}" for item in found if item.code == "judged-rate-gap")


def judged_gaps(loaded: Loaded, judged: str) -> tuple[str, ...]:
    """The lint's judged-rate warnings at the k of ``judged`` (``Judged@k``): pairs of systems whose mean
    Judged@k differ enough to bias their comparison (:func:`metrics.judgements.judged_rate_gaps`)."""
    return _judged_gaps(loaded.key, int(metrics.parse_measure(judged).values["cutoff"]), loaded)


# ---- decisions: letter groups, power, agreement between orderings, reproducibility -------------------------
def _labels(measures: tuple[str, ...]) -> list[str]:
    return [label for label, _ in metrics.resolve_measures(list(measures))]


@st.cache_data(max_entries=32, show_spinner="Grouping the systems…")
def _letter_groups(key: tuple, measures: tuple[str, ...], test: str, correction: str, alpha: float, family: str,
                   _loaded: Loaded) -> dict[str, pd.DataFrame]:
    from metrics.significance import grouped_leaderboard

    tested = comparison(_loaded, measures, test, None, correction, alpha, family)
    return {m: grouped_leaderboard(tested, m, higher_is_better=type(metrics.parse_measure(m)).higher_is_better)
            for m in tested.measures}


def letter_groups(loaded: Loaded, measures: tuple[str, ...], test: str, correction: str, alpha: float,
                  family: str = "per_measure") -> dict[str, pd.DataFrame]:
    """Per tested measure, the compact letter display (system, mean, group) of the corrected tests of every
    pair (:func:`comparison` without a baseline; :func:`metrics.significance.grouped_leaderboard`): two
    systems share a letter when their difference is not significant."""
    return _letter_groups(loaded.key, tuple(measures), test, correction, float(alpha), family, loaded)


@st.cache_data(max_entries=32, show_spinner="Weighing the power…")
def _power(key: tuple, measure: str, alpha: float, power: float, effect: float | None, _loaded: Loaded):
    from metrics.power import power_analysis

    label = _labels((measure,))[0]
    return power_analysis(per_query(tested_on_every_topic(_loaded), (measure,)), label, alpha=alpha, power=power,
                          effect=effect)


def power(loaded: Loaded, measure: str, alpha: float, power: float, effect: float | None = None):
    """Minimum detectable effects, topics needed for ``effect`` (t-test and ANOVA) and each pair's achieved
    power, on the topics of :func:`tested_on_every_topic` (:func:`metrics.power.power_analysis`)."""
    return _power(loaded.key, measure, float(alpha), float(power), None if effect is None else float(effect), loaded)


@st.cache_data(max_entries=32, show_spinner="Comparing the orderings…")
def _agreement(key: tuple, measures: tuple[str, ...], statistic: str, _loaded: Loaded) -> pd.DataFrame:
    from metrics.agreement import agreement_matrix

    return agreement_matrix(per_query(_loaded, measures), _labels(measures), statistic=statistic)


def agreement(loaded: Loaded, measures: tuple[str, ...], statistic: str) -> pd.DataFrame:
    """Measures × measures agreement (``statistic`` of :data:`metrics.agreement.STATISTICS`) of the systems'
    orderings by mean (:func:`metrics.agreement.agreement_matrix`)."""
    return _agreement(loaded.key, tuple(measures), statistic, loaded)


def ordering(loaded: Loaded, x: str, y: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two measures' orderings of the systems: the agreement row (tau, tau_AP both ways, swaps), the swapped
    pairs (:func:`metrics.agreement.swapped_pairs`) and the systems' means (system, x, y)."""
    from metrics.agreement import ordering_agreement, swapped_pairs, system_means

    lx, ly = _labels((x, y))
    means = system_means(per_query(loaded, (x, y)), list(dict.fromkeys([lx, ly])))
    a, b = means[lx], means[ly]
    return (ordering_agreement(a, b), swapped_pairs(a, b),
            pd.DataFrame({"system": means.index.astype(str), "x": a.to_numpy(), "y": b.to_numpy()}))


@st.cache_data(max_entries=16, show_spinner="Comparing the reproduction with the original…")
def _reproduction(key: tuple, systems: tuple[str, str, str, str], measures: tuple[str, ...], _loaded: Loaded):
    from metrics.reproducibility import reproduce

    named = {name: read_run(up, name) for name, up in _loaded.runs}
    return reproduce(read_qrels(_loaded.qrels), *(named[s] for s in systems), list(measures),
                     conventions=_loaded.conventions)


def reproduction(loaded: Loaded, original_baseline: str, original_advanced: str, reproduced_baseline: str,
                 reproduced_advanced: str, measures: tuple[str, ...]):
    """Breuer et al.'s measures of a reproduction among the loaded runs: per-topic Kendall's tau union and
    RBO, RMSE, effect ratio, delta RI and p-values (:func:`metrics.reproducibility.reproduce`)."""
    systems = (original_baseline, original_advanced, reproduced_baseline, reproduced_advanced)
    return _reproduction(loaded.key, systems, tuple(measures), loaded)
