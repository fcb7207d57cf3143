"""PyTerrier's saved results: ``pt.Experiment``'s per-query table and its aggregated table.

``pt.Experiment(..., perquery=True)`` returns a frame with the columns ``name, qid, measure, value`` (one
row per system, query and measure), which users save as ``perquery.csv``; without ``perquery`` it returns
the aggregated table: ``name`` then one column per measure. Measures are named in ir_measures' syntax
(``nDCG@10``, ``AP(rel=2)``, ``P@5``, ``R@1000``, ``RR``). :func:`read_pyterrier_per_query` turns the first
into rankscope's tidy per-query frame (``system, query, measure, value``) and
:func:`read_pyterrier_aggregate` the second into ``system, measure, value``; every measure name goes
through rankscope's one parser, so ``nDCG@10`` and ``ndcg_cut_10`` are the same measure, labelled
canonically (``nDCG@10``).

A name that is not a measure is never taken silently: PyTerrier's mean response time (``mrt``, in
milliseconds) is left out and listed in ``ignored``, as are the columns of a baseline comparison in the
aggregated table (``nDCG@10 +``, ``nDCG@10 -``, ``nDCG@10 p-value``, ``nDCG@10 reject``, ...) and a
pandas index column. Any other name rankscope does not know is an error unless ``unknown="ignore"``.

This module parses measure names, so it stands above :mod:`metrics.measures` (ARCHITECTURE.md), and
:mod:`metrics.io` does not re-export it.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from metrics.errors import ParseError, UnknownMeasureError, ValidationError
from metrics.io.parsing import _decode, clip
from metrics.io.readers import _load, is_dataframe
from metrics.measures.parse import parse_measure

__all__ = ["NOT_MEASURES", "PER_QUERY_COLUMNS", "PyTerrierResults", "read_pyterrier_aggregate",
           "read_pyterrier_per_query"]

PER_QUERY_COLUMNS = ("name", "qid", "measure", "value")
"""The columns of ``pt.Experiment(..., perquery=True)``'s frame."""
NOT_MEASURES = {"mrt": "PyTerrier's mean response time (ms), not a measure of the ranking"}
"""Names PyTerrier writes beside the measures, each with why it is left out."""
_BASELINE_SUFFIXES = (" +", " -", " p-value", " p-value corrected", " reject")
_INDEX_COLUMNS = ("", "Unnamed: 0", "index")
UNKNOWN = ("error", "ignore")


@dataclass(frozen=True)
class PyTerrierResults:
    """What a PyTerrier table held.

    Attributes
    ----------
    frame : pandas.DataFrame
        Per-query: ``system, query, measure, value``; aggregated: ``system, measure, value`` (``value``
        float64, the others text; measures labelled canonically, ``nDCG@10``).
    ignored : dict
        Each name left out (a measure name or a column) -> why.
    """

    frame: pd.DataFrame
    ignored: dict[str, str] = field(default_factory=dict)


def read_pyterrier_per_query(source: Any, *, name: str | None = None, unknown: str = "error") -> PyTerrierResults:
    """Read ``pt.Experiment(..., perquery=True)``'s table (a CSV file, its bytes or text, or the frame).

    Parameters
    ----------
    source : str, os.PathLike, bytes or pandas.DataFrame
        The table, with the columns ``name, qid, measure, value`` (others are listed in ``ignored``).
    name : str, optional
        The label messages use (default: the file's name, ``<frame>`` for a frame).
    unknown : {"error", "ignore"}
        A measure name rankscope does not know: an error (default), or left out and listed in ``ignored``.

    Returns
    -------
    PyTerrierResults
        ``frame``: ``system, query, measure, value``, rows in the order read.

    Raises
    ------
    ParseError
        With the file and line: a missing column, a value that is not a finite number, an unknown measure,
        or a (name, qid, measure) given twice (also when two spellings name one measure).
    """
    _check_unknown(unknown)
    fast = _per_query_fast(source, name, unknown)
    return fast if fast is not None else _per_query_exact(source, name, unknown)


