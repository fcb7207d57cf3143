"""Several judgment sets of one collection: what the judges page shows, as cached calls into
:mod:`metrics.judgments`.

Each set is evaluated through the same per-query tables as every other page (:func:`per_query` of the
collection evaluated under that set, :func:`dashboard.session.state.under`), on the topics the paired tests use
(:func:`tested_on_every_topic`); the caches (:func:`dashboard.data.cache.on_collection`) are keyed on
:attr:`dashboard.session.state.Loaded.judges_key` (every set's digest, the runs, the conventions) and the options,
or on the sets' digests alone for what reads only the judgments.
"""

from __future__ import annotations

import pandas as pd

import metrics
from metrics.judgments import conclusions as concluded
from metrics.judgments import disagreement, labels, ppi, support, systems
from metrics.judgments.sets import JudgmentSets

from dashboard.data.cache import on_collection
from dashboard.data.files import read_qrels
from dashboard.data.measures import per_query, tested_on_every_topic
from dashboard.session import state
from dashboard.session.state import Loaded

TOP_K = 5


def _labels(measures: tuple[str, ...]) -> list[str]:
    return [label for label, _ in metrics.resolve_measures(list(measures))]


def _sets_only(loaded: Loaded) -> tuple:
    """What reads only the judgment sets depends on: their names and digests."""
    return loaded.judges_key[0]


def _judges(loaded: Loaded) -> tuple:
    return loaded.judges_key


@on_collection(max_entries=16, key=_sets_only, resource=True)
def judgment_sets(loaded: Loaded) -> JudgmentSets:
    """The collection's judgment sets, parsed once, the reference first."""
    named = state.judgment_sets(loaded)
    return JudgmentSets(names=tuple(n for n, _ in named), qrels=tuple(read_qrels(up) for _, up in named))


@on_collection(max_entries=16, key=_sets_only)
def sets_summary(loaded: Loaded) -> pd.DataFrame:
    """One row per set: its name, file, topics, judged documents, and whether it is the reference."""
    sets = judgment_sets(loaded)
    named = dict(state.judgment_sets(loaded))
    return pd.DataFrame([{"set": n, "file": named[n].name, "topics": len(sets.topics(n)),
                          "judged documents": len(sets.judged(n)), "reference": n == sets.reference} for n in sets])


@on_collection(max_entries=16, key=_judges, show_spinner="Comparing the labels…")
def label_agreement(loaded: Loaded) -> tuple[pd.DataFrame, float]:
    """Each pair's label agreement (:func:`metrics.judgments.labels.label_agreement`, binary kappa at the
    conventions' relevance level) and Krippendorff's alpha (ordinal) over all sets."""
    sets = judgment_sets(loaded)
    return (labels.label_agreement(sets, relevance_level=loaded.conventions.relevance_level),
            labels.alpha_of_sets(sets))


