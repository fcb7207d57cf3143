"""Judgments made by people: the grade scale they judge on, which documents two of them judge, how their
judgments become judgment sets, where they disagree, and how far a class agrees.

* **The scale** (:class:`GradeScale`) is the grades an assessor may give, each with its label (``0 not
  relevant`` ... ``3 perfectly relevant``), from 0 to 9 so that each grade is one key. A collection's scale
  (:func:`scale_of`) runs from 0 to its largest grade, labelled as :data:`LABELS` says.
* **Overlap** (:func:`overlapped`): whether a document goes to a second assessor is a draw fixed by the task's
  seed, the topic and the document, uniform in [0, 1) and below the share asked for: the same document is drawn
  the same way on every server process, and the share of documents drawn converges to the share asked for.
* **Merged** (:func:`merged`): one grade per document from every assessor's, :data:`MERGES` saying what two
  assessors who disagree give (``lower``, the default: a document is not counted more relevant than one of them
  said); an owner's adjudication replaces it.
* **The sets** (:func:`task_sets`): ``<task>:merged`` (the collection's own judgments and the task's, merged),
  ``<task>:adjudicated`` (the same with the owner's adjudications, once there is one) and one set per assessor
  (``<task>:<assessor>``, their judgments only, so that two assessors' agreement is read on the documents both
  judged, never on the collection's own).
* **A class** (:func:`class_agreement`): every student grades the same documents; Fleiss' kappa
  (:func:`metrics.judgments.labels.fleiss_kappa`) among the students who graded every one of them, Krippendorff's
  alpha (:func:`metrics.judgments.labels.krippendorff_alpha`) among all, and with the reference judgments as one
  judge more; the class's grade of each document (the most given, the lower of two as often given) against the
  reference's.

Judgments are plain frames: ``topic``, ``docid``, ``assessor``, ``grade`` (and ``at``, when made); grades are
whole numbers from 0. Nothing here reads a clock or draws at random.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.errors import ValidationError
from metrics.io import Qrels, read_qrels
from metrics.judgments.labels import cohen_kappa, fleiss_kappa, krippendorff_alpha
from metrics.judgments.sets import check_name

__all__ = ["GradeScale", "JUDGMENT_COLUMNS", "LABELS", "MERGES", "class_agreement", "class_grades", "disagreements",
           "grade_counts", "merged", "overlapped", "scale_of", "set_names", "task_agreement", "task_sets"]

LABELS = {2: ("not relevant", "relevant"),
          3: ("not relevant", "relevant", "highly relevant"),
          4: ("not relevant", "related", "highly relevant", "perfectly relevant")}
"""The labels of a scale of 2, 3 or 4 grades from 0 (the TREC Deep Learning track's words for four); a grade
past them is labelled ``grade g``."""
MOST_GRADES = 10
"""Grades 0 to 9: one key each."""
MAX_LABEL = 40
JUDGMENT_COLUMNS = ("topic", "docid", "assessor", "grade")
MERGES = {
    "lower": "two assessors who disagree: the lower grade (nobody's document counts more relevant than they said)",
    "higher": "two assessors who disagree: the higher grade",
    "unjudged": "two assessors who disagree: no grade, until the owner adjudicates",
}
"""How a document graded differently is merged, by name (an owner's adjudication always decides)."""
MERGED, ADJUDICATED = "merged", "adjudicated"
SEPARATOR = ":"


@dataclass(frozen=True)
class GradeScale:
    """The grades an assessor may give, each with a label.

    Attributes
    ----------
    grades : tuple of int
        Ascending, from 0 to 9.
    labels : tuple of str
        One per grade.
    """

    grades: tuple[int, ...]
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        grades, labels = tuple(self.grades), tuple(self.labels)
        if not 2 <= len(grades) <= MOST_GRADES or len(labels) != len(grades):
            raise ValidationError(f"a grade scale: expected 2 to {MOST_GRADES} grades, each with a label, found "
                                  f"{len(grades)} grades and {len(labels)} labels")
        if any(isinstance(g, bool) or not isinstance(g, (int, np.integer)) or not 0 <= g < MOST_GRADES for g in grades):
            raise ValidationError(f"a grade scale: expected grades from 0 to {MOST_GRADES - 1} (one key each), found "
                                  f"{list(grades)}")
        if list(grades) != sorted(set(grades)):
            raise ValidationError(f"a grade scale: expected each grade once, ascending, found {list(grades)}")
        for label in labels:
            if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL or "\n" in label:
                raise ValidationError(f"a grade scale: expected each label to be one line of 1 to {MAX_LABEL} "
                                      f"characters, found {str(label)[:60]!r}")
        object.__setattr__(self, "grades", tuple(int(g) for g in grades))
        object.__setattr__(self, "labels", tuple(label.strip() for label in labels))

    def label(self, grade: int) -> str:
        """The label of ``grade``."""
        return self.labels[self.grades.index(grade)]

    def check(self, grade: object) -> int:
        """``grade`` if it is one of the scale's, else :class:`ValidationError`."""
        if isinstance(grade, bool) or not isinstance(grade, (int, np.integer)) or int(grade) not in self.grades:
            raise ValidationError(f"a grade: expected one of {list(self.grades)}, found {str(grade)[:20]!r}")
        return int(grade)

    def text(self) -> str:
        """``0=not relevant,1=relevant``: what :meth:`parse` reads."""
        return ",".join(f"{g}={label}" for g, label in zip(self.grades, self.labels))

    @classmethod
    def parse(cls, text: str) -> "GradeScale":
        """A scale written ``0=not relevant,1=relevant,2=highly relevant``, or as grades alone (``0,1,2``:
        :data:`LABELS`' words).

        Raises
        ------
        ValidationError
            A piece that is not ``GRADE=LABEL`` or a grade, or a scale :class:`GradeScale` refuses.
        """
        if not isinstance(text, str) or len(text) > MOST_GRADES * (MAX_LABEL + 4):
            raise ValidationError("a grade scale: expected text such as '0=not relevant,1=relevant'")
        grades, labels = [], []
        for piece in (p.strip() for p in text.split(",")):
            grade, _, label = piece.partition("=")
            if not grade.strip().isdigit():
                raise ValidationError(f"a grade scale: expected GRADE=LABEL, found {piece[:60]!r}")
            grades.append(int(grade))
            labels.append(label.strip())
        usable = [g for g in grades if g < MOST_GRADES]
        words = scale_of(usable) if usable else None  # the usual words for a grade given without its own
        labels = [label or (words.label(g) if words is not None and g in words.grades else "")
                  for g, label in zip(grades, labels)]
        return cls(tuple(grades), tuple(labels))


def scale_of(grades: Iterable[int]) -> GradeScale:
    """The scale of a collection whose judgments use ``grades``: 0 to the largest (at least 0 and 1), negative
    grades (trec_eval's "not judged") left out, labelled by :data:`LABELS`.

    Raises
    ------
    ValidationError
        A grade above 9: such a collection needs a scale given with :meth:`GradeScale.parse`.

    Examples
    --------
    >>> scale_of([0, 2, 1, -1]).text()
    '0=not relevant,1=relevant,2=highly relevant'
    """
    top = max([int(g) for g in grades if int(g) >= 0] + [1])
    if top >= MOST_GRADES:
        raise ValidationError(f"the judgments grade up to {top}: a scale has grades 0 to {MOST_GRADES - 1}; give one "
                              f"such as '0=not relevant,1=relevant'")
    words = LABELS.get(top + 1, ())
    return GradeScale(tuple(range(top + 1)), tuple(words[g] if g < len(words) else f"grade {g}"
                                                   for g in range(top + 1)))


def overlapped(seed: str, topic: str, docid: str, share: float) -> bool:
    """Whether the document goes to two assessors: SHA-256 of the seed, topic and document read as a number
    in [0, 1), below ``share``.

    >>> overlapped("s", "1", "d1", 0.0), overlapped("s", "1", "d1", 1.0)
    (False, True)
    """
    digest = hashlib.sha256("\x1f".join((seed, topic, docid)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0 ** 64 < share


def _judgments(frame: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in JUDGMENT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValidationError(f"judgments: expected the columns {', '.join(JUDGMENT_COLUMNS)}, missing "
                              f"{', '.join(missing)}")
    out = frame.loc[frame["grade"].notna(), list(JUDGMENT_COLUMNS)].astype(
        {"topic": str, "docid": str, "assessor": str, "grade": np.int64})
    if out.duplicated(["topic", "docid", "assessor"]).any():
        raise ValidationError("judgments: expected one grade per assessor and document, found one twice")
    return out


def merged(judgments: pd.DataFrame, adjudications: pd.DataFrame | None = None, *,
           rule: str = "lower") -> pd.DataFrame:
    """One grade per document judged: every assessor's merged by ``rule``, an adjudication replacing it.

    Parameters
    ----------
    judgments : pandas.DataFrame
        ``topic``, ``docid``, ``assessor``, ``grade`` (a missing grade: taken back).
    adjudications : pandas.DataFrame, optional
        ``topic``, ``docid``, ``grade``: the owner's decisions.
    rule : str, default="lower"
        A name of :data:`MERGES`.

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``docid``, ``grade``, ``assessors`` (how many judged it), ``agreed`` (every assessor gave
        the same grade) and ``adjudicated``, sorted by topic and document; a disagreement merged as
        ``unjudged`` and not adjudicated has no row.
    """
    if rule not in MERGES:
        raise ValidationError(f"rule must be one of {tuple(MERGES)}, got {rule!r}")
    found = _judgments(judgments)
    grouped = found.groupby(["topic", "docid"], sort=True)["grade"]
    out = pd.DataFrame({"low": grouped.min(), "high": grouped.max(), "assessors": grouped.size()}).reset_index()
    out["agreed"] = out["low"] == out["high"]
    out["grade"] = out["high"] if rule == "higher" else out["low"]
    out["adjudicated"] = False
    if adjudications is not None and len(adjudications):
        decided = adjudications.loc[:, ["topic", "docid", "grade"]].astype({"topic": str, "docid": str,
                                                                            "grade": np.int64})
        out = out.merge(decided.rename(columns={"grade": "decided"}), on=["topic", "docid"], how="outer")
        hit = out["decided"].notna()
        out.loc[hit, "grade"] = out.loc[hit, "decided"]
        out["adjudicated"] = hit
        out["assessors"] = out["assessors"].fillna(0)
        out["agreed"] = out["agreed"].fillna(False).astype(bool)
    if rule == "unjudged":
        out = out[out["agreed"] | out["adjudicated"]]
    out = out.astype({"grade": np.int64, "assessors": np.int64})
    return out.sort_values(["topic", "docid"], kind="stable").loc[
        :, ["topic", "docid", "grade", "assessors", "agreed", "adjudicated"]].reset_index(drop=True)


def disagreements(judgments: pd.DataFrame, adjudications: pd.DataFrame | None = None) -> pd.DataFrame:
    """The documents two or more assessors graded differently, for an owner to adjudicate.

    Returns
    -------
    pandas.DataFrame
        ``topic``, ``docid``, ``grades`` (each assessor's, ``"ana@x: 2; bea@y: 0"``, by assessor), ``lowest``,
        ``highest`` and ``adjudicated`` (the owner's grade, or -1), by topic and document.
    """
    found = _judgments(judgments).sort_values(["topic", "docid", "assessor"], kind="stable")
    spread = found.groupby(["topic", "docid"], sort=True)["grade"].agg(["min", "max"])
    apart = spread[spread["min"] < spread["max"]].reset_index()
    if not len(apart):
        return pd.DataFrame({"topic": pd.Series(dtype=str), "docid": pd.Series(dtype=str),
                             "grades": pd.Series(dtype=str), "lowest": pd.Series(dtype=np.int64),
                             "highest": pd.Series(dtype=np.int64), "adjudicated": pd.Series(dtype=np.int64)})
    rows = found.merge(apart[["topic", "docid"]], on=["topic", "docid"])
    said = rows.assign(said=rows["assessor"] + ": " + rows["grade"].astype(str)).groupby(
        ["topic", "docid"], sort=True)["said"].agg("; ".join)
    out = apart.rename(columns={"min": "lowest", "max": "highest"}).merge(said.rename("grades").reset_index(),
                                                                           on=["topic", "docid"])
    out["adjudicated"] = -1
    if adjudications is not None and len(adjudications):
        decided = {(str(t), str(d)): int(g) for t, d, g in
                   adjudications.loc[:, ["topic", "docid", "grade"]].itertuples(index=False)}
        out["adjudicated"] = [decided.get((t, d), -1) for t, d in zip(out["topic"], out["docid"])]
    return out.loc[:, ["topic", "docid", "grades", "lowest", "highest", "adjudicated"]]


def task_agreement(judgments: pd.DataFrame) -> dict[str, float]:
    """How far a task's assessors agree on the documents two or more of them graded: ``twice`` (those
    documents), ``apart`` (those graded differently) and ``alpha`` (Krippendorff's, ordinal, over them; NaN with
    none, :func:`metrics.judgments.labels.krippendorff_alpha`).

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"topic": ["1"] * 4, "docid": ["a", "a", "b", "b"], "assessor": ["x", "y"] * 2,
    ...                      "grade": [1, 1, 0, 1]})
    >>> task_agreement(rows)["apart"]
    1
    """
    from metrics.judgments.labels import krippendorff_alpha

    found = _judgments(judgments)
    units = found["topic"] + "\t" + found["docid"]
    spread = found.groupby(units, sort=False)["grade"].agg(["size", "min", "max"])
    twice = spread[spread["size"] >= 2]
    return {"twice": int(len(twice)), "apart": int((twice["min"] < twice["max"]).sum()),
            "alpha": krippendorff_alpha(units.to_numpy(), found["grade"].to_numpy())}


def set_names(task: str, assessors: Iterable[str]) -> dict[str, str]:
    """``{what: set name}`` of a task's sets: ``merged``, ``adjudicated`` and each assessor, ``<task>:<what>``.

    Raises
    ------
    ValidationError
        A name that cannot name a judgment set (:func:`metrics.judgments.sets.check_name`), or an assessor
        named like the merged or adjudicated set.
    """
    names = {}
    for what in (MERGED, ADJUDICATED, *assessors):
        if what in names:
            raise ValidationError(f"an assessor cannot be named {what!r}: it names one of the task's own sets")
        names[what] = check_name(f"{task}{SEPARATOR}{what}")
    return names


def _qrels(name: str, frame: pd.DataFrame) -> Qrels:
    table = frame.loc[:, ["topic", "docid", "grade"]].rename(columns={"topic": "query", "grade": "relevance"})
    return read_qrels(table.reset_index(drop=True), name=name)


def task_sets(judgments: pd.DataFrame, adjudications: pd.DataFrame | None, reference: Qrels | None, *,
              task: str, rule: str = "lower") -> dict[str, Qrels]:
    """The judgment sets of a judging task, in order: merged, adjudicated (once there is an adjudication), then
    one per assessor (in the order of their names) holding their judgments alone.

    The merged and adjudicated sets hold ``reference`` (the collection's own judgments) and the task's, the
    task's replacing the reference's on a document both judged. A set with no judgment is left out.

    Returns
    -------
    dict
        ``{set name: Qrels}`` (:func:`set_names`).
    """
    found = _judgments(judgments)
    assessors = sorted(found["assessor"].unique())
    names = set_names(task, assessors)
    own = pd.DataFrame(columns=["topic", "docid", "grade"])
    if reference is not None and len(reference):
        own = reference.frame.rename(columns={"query": "topic", "relevance": "grade"}).loc[:, ["topic", "docid", "grade"]]
    out: dict[str, Qrels] = {}
    with_decisions = adjudications is not None and len(adjudications) > 0
    for what, decided in ((MERGED, None), (ADJUDICATED, adjudications)):
        if what == ADJUDICATED and not with_decisions:
            continue
        task_grades = merged(found, decided, rule=rule)
        kept = own.merge(task_grades[["topic", "docid"]], on=["topic", "docid"], how="left", indicator=True)
        base = kept.loc[kept["_merge"] == "left_only", ["topic", "docid", "grade"]]
        both = pd.concat([base, task_grades[["topic", "docid", "grade"]]], ignore_index=True)
        if len(both):
            out[names[what]] = _qrels(names[what], both.sort_values(["topic", "docid"], kind="stable"))
    for who in assessors:
        mine = found[found["assessor"] == who].sort_values(["topic", "docid"], kind="stable")
        out[names[who]] = _qrels(names[who], mine)
    return out


# ---- a class that judges -----------------------------------------------------------------------------------
def grade_counts(grades: pd.DataFrame, scale: GradeScale) -> pd.DataFrame:
    """How many students gave each grade of the scale to each document: ``docid``, ``grade``, ``label``,
    ``count`` (every grade of the scale for every document, zeros included), documents in their first order."""
    found = _judgments(grades)
    docs = list(dict.fromkeys(found["docid"]))
    counts = found.groupby(["docid", "grade"]).size()
    rows = [(d, g, scale.label(g), int(counts.get((d, g), 0))) for d in docs for g in scale.grades]
    return pd.DataFrame(rows, columns=["docid", "grade", "label", "count"])


def class_grades(grades: pd.DataFrame) -> pd.Series:
    """The class's grade of each document: the grade given most often, the lower of those given equally often
    (``docid`` -> grade, documents in their first order)."""
    found = _judgments(grades)
    counts = found.groupby(["docid", "grade"], sort=True).size().rename("n").reset_index()
    best = counts.sort_values(["docid", "n", "grade"], ascending=[True, False, True], kind="stable")
    chosen = best.drop_duplicates("docid").set_index("docid")["grade"]
    return chosen.reindex(list(dict.fromkeys(found["docid"]))).astype(np.int64)


def class_agreement(grades: pd.DataFrame, reference: Mapping[str, int] | None = None) -> dict[str, float]:
    """How far a class agrees on the documents it graded, and with the reference judgments.

    Parameters
    ----------
    grades : pandas.DataFrame
        ``topic``, ``docid``, ``assessor`` (each student), ``grade``.
    reference : mapping, optional
        ``{docid: grade}`` of the collection's own judgments of those documents (those it judged).

    Returns
    -------
    dict
        ``students``, ``documents``, ``complete`` (the students who graded every document), ``fleiss_kappa``
        (Fleiss' kappa among those, on every document), ``alpha_nominal`` and ``alpha_ordinal``
        (Krippendorff's alpha among all the students, on what each graded), and with a reference: ``alpha_with_reference`` (ordinal, the reference one judge more),
        ``reference_documents`` (the documents it judged), ``agreement_with_reference`` (the share of those
        whose class grade is the reference's) and ``kappa_with_reference`` (Cohen's kappa of the class's grades
        and the reference's). NaN where undefined.
    """
    found = _judgments(grades)
    graded = found.groupby("assessor")["docid"].nunique()
    complete = found[found["assessor"].isin(graded.index[graded == found["docid"].nunique()])]
    out = {"students": float(found["assessor"].nunique()), "documents": float(found["docid"].nunique()),
           "complete": float(complete["assessor"].nunique()),
           "fleiss_kappa": fleiss_kappa(complete["docid"], complete["grade"]),
           "alpha_nominal": krippendorff_alpha(found["docid"], found["grade"], level="nominal"),
           "alpha_ordinal": krippendorff_alpha(found["docid"], found["grade"], level="ordinal")}
    if reference is None:
        return out
    judged = {str(d): int(g) for d, g in reference.items() if int(g) >= 0 and str(d) in set(found["docid"])}
    units = list(found["docid"]) + list(judged)
    values = list(found["grade"]) + list(judged.values())
    chosen = class_grades(found)
    shared = [d for d in chosen.index if d in judged]
    out.update({"alpha_with_reference": krippendorff_alpha(units, values, level="ordinal"),
                "reference_documents": float(len(shared)),
                "agreement_with_reference": float(np.mean([chosen[d] == judged[d] for d in shared]))
                if shared else float("nan"),
                "kappa_with_reference": cohen_kappa([int(chosen[d]) for d in shared], [judged[d] for d in shared])
                if shared else float("nan")})
    return out