def _per_query_fast(source: Any, name: str | None, unknown: str) -> PyTerrierResults | None:
    """The table read and checked column by column (pandas' C reader), or None at the first doubt: then the
    line reader (:func:`_per_query_exact`) reads it again, to name the file and line of what is wrong."""
    if is_dataframe(source):
        frame = source
    else:
        data, label = _load(source, name)
        try:
            types = {"name": str, "qid": str, "measure": str, "value": "float64"}
            frame = pd.read_csv(io.BytesIO(data), dtype=types, keep_default_na=False, skip_blank_lines=True, engine="c", encoding="utf-8")
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
            return None
        frame.columns = [str(c).strip() for c in frame.columns]
    header = [str(c) for c in frame.columns]
    if len(set(header)) != len(header) or any(c not in header for c in PER_QUERY_COLUMNS):
        return None
    if frame[["name", "qid", "measure"]].isna().to_numpy().any():  # a short row, or a frame's missing value
        return None
    text = {c: frame[c].astype(str).str.strip() for c in ("name", "qid", "measure")}
    if any((column == "").any() for column in text.values()):  # an empty cell, or a short row the reader filled
        return None
    value = frame["value"]
    values = (pd.to_numeric(value.astype(str).str.strip(), errors="coerce") if value.dtype == object
              or pd.api.types.is_string_dtype(value) else pd.to_numeric(value, errors="coerce"))
    values = values.to_numpy(dtype="float64", na_value=np.nan)
    if not np.isfinite(values).all():
        return None
    ignored = {c: _extra_column(c) for c in header if c not in PER_QUERY_COLUMNS}
    labels: dict[str, str | None] = {}
    try:
        for raw in text["measure"].unique():
            labels[raw] = _label(raw, "", 0, unknown, ignored)
    except ParseError:
        return None
    measure = text["measure"].map(labels)
    keep = measure.notna().to_numpy()
    out = _frame({"system": text["name"][keep].to_numpy(dtype=object),
                  "query": text["qid"][keep].to_numpy(dtype=object),
                  "measure": measure[keep].to_numpy(dtype=object), "value": values[keep]})
    if out.duplicated(["system", "query", "measure"]).any():
        return None
    return PyTerrierResults(out, ignored)


def _per_query_exact(source: Any, name: str | None, unknown: str) -> PyTerrierResults:
    """The table read line by line, each line checked as it comes: exact about the first bad one."""
    label, header, rows = _rows(source, name)
    missing = [c for c in PER_QUERY_COLUMNS if c not in header]
    if missing:
        found = ", ".join(map(repr, header)) or "none"
        raise ParseError(label, 1, f"expected the columns {', '.join(PER_QUERY_COLUMNS)} of PyTerrier's per-query "
                                   f"table, found {found} (missing {', '.join(missing)})")
    at = {c: header.index(c) for c in PER_QUERY_COLUMNS}
    ignored = {c: _extra_column(c) for c in header if c not in PER_QUERY_COLUMNS}
    labels: dict[str, str | None] = {}
    seen: dict[tuple[str, str, str], int] = {}
    out: dict[str, list] = {"system": [], "query": [], "measure": [], "value": []}
    for line, cells in rows:
        system, query, raw = (cells[at[c]] for c in ("name", "qid", "measure"))
        for column, cell in (("name", system), ("qid", query), ("measure", raw)):
            if cell is None or isinstance(cell, str) and not cell:
                found = "no value" if cell is None else "an empty field"
                raise ParseError(label, line, f"expected a {column}, found {found}")
        if raw not in labels:
            labels[raw] = _label(raw, label, line, unknown, ignored)
        measure = labels[raw]
        if measure is None:
            continue
        value = _number(cells[at["value"]], label, line, "value")
        key = (system, query, measure)
        if key in seen:
            raise ParseError(label, line, f"expected one row per (name, qid, measure), found ({clip(system)}, "
                                          f"{clip(query)}, {measure}) again (first on line {seen[key]})")
        seen[key] = line
        for column, cell in zip(out, (system, query, measure, value)):
            out[column].append(cell)
    return PyTerrierResults(_frame(out), ignored)