@on_collection(max_entries=32, key=_judges)
def pair_labels(loaded: Loaded, first: str, second: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two sets' confusion of grades and their label agreement topic by topic."""
    sets = judgment_sets(loaded)
    return (labels.confusion(sets, first, second),
            labels.topic_label_agreement(sets, first, second, relevance_level=loaded.conventions.relevance_level))


@on_collection(max_entries=16, key=_judges, show_spinner="Evaluating the runs under every judgment set…")
def _per_query(loaded: Loaded, measures: tuple[str, ...], topics: str) -> pd.DataFrame:
    frames = [per_query(tested_on_every_topic(state.under(loaded, name)), measures).assign(judges=name)
              for name, _ in state.judgment_sets(loaded)]
    frame = pd.concat(frames, ignore_index=True)[["judges", "system", "query", "measure", "value"]]
    return systems.on_topics(frame, judgment_sets(loaded).common_topics()) if topics == "common" else frame


def sets_per_query(loaded: Loaded, measures: tuple[str, ...], topics: str = "common") -> pd.DataFrame:
    """Per-query values of every run under every set, with the judged counts of the measures
    (:func:`metrics.judgments.support.support_measures`): ``judges, system, query, measure, value``."""
    wanted = tuple(dict.fromkeys([*_labels(measures), *support.support_measures(_labels(measures))]))
    return _per_query(loaded, wanted, topics)


@on_collection(max_entries=16, key=_judges)
def sets_systems(loaded: Loaded, measures: tuple[str, ...], topics: str = "common", top_k: int = TOP_K):
    """The systems under every set: orders, their agreement (tau-b, tau_AP, top-k) per pair, rank changes
    against the reference, and the judged documents each measure rests on."""
    labelled = _labels(measures)
    frame = sets_per_query(loaded, measures, topics)
    orders = systems.system_orders(frame[frame["measure"].isin(labelled)], labelled)
    sets = judgment_sets(loaded)
    return (orders, systems.order_agreement(orders, sets.pairs(), top_k=int(top_k)),
            systems.rank_changes(orders, sets.reference), support.judged_support(frame, labelled))


@on_collection(max_entries=16, key=_judges, show_spinner="Testing every pair under every judgment set…")
def conclusions(loaded: Loaded, measures: tuple[str, ...], test: str, correction: str, alpha: float,
                topics: str = "common") -> pd.DataFrame:
    """Every pairwise conclusion of the reference and what each other set finds of it, in words, one column
    per set (:func:`metrics.judgments.conclusions.conclusions`, then
    :func:`~metrics.judgments.conclusions.verdicts`)."""
    labelled = _labels(measures)
    frame = sets_per_query(loaded, measures, topics)
    frame = frame[frame["measure"].isin(labelled)]
    tests = concluded.set_tests(frame, labelled, test=test, correction=correction, alpha=float(alpha))
    orders = systems.system_orders(frame, labelled)
    reference = judgment_sets(loaded).reference
    return concluded.verdicts(concluded.conclusions(tests, orders, reference), reference)


def unanswered(loaded: Loaded, measures: tuple[str, ...], topics: str = "common") -> pd.DataFrame:
    """Under each set, the runs with compared topics they have no ranked document for, and how many: the
    page evaluates with complete topics (:func:`tested_on_every_topic`), so those score 0
    (:func:`metrics.judgments.systems.unanswered`)."""
    return systems.unanswered(sets_per_query(loaded, measures, topics))


def judges_provenance(loaded: Loaded, measures: tuple[str, ...], topics: str, test: str, correction: str):
    """The provenance card of the orders and tests: the conventions they were evaluated under (complete
    topics, -c, when a set's runs answered different topics), the reference's topics compared."""
    from metrics.review.provenance import build_provenance, topic_counts

    evaluated = [tested_on_every_topic(state.under(loaded, name)).conventions
                 for name, _ in state.judgment_sets(loaded)]
    conventions = next((c for c in evaluated if c.complete), evaluated[0] if evaluated else loaded.conventions)
    labelled = _labels(measures)
    frame = sets_per_query(loaded, measures, topics)
    rows = frame[(frame["judges"] == judgment_sets(loaded).reference) & frame["measure"].isin(labelled)]
    return build_provenance(conventions, metrics.resolve_measures(labelled), topics=topic_counts(rows), test=test,
                            correction=correction)


@on_collection(max_entries=16, key=_judges, show_spinner="Finding where the judges disagree…")
def topic_disagreement(loaded: Loaded, measure: str) -> pd.DataFrame:
    """The topics, the one the sets disagree on most first, with how far apart they put ``measure``."""
    return disagreement.topic_disagreement(judgment_sets(loaded), relevance_level=loaded.conventions.relevance_level,
                                           per_query=sets_per_query(loaded, (measure,), "each"),
                                           measure=_labels((measure,))[0])


def judged_differently(loaded: Loaded, topic: str) -> pd.DataFrame:
    """One topic's documents judged differently, each set's grade, with the title and a preview of each
    document's text when the documents are loaded (plain text)."""
    frame = disagreement.documents_judged_differently(judgment_sets(loaded), topic,
                                                      relevance_level=loaded.conventions.relevance_level)
    from dashboard.data.files import document_texts

    documents = document_texts(loaded)
    if documents is not None:
        found = [documents.get(d) for d in frame["docid"]]
        frame["title"] = [doc.title if doc is not None else "" for doc in found]
        frame["text"] = [" ".join(doc.text.split()[:60]) if doc is not None else "" for doc in found]
    return frame


def ppi_candidates(loaded: Loaded) -> list[str]:
    """The sets that judged topics the reference did not (and two or more it did): prediction-powered
    means can correct them with the reference."""
    sets = judgment_sets(loaded)
    own = set(sets.topics(sets.reference))
    return [n for n in sets.names[1:] if set(sets.topics(n)) - own and len(set(sets.topics(n)) & own) >= 2]


@on_collection(max_entries=16, key=_judges, show_spinner="Estimating with prediction-powered inference…")
def ppi_means(loaded: Loaded, automatic: str, measures: tuple[str, ...], confidence: float = 0.95,
              lam: float | None = None) -> pd.DataFrame:
    """Each system's prediction-powered mean with the reference and ``automatic``
    (:func:`metrics.judgments.ppi.ppi_systems`)."""
    return ppi.ppi_systems(sets_per_query(loaded, measures, "each"), judgment_sets(loaded).reference, automatic,
                           _labels(measures), confidence=float(confidence), lam=lam)
