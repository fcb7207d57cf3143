"""Per-query results on disk: a partitioned Parquet dataset written one run at a time, and read back.

Layout of a dataset directory::

    DIR/system=<name>/part-0.parquet   one run's per-query table (system, query, measure, value)
    DIR/_manifest.json                 written last: the systems, their partitions and row counts

``<name>`` is the system name with every character outside ``[A-Za-z0-9_.-]`` percent-encoded, so any
name is one directory; the true name is the ``system`` column inside the file. Each partition is written
whole or not at all (:func:`metrics.io.files.write_atomic`); the manifest is removed when writing starts and
written when it ends, so a directory without one is a dataset still being written (or abandoned), and a
partition the manifest does not list (a run of an earlier dataset in the same directory) is not read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from metrics.errors import ValidationError
from metrics.io.files import write_atomic

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMAT", "MANIFEST", "DatasetWriter", "partition_path", "read_dataset"]

MANIFEST = "_manifest.json"
FORMAT = "rankscope-per-query/1"
"""The ``format`` field of the manifest; a reader refuses any other."""


def partition_path(directory: str | os.PathLike, system: str) -> Path:
    """Where the table of ``system`` goes in the dataset at ``directory``."""
    return Path(directory) / f"system={quote(system, safe='')}" / "part-0.parquet"


class DatasetWriter:
    """Writes the per-query tables of runs, one partition per run, then the manifest.

    Parameters
    ----------
    directory : str or path-like
        Created if missing. A manifest already there is removed first.
    measures : sequence of str
        The measure labels, recorded in the manifest.
    conventions : dict
        The conventions used, recorded in the manifest.
    """

    def __init__(self, directory: str | os.PathLike, measures, conventions: dict) -> None:
        self.directory = Path(directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise ValidationError(f"{self.directory}: expected a directory for the dataset, found a file")
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / MANIFEST).unlink(missing_ok=True)
        self.measures = list(measures)
        self.conventions = dict(conventions)
        self.partitions: dict[str, dict[str, Any]] = {}

    def add(self, frame: "pd.DataFrame", system: str) -> None:
        """Write one run's table (all rows of ``system``) as its partition, whole or not at all."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if system in self.partitions:
            raise ValidationError(f"two runs share the system name {system!r}; rename one")
        table = pa.Table.from_pandas(frame, preserve_index=False)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        path = partition_path(self.directory, system)
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, sink.getvalue().to_pybytes())
        self.partitions[system] = {"path": path.relative_to(self.directory).as_posix(), "rows": len(frame)}

    def close(self, failures: list[dict] | None = None) -> Path:
        """Write the manifest (systems sorted by name) and return its path."""
        manifest = {"format": FORMAT, "measures": self.measures, "conventions": self.conventions,
                    "systems": [{"system": s, **self.partitions[s]} for s in sorted(self.partitions)],
                    "failures": list(failures or [])}
        path = self.directory / MANIFEST
        write_atomic(path, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8"))
        return path


def read_manifest(directory: str | os.PathLike) -> dict:
    """The manifest of the dataset at ``directory``; ValidationError if there is none or it is not one."""
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValidationError(f"{directory}: expected a dataset written by --output (with {MANIFEST}), "
                              "found no manifest") from None
    except (OSError, ValueError) as err:
        raise ValidationError(f"{path}: expected a rankscope manifest, found unreadable JSON ({err})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise ValidationError(f"{path}: expected format {FORMAT!r}, found {found!r}")
    return manifest


def read_dataset(directory: str | os.PathLike) -> "pd.DataFrame":
    """Load a dataset written by :class:`DatasetWriter` as the tidy per-query table.

    Parameters
    ----------
    directory : str or path-like

    Returns
    -------
    pandas.DataFrame
        Columns ``system``, ``query``, ``measure``, ``value``: systems sorted by name, each run's rows in
        the order they were written (queries in trec_eval's order, measures in the order asked); the frame
        :func:`metrics.scale.evaluate_parallel` returns for the same runs.

    Raises
    ------
    ValidationError
        No manifest, or a partition it lists is missing.
    """
    import pandas as pd
    import pyarrow.parquet as pq

    from metrics.evaluate import COLUMNS

    manifest = read_manifest(directory)
    frames = []
    for entry in manifest["systems"]:
        path = Path(directory) / entry["path"]
        try:
            table = pq.read_table(path, columns=list(COLUMNS))
        except (OSError, ValueError) as err:
            raise ValidationError(f"{path}: expected the partition of system {entry['system']!r} listed in "
                                  f"{MANIFEST}, found {type(err).__name__}: {err}") from None
        frames.append(table.to_pandas())
    if not frames:
        return pd.DataFrame({c: pd.Series([], dtype="float64" if c == "value" else "str") for c in COLUMNS})
    return pd.concat(frames, ignore_index=True)
