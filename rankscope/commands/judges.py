"""``rankscope judges``: does a conclusion survive another judge? Several judgment sets against the same runs.

The files are told apart by their content: the arguments are read in order, and each leading argument
that is a file whose first line (not blank, not a ``#`` comment; gzip read through) has the 4 fields of a
qrels line is a judgment set; the first that is not (a run line has 6 fields, or a glob, a directory, an
``@FILE``) starts the runs. So the sets come first, then the runs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import sys
import textwrap

from metrics.judgments.systems import TOPIC_RULES
from rankscope.commands import add_convention_flags, add_significance_flags, conventions_of, significance_settings_of
from rankscope.commands import text_table

__all__ = ["register", "run"]

DEFAULT_MEASURES = ("nDCG@10", "AP")
FORMATS = ("table", "json")
TEST_SETTINGS = ("test", "correction", "alpha", "seed", "n_resamples", "family", "zero_method", "ci",
                 "tie_tolerance")
WIDTH = 110  # the notes of the text output are wrapped at this many characters
SNIFF_BYTES = 1 << 16  # the first line is looked for in this much of a file (decompressed)
_FIELDS = re.compile(r"[ \t]+")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "judges", help="compare several judgment sets (human, crowd, LLM) on the same runs",
        description="Compare two or more judgment sets of one collection: how alike they grade the documents "
                    "(Cohen's kappa plain, binary, linear and quadratic; Krippendorff's alpha; the mean grade "
                    "shift), how alike they order the runs (Kendall's tau-b, tau_AP, top-k agreement, rank "
                    "changes), what each set finds of each pairwise conclusion of the reference (found, reversed "
                    "or not found, apart from what the reference itself found), how many judged "
                    "documents each measure rests on, the topics they disagree on most, and, where the "
                    "reference judged fewer topics than another set, prediction-powered means. Give the "
                    "judgment sets first (the first is the reference), then the runs: a file whose first line "
                    "has the 4 fields of a qrels line is a judgment set, the first other argument starts the "
                    "runs. Runs evaluated on different topics are refused unless -c scores a topic a run did not "
                    "answer 0, as for 'rankscope compare'.")
    p.error = lambda message: p.exit(2, f"rankscope judges: {message}\n")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="QRELS_A QRELS_B [QRELS_C ...] RUN [RUN ...]: two or more qrels files, then one or more "
                        "runs (paths, globs, directories, @FILE listing one per line)")
    p.add_argument("--collection", metavar="ID", help="compare the judgment sets of a stored collection on its runs "
                   "instead of FILE...: its reference first, its conventions unless convention flags are given")
    p.add_argument("--workspace", metavar="LOC", help="with --collection: the workspace (default "
                   "$RANKSCOPE_WORKSPACE, else ./rankscope-workspace)")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure(s), as for 'rankscope eval'; repeatable; default nDCG@10 and AP")
    p.add_argument("--names", nargs="+", metavar="NAME",
                   help="the judgment sets' names, one per qrels file, in order (default: each file's name "
                        "without its suffixes, .qrels included)")
    p.add_argument("--reference", metavar="NAME",
                   help="the set the others are compared with (default: the first)")
    p.add_argument("--topics", choices=TOPIC_RULES, default="common",
                   help="common (default): orders, agreements and tests over the topics every set judged, one "
                        "topic set for every pair of sets, so a difference is the judges' and not the topics' (a "
                        "set that judged fewer topics narrows every pair); each: every set on all of its topics")
    p.add_argument("--top-k", dest="top_k", type=int, default=5, metavar="K",
                   help="the k of the top-k agreement of two orders; default 5")
    p.add_argument("--ppi-lambda", dest="ppi_lambda", type=float, default=None, metavar="L",
                   help="the prediction-powered weight in [0, 1] (1: the original PPI); default tuned (PPI++)")
    add_significance_flags(p, TEST_SETTINGS)
    p.add_argument("--format", choices=FORMATS, default="table", metavar="FORMAT",
                   help="table (default) or json")
    add_convention_flags(p)
    p.set_defaults(func=run)


def _first_line(path: str) -> tuple[int, str] | None:
    """The 1-based number and text of the first line of a file that is not blank or a comment, or None."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(2)
            handle.seek(0)
            stream = gzip.open(handle) if head == b"\x1f\x8b" else handle
            data = stream.read(SNIFF_BYTES)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    lines = data.decode("utf-8", "replace").lstrip("\ufeff").splitlines()
    if len(data) == SNIFF_BYTES and lines:
        lines = lines[:-1]  # the last may be cut
    for number, line in enumerate(lines, 1):
        text = line.strip(" \t")
        if text and not text.startswith("#"):
            return number, text
    return None


