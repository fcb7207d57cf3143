"""The manifest of an evaluation: everything needed to trust, cite and recompute its numbers.

A :class:`Manifest` records the SHA-256 of the qrels and of every run (of the file bytes as read, gzip
included), their file names and sizes, the measures with their parameters, the evaluation conventions,
the rankscope version, the random seeds of the significance tests, the ``rankscope eval`` (and, when tests
are involved, ``rankscope compare``) command lines that recompute the numbers, and when it was made (UTC).

It is plain data: :meth:`Manifest.to_dict` and :meth:`Manifest.to_json` give the JSON that every export
embeds (the HTML report, Parquet metadata, session files), :func:`comment_lines` the same as comment lines
(LaTeX, Markdown), and :meth:`Manifest.from_dict` reads it back, checked. A reader can verify the files with
``sha256sum``.
"""

from __future__ import annotations

from metrics.review.manifest.build import build_manifest, sha256_of
from metrics.review.manifest.records import FileRecord, Manifest, MeasureRecord, comment_lines

__all__ = ["FileRecord", "Manifest", "MeasureRecord", "build_manifest", "comment_lines", "sha256_of"]
