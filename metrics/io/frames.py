"""pandas DataFrames as runs and qrels: the column shapes recognised, and their validation.

A frame of judgments or results comes from another tool with that tool's column names. :data:`FRAME_SHAPES`
is the one table of the names accepted, one row per tool; a frame is read by the first shape whose two
identifying columns (the query's and the document's) it holds, so a PyTerrier frame, which also carries
the query's text in ``query`` and Terrier's internal number in ``docid``, is read by its ``qid`` and
``docno``. Other columns are ignored. A frame of no known shape gets one line naming the shapes.

=============  ==========  ==========  ======================  ==================
shape          query       document    run: score, rank        qrels: grade
=============  ==========  ==========  ======================  ==================
PyTerrier      ``qid``     ``docno``   ``score``, ``rank``     ``label``
ir_measures    ``query_id`` ``doc_id`` ``score``               ``relevance``
rankscope      ``query``   ``docid``   ``score``, ``rank``     ``relevance``
=============  ==========  ==========  ======================  ==================

``rank`` is optional and, as in a run file, only read (PyTerrier counts it from 0). ir_measures' and
ranx's ``iteration`` column is ignored, as trec_eval ignores the qrels' second field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from metrics.errors import ValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FRAME_SHAPES", "FrameShape", "qrels_table", "run_table"]


@dataclass(frozen=True)
class FrameShape:
    """The column names one tool gives a run's and a judgments' frame.

    Attributes
    ----------
    tool : str
        Whose names they are (said in messages).
    query, docid : str
        The columns of the query id and the document id.
    relevance : str
        The grade's column in a frame of judgments.
    """

    tool: str
    query: str
    docid: str
    relevance: str

    def run_columns(self) -> tuple[str, ...]:
        """The columns a run's frame of this shape must hold."""
        return self.query, self.docid, "score"

    def qrels_columns(self) -> tuple[str, ...]:
        """The columns a judgments' frame of this shape must hold."""
        return self.query, self.docid, self.relevance


FRAME_SHAPES = (
    FrameShape("PyTerrier", "qid", "docno", "label"),
    FrameShape("ir_measures", "query_id", "doc_id", "relevance"),
    FrameShape("rankscope", "query", "docid", "relevance"),
)
"""The frames read as runs and qrels, tried in this order (PyTerrier's first: its frames also hold a
``query`` and a ``docid`` column, which mean something else there)."""

_SHOWN = 12  # column names of a frame named in a message, at most


def run_table(frame: "pd.DataFrame", label: str) -> pa.Table:
    """A run's frame of any shape of :data:`FRAME_SHAPES` as the readers' table (query, docid, score, rank).

    Raises
    ------
    ValidationError
        No shape fits, a column is missing or holds missing or unreadable values (one line, naming
        ``label``).
    """
    shape = _shape_of(frame, label, "run", FrameShape.run_columns)
    columns = {"query": shape.query, "docid": shape.docid, "score": "score", "rank": "rank"}
    schema = {"query": pa.string(), "docid": pa.string(), "score": pa.float64(), "rank": pa.float64()}
    return _table(frame, columns, schema, label, optional=("rank",))


def qrels_table(frame: "pd.DataFrame", label: str) -> pa.Table:
    """A judgments' frame of any shape of :data:`FRAME_SHAPES` as the readers' table (query, docid,
    relevance); raises :class:`ValidationError` as :func:`run_table` does."""
    shape = _shape_of(frame, label, "qrels", FrameShape.qrels_columns)
    columns = {"query": shape.query, "docid": shape.docid, "relevance": shape.relevance}
    schema = {"query": pa.string(), "docid": pa.string(), "relevance": pa.int64()}
    return _table(frame, columns, schema, label)


def _shape_of(frame: "pd.DataFrame", label: str, kind: str, needed) -> FrameShape:
    """The first shape whose query and document columns the frame holds; its other columns must be there."""
    names = set(map(str, frame.columns))
    for shape in FRAME_SHAPES:
        if shape.query in names and shape.docid in names:
            required = needed(shape)
            missing = [c for c in required if c not in names]
            if missing:
                raise ValidationError(f"{label}: expected columns {list(required)} ({shape.tool}'s {kind} frame), "
                                      f"missing {missing}")
            return shape
    shapes = " or ".join(f"{', '.join(needed(s))} ({s.tool})" for s in FRAME_SHAPES)
    found = [str(c) for c in list(frame.columns)[:_SHOWN]]
    more = f" and {len(frame.columns) - _SHOWN} more" if len(frame.columns) > _SHOWN else ""
    raise ValidationError(f"{label}: expected the columns of a {kind} frame: {shapes}; found {found}{more}")


def _table(frame: "pd.DataFrame", columns: dict[str, str], schema: dict[str, pa.DataType], label: str,
           optional: tuple[str, ...] = ()) -> pa.Table:
    """The frame's ``columns`` (ours -> theirs) converted to ``schema``; an optional column absent is NaN."""
    out = {}
    for ours, dtype in schema.items():
        theirs = columns[ours]
        if theirs not in frame.columns:  # only an optional one: the required ones were checked
            out[ours] = pa.array(np.full(len(frame), np.nan), type=dtype)
            continue
        values = frame[theirs]
        if pa.types.is_string(dtype):
            if values.isna().any():
                raise ValidationError(f"{label}: column {theirs!r} has missing values")
            values = values.astype(str)
        try:
            out[ours] = pa.array(values.to_numpy(), type=dtype, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as err:
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise ValidationError(f"{label}: column {theirs!r} cannot be read as {dtype}: {first}") from None
        if out[ours].null_count and ours not in optional:
            raise ValidationError(f"{label}: column {theirs!r} has missing values")
    return pa.table(out)