def split_files(arguments: list[str]) -> tuple[list[str], list[str]]:
    """``(qrels files, run arguments)``: the leading files whose first line has 4 fields, then the rest."""
    qrels = []
    for i, argument in enumerate(arguments):
        if argument.startswith("irds:"):  # an ir_datasets id (rankscope.datasets.qrels_of reads it)
            qrels.append(argument)
            continue
        found = _first_line(argument) if os.path.isfile(argument) else None
        if found is None or len(_FIELDS.split(found[1])) != 4:
            return qrels, arguments[i:]
        qrels.append(argument)
    return qrels, []


def run(args: argparse.Namespace) -> int:
    from metrics.errors import MissingTopicsError, ValidationError
    from metrics.io import read_qrels, read_run
    from metrics.io.readers import as_qrels
    from metrics.judgments import compare_judges, judgment_sets
    from rankscope.datasets import qrels_of

    from rankscope.commands import check_range, topics_differ
    from rankscope.runs import expand_runs

    check_range("--top-k", args.top_k, 1, 1_000_000)
    if args.ppi_lambda is not None and not (math.isfinite(args.ppi_lambda) and 0.0 <= args.ppi_lambda <= 1.0):
        raise ValidationError(f"--ppi-lambda: expected a number from 0 to 1, found {args.ppi_lambda}")
    conventions = conventions_of(args)
    if args.collection is not None:
        if args.files:
            raise ValidationError(f"expected FILE... or --collection ID, found both ({args.files[0]})")
        qrels, given_names, runs, stored = _stored(args)
        if stored and conventions == type(conventions)():
            conventions = type(conventions).coerce(**stored)
    else:
        qrels_files, run_arguments = split_files(args.files)
        if len(qrels_files) < 2:
            raise ValidationError(f"expected two or more qrels files (4 fields a line) before the runs, found "
                                  f"{len(qrels_files)}{': ' + qrels_files[0] if qrels_files else ''}")
        if not run_arguments:
            raise ValidationError("expected one or more runs after the qrels files, found none")
        qrels, given_names = [as_qrels(qrels_of(path)) for path in qrels_files], None
        runs = [read_run(path) for path in expand_runs(run_arguments)]
    if args.names is not None and len(args.names) != len(qrels):
        raise ValidationError(f"--names: expected {len(qrels)} names, one per qrels file, found {len(args.names)}")
    sets = judgment_sets(qrels, names=args.names or given_names, reference=args.reference)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValidationError(f"two runs share a system name: {sorted({n for n in names if names.count(n) > 1})}")
    settings = significance_settings_of(args)
    try:
        result = compare_judges(sets, runs, list(args.measures or DEFAULT_MEASURES), conventions=conventions,
                                topics=args.topics, top_k=args.top_k, settings=settings, lam=args.ppi_lambda)
    except MissingTopicsError as err:
        raise topics_differ(err) from None
    card = _card(result, settings)
    out = sys.stdout
    if args.format == "json":
        document = {**result.as_dict(), "provenance": card.as_dict()}
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
        return 0
    out.write(_text(result))
    out.write("\nprovenance: " + card.compact() + "\n")
    return 0


