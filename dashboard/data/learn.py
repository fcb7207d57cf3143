"""One ranking taken apart for teaching: rank by rank (:mod:`metrics.teaching.anatomy`), each measure worked through
with its formula, one topic under each convention's choices, a ranking typed in as grades, and the worked
examples of ``sample_data/teaching`` with what their sources print.
"""

from __future__ import annotations

import pandas as pd

import metrics
from metrics import Conventions
from metrics.teaching import anatomy as anatomy_module
from metrics.teaching import worked as worked_module

from dashboard.data.cache import on_collection
from dashboard.data.files import _of
from dashboard.session.state import Loaded, Upload


@on_collection(max_entries=128)
def anatomy(loaded: Loaded, system: str, topic: str, gain: str = "linear", discount: str = "log2",
            level: int | None = None) -> pd.DataFrame:
    """The per-rank table of one system's ranking of one topic (metrics.teaching.anatomy)."""
    return anatomy_module.anatomy(_of(loaded, (system,)), topic, gain=gain, discount=discount, rel=level)


def relevant_count(loaded: Loaded, system: str, topic: str, level: int | None = None) -> int:
    return anatomy_module.relevant_count(_of(loaded, (system,)), topic, rel=level)


def worked(table: pd.DataFrame, num_rel: int, gain: str, discount: str, complete: bool):
    """Each measure of the table's ranking with its formula and its numbers (metrics.teaching.worked)."""
    return worked_module.worked(table, num_rel, gain=gain, discount=discount, complete=complete)


@on_collection(max_entries=128)
def convention_effects(loaded: Loaded, system: str, topic: str, cutoff: int) -> pd.DataFrame:
    """The topic's numbers under each choice of each convention (metrics.teaching.worked.convention_effects)."""
    return worked_module.convention_effects(_of(loaded, (system,))[0], topic, int(cutoff))


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
