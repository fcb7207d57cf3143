"""Tables as files: CSV and Parquet bytes, the manifest beside or inside them, and a zip of several files.

The results table (systems x measures) is :mod:`metrics.review.compare`'s: render it with
:func:`metrics.review.compare.to_latex`, :func:`~metrics.review.compare.to_markdown` or
:func:`~metrics.review.compare.to_csv`.
:func:`results_latex` and :func:`baseline_markers` are kept for callers that hold only a summary and a
saved comparison table; they go through :mod:`metrics.review.compare` too.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from metrics import ValidationError
from metrics.checks import refuse
from metrics.review.compare import SummaryTable, baseline_markers, to_latex
from metrics.review.manifest import Manifest
from metrics.io.spreadsheet import csv_text

__all__ = ["baseline_markers", "csv_bytes", "groups_latex", "manifest_json", "parquet_bytes", "parquet_metadata",
           "per_query_csv", "per_query_parquet", "results_latex", "summary_csv", "summary_parquet", "zip_bytes"]

METADATA_KEY = b"rankscope"


def csv_bytes(frame: pd.DataFrame, provenance: Any = None) -> bytes:
    """A table as UTF-8 CSV bytes (no index; floats at full precision), safe to open in a spreadsheet (a text
    cell beginning like a formula is written after a ``'``: :func:`metrics.io.spreadsheet.csv_text`).

    Parameters
    ----------
    frame : pandas.DataFrame
    provenance : metrics.review.provenance.Provenance, optional
        Its one line (:meth:`~metrics.review.provenance.Provenance.compact`) written first, as a comment line
        ``# provenance: ...`` (read the table back with ``pandas.read_csv(..., skiprows=1)``).

    Examples
    --------
    >>> csv_bytes(pd.DataFrame({"system": ["a"], "value": [0.5]}))
    b'system,value\\na,0.5\\n'
    """
    _check_frame(frame)
    head = "" if provenance is None else "# provenance: " + " ".join(provenance.compact().split()) + "\n"
    return (head + csv_text(frame)).encode("utf-8")


def groups_latex(boards: Mapping[str, pd.DataFrame]) -> bytes:
    """Each measure's grouped leaderboard (system, mean, group letters) as a booktabs table, one after another.

    Parameters
    ----------
    boards : mapping of str to pandas.DataFrame
        Per measure, :func:`metrics.stats.significance.grouped_leaderboard`.

    Returns
    -------
    bytes
        UTF-8 LaTeX (:func:`metrics.review.compare.render.leaderboard_to_latex`), labelled ``tab:groups-1``, ...
    """
    from metrics.review.compare.render import leaderboard_to_latex

    return "\n".join(leaderboard_to_latex(board, measure, label=f"tab:groups-{i}")
                     for i, (measure, board) in enumerate(boards.items(), 1)).encode("utf-8")


def parquet_bytes(frame: pd.DataFrame, metadata: Manifest | Mapping[str, Any] | None = None) -> bytes:
    """A table as Parquet bytes, with ``metadata`` (e.g. the manifest) as JSON in the schema.

    Parameters
    ----------
    frame : pandas.DataFrame
    metadata : Manifest or mapping, optional
        Stored under the key ``rankscope`` of the Parquet schema metadata (a Manifest as its
        ``to_dict()``); :func:`parquet_metadata` reads it back.

    Returns
    -------
    bytes
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    _check_frame(frame)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if metadata is not None:
        document = metadata.to_dict() if isinstance(metadata, Manifest) else dict(metadata)
        try:
            extra = {METADATA_KEY: json.dumps(document, ensure_ascii=False, allow_nan=False).encode("utf-8")}
        except (TypeError, ValueError) as err:
            raise ValidationError(f"the Parquet metadata: expected plain JSON, found {err}") from None
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **extra})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def parquet_metadata(data: bytes) -> dict[str, Any] | None:
    """The ``rankscope`` metadata of Parquet bytes written by :func:`parquet_bytes` (None when absent).

    Raises
    ------
    ValidationError
        When ``data`` is not a Parquet file, or its metadata is not JSON.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(io.BytesIO(bytes(data)))
    except (pa.ArrowException, OSError, TypeError) as err:
        raise ValidationError(f"not a Parquet file: {err}") from None
    raw = (schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValidationError(f"the rankscope metadata of this Parquet file is not JSON: {err}") from None


def per_query_csv(per_query: pd.DataFrame) -> bytes:
    """The tidy per-query table (system, query, measure, value) as CSV bytes."""
    return csv_bytes(_columns(per_query, ("system", "query", "measure", "value"), "per-query"))


def per_query_parquet(per_query: pd.DataFrame, metadata: Manifest | Mapping[str, Any] | None = None) -> bytes:
    """The tidy per-query table (system, query, measure, value) as Parquet bytes (see :func:`parquet_bytes`)."""
    return parquet_bytes(_columns(per_query, ("system", "query", "measure", "value"), "per-query"), metadata)


def summary_csv(summary: pd.DataFrame, provenance: Any = None) -> bytes:
    """The summary table (system, measure, value and, when present, n_queries, std, ci_low, ci_high) as CSV,
    after the provenance card's comment line when one is given (see :func:`csv_bytes`)."""
    return csv_bytes(_columns(summary, ("system", "measure", "value"), "summary"), provenance)


