"""Reading: bytes, paths and frames in, validated tables out.

The readers of qrels and runs (:func:`read_qrels`, :func:`read_run`, :mod:`metrics.io.readers`) are
re-exported here; beside them, how bytes become a table (:mod:`metrics.io.parsing`), duplicate rows
(:mod:`metrics.io.duplicates`), the keys and hashes of document ids that the duplicate check and the ranking
read (:mod:`metrics.io.ids`), the column shapes of PyTerrier's and ir_measures' frames
(:mod:`metrics.io.frames`), runs and qrels written back as TREC files (:mod:`metrics.io.writers`), Arrow and
numpy columns and their rows (:mod:`metrics.io.arrays`), topic and document texts (:mod:`metrics.io.texts`), qrels and
topics by ir_datasets id from its local store (:mod:`metrics.io.irds`, ir_datasets imported only then), files
written whole or not at all (:mod:`metrics.io.files`), the redaction of credentials from any text shown
(:mod:`metrics.io.redaction`) and spreadsheet-safe CSV (:mod:`metrics.io.spreadsheet`).

Nothing here imports anything of :mod:`metrics` but :mod:`metrics.errors` and the rules of
:mod:`metrics.checks`: this is the floor the other parts stand on (ARCHITECTURE.md).
"""

from __future__ import annotations

from metrics.io.readers import (SYSTEM_SUFFIXES, Qrels, ReadLimits, Run, Source, read_qrels, read_run,
                                system_name)

__all__ = ["Qrels", "ReadLimits", "Run", "read_qrels", "read_run", "Source", "system_name", "SYSTEM_SUFFIXES"]