def _stored(args: argparse.Namespace):
    """A stored collection's judgment sets (parsed), their names, its runs and its conventions."""
    from metrics.io import read_qrels, read_run
    from workspace import open_workspace

    with open_workspace(args.workspace) as ws:
        stored = ws.load(args.collection)
        sets = stored.judgment_sets
        qrels = [read_qrels(f.read(), name=f.name) for _, f in sets]
        runs = [read_run(f.read(), name=f.system) for f in stored.runs]
        return qrels, [name for name, _ in sets], runs, stored.conventions


def _card(result, settings: dict):
    from metrics.evaluate import resolve_measures
    from metrics.review.provenance import build_provenance, topic_counts

    from metrics.judgments.systems import on_topics

    rows = on_topics(result.per_query, result.compared_topics)
    rows = rows[(rows["judges"] == result.sets.reference) & rows["measure"].isin(result.measures)]
    return build_provenance(result.conventions, resolve_measures(list(result.measures)), topics=topic_counts(rows),
                            test=settings.get("test", "t"), correction=settings.get("correction", "holm"),
                            family=settings.get("family", "per_measure"))


def _number(value, spec: str = ".4f") -> str:
    return "-" if value is None or (isinstance(value, float) and not math.isfinite(value)) else format(value, spec)


def _text(result) -> str:
    """The comparison as aligned text tables, section by section."""
    from metrics.judgments.conclusions import verdicts

    sets, parts = result.sets, []
    rows = [["set", "file", "topics", "judged documents", ""]]
    for name, q in sets.items():
        rows.append([name, q.name, str(len(sets.topics(name))), f"{len(sets.judged(name)):,}",
                     "reference" if name == sets.reference else ""])
    parts.append("Judgment sets\n" + text_table(rows, {0, 1, 4}))
    rows = [["pair", "both", "only 1st", "only 2nd", "agree", "kappa", "binary", "linear", "quadratic", "alpha",
             "shift"]]
    for key, r in result.labels.iterrows():
        rows.append([key, f"{r.both_judged:,}", f"{r.only_first:,}", f"{r.only_second:,}", _number(r.agreement),
                     _number(r.kappa), _number(r.kappa_binary), _number(r.kappa_linear), _number(r.kappa_quadratic),
                     _number(r.alpha), _number(r.mean_grade_shift, "+.3f")])
    parts.append("Labels, on the documents both sets judged (kappa binary at grade >= "
                 f"{result.conventions.relevance_level}; shift: mean of second minus first grade)\n"
                 + text_table(rows, {0}) + f"Krippendorff's alpha (ordinal) over all {len(sets)} sets: "
                 f"{_number(result.alpha)}\n")
    parts.append(_topics_text(result))
    for measure in result.measures:
        orders = result.orders[result.orders["measure"] == measure]
        columns = [orders[orders["judges"] == name] for name in sets.names]
        table = [sets.names] + [[_ranked(part, i) for part in columns] for i in range(max(map(len, columns)))]
        agreement = result.agreement[result.agreement["measure"] == measure]
        pairs = [["pair", "tau_b", "tau_ap", "top-k", "swaps"]]
        pairs += [[r.pair, _number(r.tau_b), _number(r.tau_ap), f"{_number(r.top_k_overlap, '.2f')} of {r.top_k}",
                   str(r.swaps)] for r in agreement.itertuples(index=False)]
        found = result.conclusions[result.conclusions["measure"] == measure]
        claims = verdicts(found, sets.reference).drop(columns="measure")
        claims = [list(claims.columns)] + claims.astype(str).to_numpy().tolist()
        judged = result.judged[result.judged["measure"] == measure]
        support = [["set", "system", "documents", "judged", "share"]]
        support += [[r.judges, r.system, f"{r.documents:,}", f"{r.judged:,}", _number(r.judged_share, ".3f")]
                    for r in judged.itertuples(index=False)]
        test = result.settings.get("test", "t")
        correction = result.settings.get("correction", "holm")
        alpha = result.settings.get("alpha", 0.05)
        parts.append(f"{measure}: the systems in order under each set (equal values share a rank: 2=)\n"
                     + text_table(table, set(range(len(sets.names)))) + "\n" + text_table(pairs, {0})
                     + _wrapped("tau_ap: the first set of the pair the reference, the second's order walked: a "
                                "system the second puts too high near its top costs most. top-k: the share of "
                                "the top k the two have in common; systems tied at a cut share the places left.")
                     + "\n" + _wrapped(f"{measure}: each pair's conclusion ({test} test, {correction} correction, "
                                       f"alpha {alpha:g}). better: by the reference, {sets.reference}; under "
                                       f"{sets.reference} the difference is found (significant), not found, or "
                                       "tied; under each other set it is found in the same direction, reversed, "
                                       f"not found, or differs (significant, where {sets.reference} ties).")
                     + text_table(claims, set(range(len(claims[0]))))
                     + f"\n{measure}: the judged documents it rests on\n" + text_table(support, {0, 1}))
    top = result.disagreement.head(10)
    rows = [["topic", "judged by 2+", "differently", "relevance changes", "disagreement", "alpha"]]
    rows += [[str(r.query), str(r.judged_by_several), str(r.judged_differently), str(r.relevance_changes),
              _number(r.disagreement, ".3f"), _number(r.alpha, ".3f")] for r in top.itertuples(index=False)]
    parts.append("Topics the sets disagree on most (share of documents judged by two or more sets whose relevance "
                 "changes)\n" + text_table(rows, {0}))
    for name, frame in result.ppi.items():
        rows = [["measure", "system", "labelled", "unlabelled", "PPI", "interval", "lambda", "human only",
                 f"{name} only"]]
        rows += [[r.measure, r.system, str(r.labelled), str(r.unlabelled), _number(r.ppi),
                  f"[{_number(r.ppi_low)}, {_number(r.ppi_high)}]", _number(r.lam, ".3f"),
                  f"{_number(r.human)} [{_number(r.human_low)}, {_number(r.human_high)}]",
                  f"{_number(r.automatic)} [{_number(r.automatic_low)}, {_number(r.automatic_high)}]"]
                 for r in frame.itertuples(index=False)]
        parts.append(f"Prediction-powered means ({sets.reference} on the topics it judged, {name} on all; "
                     f"{result.settings['confidence']:.0%} intervals)\n" + text_table(rows, {0, 1}))
    return "\n".join(parts)


