"""Several judgment sets of one collection: named, one of them the reference, and how two of them line up.

A team may hold two or three qrels for one collection: the assessors' (NIST's), a crowd's, one or more
language models'. :class:`JudgmentSets` keeps them in order under their names; the first is the
*reference*, the set the others are compared with (the one a paper would have reported).

Conventions, fixed here for every module of :mod:`metrics.judgments`:

* **Judged.** A document is judged by a set when the set gives it a grade of 0 or more. A negative grade
  is, as in trec_eval, "in the pool but not judged": for label agreement it counts as no judgment.
* **A set's topics** are the topics on which it judged at least one document.
* **Names** are one line of text without ``|``, which joins two names into a pair key (``"nist|umbrela"``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Union

import numpy as np
import pandas as pd

from metrics.errors import ValidationError
from metrics.io import Qrels, Source, read_qrels, system_name

__all__ = ["JudgmentSets", "PAIR_SEPARATOR", "QRELS_SUFFIXES", "aligned", "check_name", "judged_frame",
           "judgment_sets", "pair_key", "set_name"]

PAIR_SEPARATOR = "|"
"""Joins two set names into the key of a pair: ``"nist|umbrela"``."""

MAX_NAME = 200
QRELS_SUFFIXES = (".qrels", ".qrel")
"""Suffixes :func:`set_name` strips besides those of :func:`metrics.system_name`."""


def set_name(filename: str) -> str:
    """The default name of the judgment set in the file ``filename``: :func:`metrics.system_name`'s rule,
    with :data:`QRELS_SUFFIXES` stripped too (``nist.qrels.gz`` is ``nist``).

    Examples
    --------
    A file name can name any set: a ``|`` (which joins a pair's names) becomes ``-``, a line break a space,
    and the name is cut to :data:`MAX_NAME` characters.

    >>> set_name("nist.qrels.gz"), set_name("umbrela.txt"), set_name(".qrels"), set_name("a|b.qrels")
    ('nist', 'umbrela', '.qrels', 'a-b')
    """
    name = filename
    while True:
        stripped = system_name(name)
        lower = stripped.lower()
        suffix = next((s for s in QRELS_SUFFIXES if lower.endswith(s) and len(stripped) > len(s)), None)
        if suffix is None:
            break
        name = stripped[: -len(suffix)]
    usable = " ".join(stripped.replace(PAIR_SEPARATOR, "-").splitlines())[:MAX_NAME].strip()
    return usable or "judgments"


def pair_key(first: str, second: str) -> str:
    """The key of a pair of sets, ``"first|second"``.

    Examples
    --------
    >>> pair_key("nist", "umbrela")
    'nist|umbrela'
    """
    return f"{first}{PAIR_SEPARATOR}{second}"


def check_name(name: object, what: str = "judgment set name") -> str:
    """``name`` if it can name a judgment set, else a :class:`~metrics.errors.ValidationError` saying why."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError(f"a {what}: expected non-empty text, found {name!r}")
    if PAIR_SEPARATOR in name or "\n" in name or "\r" in name or len(name) > MAX_NAME:
        raise ValidationError(f"a {what}: expected one line of at most {MAX_NAME} characters without "
                              f"'{PAIR_SEPARATOR}', found {name[:60]!r}")
    return name


@dataclass(frozen=True, eq=False)
class JudgmentSets:
    """Named judgment sets of one collection, in order; the first is the reference.

    Made by :func:`judgment_sets`.

    Attributes
    ----------
    names : tuple of str
        The sets' names, the reference first.
    qrels : tuple of Qrels
        The judgments of each, in the same order.
    """

    names: tuple[str, ...]
    qrels: tuple[Qrels, ...]

    @property
    def reference(self) -> str:
        """The name of the reference set (the first)."""
        return self.names[0]

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __getitem__(self, name: str) -> Qrels:
        try:
            return self.qrels[self.names.index(name)]
        except ValueError:
            raise ValidationError(f"no judgment set named {name!r}; the sets are {list(self.names)}") from None

    def items(self) -> list[tuple[str, Qrels]]:
        """``(name, qrels)`` of every set, the reference first."""
        return list(zip(self.names, self.qrels))

    def pairs(self) -> list[tuple[str, str]]:
        """Every pair of sets ``(first, second)``, ``first`` before ``second`` in order: the reference's first."""
        return [(a, b) for i, a in enumerate(self.names) for b in self.names[i + 1:]]

    def judged(self, name: str) -> pd.DataFrame:
        """The documents set ``name`` judged: ``query``, ``docid``, ``grade`` (int64, >= 0)."""
        return judged_frame(self[name])

    def topics(self, name: str) -> tuple[str, ...]:
        """The topics set ``name`` judged (at least one document with a grade >= 0), in trec_eval's order."""
        return tuple(sorted(pd.unique(self.judged(name)["query"]).tolist()))

    def common_topics(self) -> tuple[str, ...]:
        """The topics every set judged, in trec_eval's (byte-wise) order."""
        common = set(self.topics(self.names[0]))
        for name in self.names[1:]:
            common &= set(self.topics(name))
        return tuple(sorted(common))


def judged_frame(qrels: Qrels) -> pd.DataFrame:
    """The judged documents of a qrels: ``query``, ``docid``, ``grade`` (>= 0; negative grades left out)."""
    frame = qrels.table.to_pandas()
    frame = frame[frame["relevance"].to_numpy() >= 0]
    return pd.DataFrame({"query": frame["query"].astype(object).to_numpy(),
                         "docid": frame["docid"].astype(object).to_numpy(),
                         "grade": frame["relevance"].to_numpy(dtype=np.int64)})


def judgment_sets(sets: Mapping[str, Union[Qrels, Source]] | Sequence[Union[Qrels, Source]], *,
                  names: Sequence[str] | None = None, reference: str | None = None) -> JudgmentSets:
    """Name and order several judgment sets of one collection.

    Parameters
    ----------
    sets : mapping {name: qrels} or sequence of qrels
        Each a :class:`~metrics.io.Qrels`, or what :func:`metrics.read_qrels` reads (path, bytes, text).
    names : sequence of str, optional
        The names of a sequence of sets (default: :func:`set_name` of each file name, so ``nist.qrels``
        is ``nist``). Not with a mapping.
    reference : str, optional
        The name of the reference set (default: the first).

    Returns
    -------
    JudgmentSets

    Raises
    ------
    ValidationError
        Fewer than two sets, a name given twice, a name that is empty or holds ``|``, a reference that is
        not one of the names, or as many names as sets not given.

    Examples
    --------
    >>> s = judgment_sets({"nist": "1 0 a 2\\n1 0 b 0\\n", "llm": "1 0 a 1\\n2 0 c 1\\n"})
    >>> s.reference, s.pairs(), s.common_topics()
    ('nist', [('nist', 'llm')], ('1',))
    """
    if isinstance(sets, Mapping):
        if names is not None:
            raise ValidationError("give the names either as the keys of a mapping or as names=, not both")
        names, sources = list(sets.keys()), list(sets.values())
    else:
        sources = list(sets)
    if len(sources) < 2:
        raise ValidationError(f"comparing judgment sets: expected at least two of them, found {len(sources)}")
    qrels = [q if isinstance(q, Qrels) else read_qrels(q) for q in sources]
    if names is None:
        names = [set_name(q.name) for q in qrels]
    names = [check_name(n) for n in names]
    if len(names) != len(qrels):
        raise ValidationError(f"expected {len(qrels)} names, one per judgment set, found {len(names)}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValidationError(f"two judgment sets share the name(s) {repeated}; name them apart")
    if reference is not None:
        if reference not in names:
            raise ValidationError(f"the reference {reference!r} is not one of the judgment sets {names}")
        first = names.index(reference)
        order = [first] + [i for i in range(len(names)) if i != first]
        names, qrels = [names[i] for i in order], [qrels[i] for i in order]
    return JudgmentSets(names=tuple(names), qrels=tuple(qrels))


def aligned(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """Two sets' judged documents side by side: the union of the (query, docid) pairs either judged.

    Parameters
    ----------
    first, second : pandas.DataFrame
        Judged documents (``query``, ``docid``, ``grade``), as :func:`judged_frame` gives them.

    Returns
    -------
    pandas.DataFrame
        Columns ``query``, ``docid``, ``first``, ``second`` (float grades, NaN where that set did not judge
        the document), sorted by query then document id.
    """
    merged = pd.merge(first.rename(columns={"grade": "first"}), second.rename(columns={"grade": "second"}),
                      on=["query", "docid"], how="outer", sort=False)
    merged["first"] = merged["first"].astype(np.float64)
    merged["second"] = merged["second"].astype(np.float64)
    order = np.lexsort((merged["docid"].astype(str).to_numpy(), merged["query"].astype(str).to_numpy()))
    return merged.iloc[order].reset_index(drop=True)
