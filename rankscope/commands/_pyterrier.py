"""``rankscope compare --per-query CSV``: PyTerrier's per-query table as the results to compare."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["per_query_of_pyterrier"]


def per_query_of_pyterrier(args: argparse.Namespace, measures) -> Any:
    """The per-query table of ``args.per_query`` (``pt.Experiment(..., perquery=True)`` saved as CSV), keeping the
    measures ``measures`` as :func:`rankscope.runs.select_measures` does; each name left out (``mrt``) is
    said on stderr. Qrels and runs must not be given with it."""
    from metrics.errors import ValidationError
    from metrics.io.pyterrier import read_pyterrier_per_query

    from rankscope.runs import select_measures

    where = f"--per-query {args.per_query}"
    if args.qrels is not None or args.runs:
        given = " ".join([args.qrels or "", *args.runs]).strip()
        raise ValidationError(f"{where}: expected no qrels or runs beside it, found {given}")
    results = read_pyterrier_per_query(args.per_query)
    for name, why in results.ignored.items():
        print(f"note: {args.per_query}: left out {name!r}: {why}", file=sys.stderr)
    if results.frame.empty:
        raise ValidationError(f"{where}: expected rows of measures, found none")
    return select_measures(results.frame, measures, bool(args.measures), where, "the table")