def _wrapped(text: str) -> str:
    return textwrap.fill(text, WIDTH) + "\n"


def _ranked(part, i: int) -> str:
    """The ``i``-th system of one set's order: its rank (``2=`` when it shares it), name and value."""
    if i >= len(part):
        return "-"
    row = part.iloc[i]
    shared = int((part["rank"] == row["rank"]).sum()) > 1
    return f"{int(row['rank'])}{'=' if shared else ''} {row['system']} {_number(float(row['value']))}"


def _topics_text(result) -> str:
    """The topics compared, and the runs' topics that score 0 because they did not answer them (-c)."""
    sets, compared = result.sets, len(result.compared_topics)
    if result.topics == "common":
        judged = len(sets.common_topics())
        where = (f"the {compared} topics every set judged" if compared == judged else
                 f"the {compared} of the {judged} topics every set judged that the runs answered")
        text = _wrapped(f"Topics compared: {where}, for every pair of sets and every conclusion.")
    else:
        text = _wrapped("Topics compared: each set's own (" + ", ".join(f"{n} {len(sets.topics(n))}" for n in sets)
                        + ").")
    missing = result.unanswered
    if missing.empty:
        return text
    rows = [["set", "system", "topics", "not answered"]]
    rows += [[r.judges, r.system, str(r.topics), str(r.unanswered)] for r in missing.itertuples(index=False)]
    return (text + "Complete topics (-c): a compared topic a run did not answer scores 0 for it, on every measure:\n"
            + text_table(rows, {0, 1}))