def read_pyterrier_aggregate(source: Any, *, name: str | None = None, unknown: str = "error") -> PyTerrierResults:
    """Read ``pt.Experiment``'s aggregated table: ``name`` then one column per measure.

    Parameters
    ----------
    source, name, unknown
        As for :func:`read_pyterrier_per_query`; ``mrt``, a baseline's columns (``nDCG@10 +``,
        ``nDCG@10 p-value``, ...) and an index column are listed in ``ignored``.

    Returns
    -------
    PyTerrierResults
        ``frame``: ``system, measure, value``, systems in the order read, measures in the columns' order.
    """
    _check_unknown(unknown)
    label, header, rows = _rows(source, name)
    if "name" not in header:
        raise ParseError(label, 1, f"expected a column 'name' (PyTerrier's aggregated table: name, then one column "
                                   f"per measure), found {', '.join(map(repr, header)) or 'none'}")
    ignored: dict[str, str] = {}
    measures: list[tuple[int, str]] = []
    for index, column in enumerate(header):
        if column == "name":
            continue
        if column in _INDEX_COLUMNS or column.endswith(_BASELINE_SUFFIXES):
            ignored[column] = _extra_column(column)
            continue
        measure = _label(column, label, 1, unknown, ignored)
        if measure is not None:
            if measure in {m for _, m in measures}:
                raise ParseError(label, 1, f"expected each measure in one column, found {measure} twice "
                                           f"(column {clip(column)!r})")
            measures.append((index, measure))
    out: dict[str, list] = {"system": [], "measure": [], "value": []}
    systems: dict[str, int] = {}
    for line, cells in rows:
        system = cells[header.index("name")]
        if system in systems:
            raise ParseError(label, line, f"expected one row per name, found {clip(system)!r} again "
                                          f"(first on line {systems[system]})")
        systems[system] = line
        for index, measure in measures:
            out["system"].append(system)
            out["measure"].append(measure)
            out["value"].append(_number(cells[index], label, line, measure))
    return PyTerrierResults(_frame(out), ignored)


def _check_unknown(unknown: str) -> None:
    if unknown not in UNKNOWN:
        raise ValidationError(f"unknown: expected one of {', '.join(UNKNOWN)}, found {unknown!r}")


def _extra_column(column: str) -> str:
    if column in _INDEX_COLUMNS:
        return "an index column"
    if column.endswith(_BASELINE_SUFFIXES):
        return "a comparison with PyTerrier's baseline (rankscope compare tests the pairs itself)"
    return "not a column of PyTerrier's per-query table"


def _label(raw: str, label: str, line: int, unknown: str, ignored: dict[str, str]) -> str | None:
    """The canonical label of a measure name, or None when it is left out (then listed in ``ignored``)."""
    if raw in NOT_MEASURES:
        ignored[raw] = NOT_MEASURES[raw]
        return None
    try:
        return str(parse_measure(raw))
    except UnknownMeasureError as err:
        if unknown == "ignore":
            ignored[raw] = f"not a measure rankscope knows ({err})"
            return None
        raise ParseError(label, line, f"expected a measure name, found {clip(raw)!r}: {err}") from None
    except ValidationError as err:
        raise ParseError(label, line, f"expected a measure name, found {clip(raw)!r}: {err}") from None


def _number(cell: Any, label: str, line: int, what: str) -> float:
    try:
        value = float(cell)
    except (TypeError, ValueError):
        raise ParseError(label, line, f"expected a number as {what}, found {clip(str(cell))!r}") from None
    if not math.isfinite(value):
        raise ParseError(label, line, f"expected a finite number as {what}, found {clip(str(cell))!r}")
    return value


def _frame(columns: dict[str, list]) -> pd.DataFrame:
    frame = pd.DataFrame({k: pd.Series(v, dtype="float64" if k == "value" else object) for k, v in columns.items()})
    return frame.reset_index(drop=True)


def _rows(source: Any, name: str | None) -> tuple[str, list[str], Any]:
    """The label, the header and an iterator of (line, cells) of a CSV source or a frame.

    A frame's "line" is its row's place counted as in the CSV it would write: header on line 1, first row
    on line 2.
    """
    if is_dataframe(source):
        label = name or "<frame>"
        header = [str(c) for c in source.columns]
        columns = [source[c].tolist() for c in source.columns] if len(set(header)) == len(header) else None
        if columns is None:
            raise ParseError(label, 1, f"expected distinct column names, found {', '.join(map(repr, header))}")
        cells = zip(*columns) if columns else iter(())
        return label, header, ((i, [_cell(v) for v in row]) for i, row in enumerate(cells, start=2))
    data, label = _load(source, name)
    reader = csv.reader(_decode(data, label).splitlines())
    header = next(reader, None)
    if header is None:
        raise ParseError(label, None, "expected a CSV table with a header, found an empty file")
    header = [c.strip() for c in header]
    return label, header, _csv_rows(reader, header, label)


def _cell(value: Any) -> Any:
    """A frame's cell as the line reader takes it: a number kept, a missing value None, anything else text."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    return value if isinstance(value, float) else str(value)


def _csv_rows(reader, header: list[str], label: str):
    for cells in reader:
        line = reader.line_num
        if not cells or cells == [""] * len(cells):
            continue
        if len(cells) != len(header):
            raise ParseError(label, line, f"expected {len(header)} fields ({', '.join(header)}), found {len(cells)}")
        yield line, [c.strip() for c in cells]