def summary_parquet(summary: pd.DataFrame, metadata: Manifest | Mapping[str, Any] | None = None) -> bytes:
    """The summary table as Parquet bytes (see :func:`parquet_bytes`)."""
    return parquet_bytes(_columns(summary, ("system", "measure", "value"), "summary"), metadata)


def manifest_json(manifest: Manifest) -> bytes:
    """The manifest as a UTF-8 JSON file, the side file of CSV exports (``manifest.json``)."""
    if not isinstance(manifest, Manifest):
        raise refuse("manifest", "a Manifest", manifest)
    return (manifest.to_json() + "\n").encode("utf-8")


def zip_bytes(files: Mapping[str, bytes]) -> bytes:
    """Several files as one zip archive (deflated), in the order given.

    Parameters
    ----------
    files : mapping of str to bytes
        ``{name: content}``; names are plain relative paths (no ``..``, no leading ``/``).

    Returns
    -------
    bytes
    """
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            parts = str(name).replace("\\", "/").split("/")
            if not name or str(name).startswith("/") or ".." in parts:
                raise ValidationError(f"not a plain relative file name: {name!r}")
            info = zipfile.ZipInfo(str(name), date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, bytes(content))
    return sink.getvalue()


def results_latex(summary: pd.DataFrame, markers: Mapping[tuple[str, str], str] | None = None, *,
                  baseline: str | None = None, test: str | None = None, correction: str | None = None,
                  alpha: float | None = None, digits: int = 4, show_ci: bool = False,
                  caption: str | None = None, label: str = "tab:results", manifest: Manifest | None = None,
                  provenance: Any = None) -> str:
    r"""The results table as LaTeX from a summary and baseline markers (see :func:`baseline_markers`).

    A thin wrapper: :meth:`metrics.review.compare.SummaryTable.from_markers` then
    :func:`metrics.review.compare.to_latex`. With a :class:`~metrics.stats.significance.Comparison` at hand, call
    :func:`metrics.review.compare.summary_table` instead: its caption then also names the family size and the seed.

    Parameters
    ----------
    summary : pandas.DataFrame
        As :func:`metrics.summarise` returns (other columns are ignored).
    markers : mapping, optional
        ``{(system, measure): "better" | "worse"}`` against ``baseline``.
    baseline, test, correction : str, optional
        Named in the caption, which explains the markers.
    alpha : float, optional
    digits : int, default=4
    show_ci : bool, default=False
        Put each value's 95% confidence interval under it.
    caption : str, optional
        Text before the generated explanation (escaped).
    label : str, default="tab:results"
    manifest : Manifest, optional
        Written as comment lines at the top.
    provenance : metrics.review.provenance.Provenance, optional
        Its one line written as a comment at the top.

    Returns
    -------
    str
        Needs ``\usepackage{booktabs}``.
    """
    table = SummaryTable.from_markers(summary, markers, baseline=baseline, test=test, correction=correction,
                                      alpha=alpha, digits=digits)
    return to_latex(table, ci=show_ci, caption=caption, label=label, manifest=manifest, provenance=provenance)


def _check_frame(frame: Any) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise refuse("frame", "a pandas DataFrame", frame)


def _columns(frame: pd.DataFrame, needed: Sequence[str], what: str) -> pd.DataFrame:
    _check_frame(frame)
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValidationError(f"expected a {what} table with columns {list(needed)}, missing {missing}")
    return frame
