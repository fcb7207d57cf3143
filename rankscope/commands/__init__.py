"""Subcommands of the ``rankscope`` command line, one module each."""

from __future__ import annotations

import argparse

COMPAT = {"trec_eval-9": 9, "trec_eval-10": 10}  # --compat: the trec_eval version reproduced


def add_convention_flags(p: argparse.ArgumentParser, *, missing: str = "score 0") -> None:
    """trec_eval's convention flags, shared by every command that evaluates: -c, -l, -M, -J and --compat.

    ``missing`` says what ``-c`` does to a judged query a run leaves out (it scores 0 in a mean, and has an
    empty ranking in a per-rank view).
    """
    p.add_argument("-c", dest="complete", action="store_true",
                   help=f"evaluate all qrels queries; queries missing from a run {missing}")
    p.add_argument("-l", dest="relevance_level", type=int, default=1, metavar="N",
                   help="minimum grade that counts as relevant (default 1)")
    p.add_argument("-M", dest="depth", type=int, default=None, metavar="N",
                   help="evaluate only the top N documents of each ranking")
    p.add_argument("-J", dest="judged_only", action="store_true", help="drop unjudged documents first")
    p.add_argument("--compat", choices=tuple(COMPAT), default="trec_eval-9", metavar="VERSION",
                   help="trec_eval version to reproduce: trec_eval-9 (default, as pytrec_eval) or trec_eval-10")


def rank(args: argparse.Namespace, paths: list[str]):
    """Read the qrels and runs named on the command line and rank them under the convention flags."""
    from metrics.errors import ValidationError
    from metrics.evaluate import rank_runs
    from metrics.io import read_qrels, read_run

    if args.depth is not None and args.depth < 1:
        raise ValidationError(f"-M must be a positive number of documents, got {args.depth}")
    return rank_runs(read_qrels(args.qrels), [read_run(path) for path in paths], preset=args.compat,
                     relevance_level=args.relevance_level, depth=args.depth, judged_only=args.judged_only,
                     complete=args.complete)
