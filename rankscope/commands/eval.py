"""``rankscope eval``: trec_eval's command line, with its output byte for byte, plus JSON and CSV."""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics.conventions import TREC_EVAL_VERSIONS
from metrics.io.spreadsheet import neutralise
from rankscope.commands import add_convention_flags, conventions_of
from rankscope.datasets import add_dataset_flag
from rankscope.runs import add_run_flags

__all__ = ["RunOutput", "RunPrinter", "format_trec", "register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "eval", help="evaluate runs like trec_eval",
        description="Evaluate runs against qrels. Output matches trec_eval's, line for line.")
    p.add_argument("qrels", nargs="?", help="qrels file (qid iter docid rel), plain or gzip, or irds:ID: an "
                   "ir_datasets id read from its local store")
    p.add_argument("runs", nargs="*", metavar="run",
                   help="run file(s) (qid Q0 docid rank score tag): paths, globs, directories, @FILE listing "
                        "one per line")
    p.add_argument("-q", dest="per_query", action="store_true", help="print per-query values too")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure(s): trec_eval names (map, P.5,10, ndcg_cut.10, all_trec, official) or "
                        "ir_measures-style names (nDCG@10, P(rel=2)@5); repeatable; default official")
    add_dataset_flag(p)
    add_convention_flags(p)
    p.add_argument("--allow-no-common-topics", action="store_true",
                   help="evaluate a run that shares no topic with the qrels (num_q 0, every mean 0) instead of "
                        "stopping with an error")
    p.add_argument("--format", choices=("trec", "json", "csv"), default="trec", help="output format")
    p.add_argument("--ties", choices=("range",), default=None,
                   help="range: also evaluate each ranking with its tied scores in the worst and the best order "
                        "and print low, reported and high (n/a where those orders are not the bounds)")
    add_run_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.io.readers import as_qrels
    from rankscope.progress import Progress
    from rankscope.runs import expand_runs, write_output

    version = TREC_EVAL_VERSIONS[args.compat]
    specs = args.measures or ["official"]
    wants_runid = any(s in ("runid", "official", "all_trec") for s in specs)
    specs = [s for s in specs if s != "runid"]
    relstring, specs = _relstring(specs)
    pairs = _resolve(specs, version) if specs else []
    if args.qrels is None or not args.runs:
        from metrics.errors import ValidationError
        raise ValidationError("expected QRELS RUN... or --dataset ID RUN..., found "
                              + ("no run" if args.runs is not None else "nothing"))
    qrels = as_qrels(args.qrels)
    paths = expand_runs(args.runs)
    if args.output:
        return write_output(args, qrels, paths, [label for label, _ in pairs], conventions_of(args), "eval")
    printer = RunPrinter(args.format, bool(args.per_query), wants_runid, len(paths) > 1, version,
                         bool(args.complete), _compat_given(args), _allowed(args), relstring,
                         tuple(qrels.queries), bool(args.ties))
    out, records, done = sys.stdout, [], 0
    with Progress(len(paths), quiet=args.quiet) as progress, \
            contextlib.closing(_outputs(args, qrels, paths, pairs, printer, progress)) as outputs:
        for path, output in outputs:
            done += 1
            if output.text:
                progress.clear()
                out.write(output.text)
                if progress.enabled:
                    out.flush()
            records.extend(output.records)
            if output.stop is not None:
                out.flush()
                progress.clear()
                print(f"rankscope eval: {path}: {output.stop.message}", file=sys.stderr)
                return output.stop.status
    _write_records(args, records, out)
    return 1 if done < len(paths) else 0


def _outputs(args: argparse.Namespace, qrels, paths: list[str], pairs, printer: RunPrinter, progress):
    """``(path, RunOutput)`` of each run that could be read, in the order given, computed on workers
    (``--jobs``, ``--scheduler``) or, for one run or ``--jobs 1``, in this process, one run at a time: the same
    outputs either way. An unreadable run stops the command after the runs before it are printed (with
    ``--keep-going``: its one-line error, and the others go on)."""
    from metrics.scale import map_runs
    from metrics.scale.pool import raise_outcome
    from rankscope.runs import connect, jobs_of

    with connect(args.scheduler) as client:
        for outcome in map_runs(qrels, paths, printer, pairs, conventions=conventions_of(args),
                                jobs=jobs_of(args, paths), client=client):
            progress.advance()
            if outcome.error is not None:
                if not args.keep_going:
                    raise_outcome(outcome)
                progress.clear()
                print(f"rankscope eval: {outcome.error}", file=sys.stderr)
                continue
            yield paths[outcome.index], outcome.frame


@dataclass(frozen=True)
class RunOutput:
    """What ``rankscope eval`` prints for one run.

    Attributes
    ----------
    text : str
        Its lines in the trec format (empty for json and csv).
    records : list
        Its records for the json or csv document (empty for the trec format).
    stop : rankscope.commands._trec_eval_exits.Stop or None
        Where trec_eval would stop on it, its message without the run's path; None: it does not stop.
    """

    text: str
    records: list
    stop: Any = None


@dataclass(frozen=True)
class RunPrinter:
    """The output of one ranked run, made where the run is evaluated (this process or a worker), so that what
    is printed does not depend on the workers: ``printer(rankings, pairs)`` gives its :class:`RunOutput`.

    Attributes
    ----------
    format : {"trec", "json", "csv"}
    per_query : bool
        ``-q``: per-query values too.
    runid : bool
        The measures asked include ``runid`` (``official`` and ``all_trec`` do).
    labelled : bool
        Several runs are named (whether or not all can be read), so each trec block starts with its runid
        line and ``--ties`` lines end with the system.
    version : int
        The trec_eval version reproduced (9 or 10).
    complete, compat_given, allowed : bool
        ``-c``, ``--compat`` given on the command line, ``--allow-no-common-topics``.
    relstring : RelString or None
    qrels_topics : tuple of str
        The topics of the qrels (where trec_eval stops depends on them).
    ties : bool
        ``--ties range``.
    """

    format: str
    per_query: bool
    runid: bool
    labelled: bool
    version: int
    complete: bool
    compat_given: bool
    allowed: bool
    relstring: Any
    qrels_topics: tuple
    ties: bool

    def __call__(self, rk, pairs) -> RunOutput:
        if self.ties:
            rows = _tie_rows(rk, pairs, per_query=self.per_query)
            if self.format != "trec":
                return RunOutput("", [(system, q, label, values) for system, q, label, _, values in rows])
            return RunOutput("".join(
                f"{label:<22s}\t{q}\t" + "\t".join("n/a" if math.isnan(v) else _value_text(m, v) for v in values)
                + (f"\t{system}" if self.labelled else "") + "\n" for system, q, label, m, values in rows), [])
        from metrics.evaluate import per_query_values

        stop = _stop(self, rk)
        values = dict(zip((label for label, _ in pairs), per_query_values(rk, pairs)))
        relstring, strings = self.relstring, {}
        if relstring is not None:
            strings[relstring.label] = dict(zip(rk.queries, relevance_strings(rk, relstring.length)))
        if self.format == "trec":
            text = format_trec(rk, values, [*pairs, *([(relstring.label, relstring)] if relstring else [])],
                               per_query=self.per_query, runid=self.runid and not self.labelled,
                               skip_unanswered=self.version < 10,
                               answered=set(rk.run.queries) if self.complete else set(rk.queries),
                               strings=strings, stop_after=None if stop is None else stop.printed)
            head = f"{'runid':<22s}\tall\t{rk.run.tag}\n" if self.labelled else ""
            return RunOutput(head + text, [], stop)
        records = _records(rk, values, pairs, per_query=self.per_query)
        if self.per_query:
            for label, texts in strings.items():
                records.extend({"system": rk.system, "query": q, "measure": label, "value": v}
                               for q, v in texts.items())
        return RunOutput("", records, stop)


def _write_records(args: argparse.Namespace, records: list, out) -> None:
    """The json or csv document of every run's records (nothing for the trec format)."""
    if args.format == "trec":
        return
    if args.ties:
        if args.format == "json":
            json.dump([{"system": system, "query": query, "measure": label,
                        **dict(zip(("low", "reported", "high"), map(_json_value, values)))}
                       for system, query, label, values in records], out, indent=1, allow_nan=False)
            out.write("\n")
        else:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(["system", "query", "measure", "low", "reported", "high"])
            writer.writerows([*map(neutralise, (system, query, label)), *("" if math.isnan(v) else v for v in values)]
                             for system, query, label, values in records)
        return
    if args.format == "json":
        json.dump(records, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["system", "query", "measure", "value"])
        writer.writerows([*map(neutralise, (r["system"], r["query"], r["measure"])),
                          "" if r["value"] is None else r["value"]] for r in records)


def _compat_given(args: argparse.Namespace) -> bool:
    """Whether the command line names a trec_eval version (``--compat``) rather than taking the default."""
    return any(a == "--compat" or a.startswith("--compat=") for a in getattr(args, "command_line", ()))


def _stop(printer: RunPrinter, rk):
    """Where the evaluation of one run stops: a :class:`~rankscope.commands._trec_eval_exits.Stop` whose message is
    rankscope's one line after the run's path, or None (where only trec_eval 10.0 would stop, the lint report
    says so)."""
    from rankscope.commands._trec_eval_exits import Stop, common_topics, trec_eval_stop

    qrels_topics, run_topics, version = printer.qrels_topics, rk.run.queries, printer.version
    negative_only = [q for q, n in zip(rk.queries, rk.num_judged()) if n == 0]
    stops = {v: trec_eval_stop(qrels_topics, run_topics, version=v, complete=printer.complete,
                               negative_only=negative_only) for v in (9, 10)}
    common = common_topics(qrels_topics, run_topics)
    stop = stops[version]
    if version == 10 or (stop is not None and printer.compat_given and (common or not printer.allowed)):
        return None if stop is None else Stop(stop.status, f"{_why(stop, qrels_topics, run_topics)}; "
                                              f"trec_eval {'10.0' if version == 10 else '9'} stops here "
                                              f"(\"{stop.message}\", exit status {stop.status})",
                                              stop.topic, stop.printed)
    if not common and not printer.allowed:
        return Stop(2, f"{_why(stops[9], qrels_topics, run_topics)}; check that they belong together, "
                       "or pass --allow-no-common-topics to evaluate it anyway (num_q 0, every mean 0)")
    return None


def _why(stop, qrels_topics, run_topics) -> str:
    if stop.topic is None:
        return f"no topic of the run is in the qrels (run: {_examples(run_topics)}; qrels: {_examples(qrels_topics)})"
    if stop.message.startswith("result qid"):
        return f"topic {stop.topic} of the qrels is not in the run (-c evaluates such topics)"
    return f"topic {stop.topic}, the first evaluated, has only negative grades in the qrels"


def _allowed(args: argparse.Namespace) -> bool:
    return bool(args.allow_no_common_topics)


def _examples(topics, n: int = 3) -> str:
    topics = sorted(topics, key=lambda t: t.encode())
    return ", ".join(topics[:n]) + (f" and {len(topics) - n} more" if len(topics) > n else "") if topics else "none"


class RelString:
    """trec_eval's ``relstring``: the grades of the top documents as text, per query only (no summary).

    One character per document: the grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` judged with a
    negative grade. ``relstring`` shows 10 documents; ``relstring.N`` shows N and is printed ``relstring_N``.
    """

    integer = False
    text = True

    def __init__(self, length: int, label: str) -> None:
        self.length, self.label = length, label

    def trec_spelling(self):
        from metrics.measures.base import Trec

        return Trec("relstring", order=11.5)


MAX_RELSTRING = 10**18
"""The longest ``relstring.N`` read as its number; a longer N (any number of digits) shows as much, the whole
ranking, and keeps its digits in its label."""


def _relstring(specs: list[str]) -> tuple[RelString | None, list[str]]:
    """Take ``relstring`` / ``relstring.N`` out of the specs (``all_trec`` implies the default one)."""
    found = None
    rest = []
    for spec in specs:
        base, dot, value = spec.partition(".")
        if base == "relstring" or spec.startswith("relstring_"):
            raw = value if dot else spec[len("relstring_"):] if spec.startswith("relstring_") else ""
            if raw and not raw.isdigit():
                from metrics.errors import UnknownMeasureError
                raise UnknownMeasureError(f"relstring: expected a whole number of documents, found {raw!r}")
            digits = raw.lstrip("0") or "0"  # a length past every ranking shows the whole ranking
            found = RelString(int(digits) if len(digits) < 19 else MAX_RELSTRING, f"relstring_{digits}") if raw \
                else RelString(10, "relstring")
            continue
        rest.append(spec)
    if found is None and "all_trec" in specs:
        found = RelString(10, "relstring")
    return found, rest


def relevance_strings(rk, length: int) -> list[str]:
    """``relstring`` of every query of a ranked run: one character per document of the top ``length``."""
    chars = np.array(list("0123456789"), dtype=object)
    length = min(int(length), len(rk.rel))  # no ranking is longer than all of them together
    out = []
    for q in range(rk.n_queries):
        start, stop = int(rk.offsets[q]), int(rk.offsets[q + 1])
        rel = rk.rel[start:min(start + length, stop)]
        out.append("".join(">" if g > 9 else chars[g] if g >= 0 else "-" if g == -1 else "." for g in rel))
    return out


def _resolve(specs, version: int):
    """Resolve ``-m`` arguments; ``all_trec`` is the list of the trec_eval version reproduced."""
    from metrics.evaluate import resolve_measures
    from metrics.measures.trec_names import expand_trec

    pairs = []
    for spec in specs:
        found = ([(m.trec_label(), m) for m in expand_trec(spec, version=version)] if spec == "all_trec"
                 else resolve_measures([spec]))
        pairs.extend(p for p in found if p[0] not in {q[0] for q in pairs})
    return pairs


def _ordered(pairs):
    from metrics.measures.trec_names import trec_sort_key

    trec = sorted((p for p in pairs if p[1].trec_spelling() is not None), key=lambda p: trec_sort_key(p[1]))
    other = [p for p in pairs if p[1].trec_spelling() is None]
    return trec + other


def _value_text(measure, value: float) -> str:
    if measure.integer:
        return str(int(round(value)))
    if math.isnan(value):
        return f"{NAN_TEXT:>6s}"
    return f"{value:6.4f}"


def _nan_text() -> str:
    """How C's ``printf("%f")`` spells the NaN that 0/0 gives on this machine: ``-nan`` where that NaN has
    its sign bit set (x86), ``nan`` elsewhere (e.g. ARM). trec_eval's undefined values are such 0/0s."""
    with np.errstate(invalid="ignore"):
        nan = np.divide(np.zeros(1), np.zeros(1))[0]
    return "-nan" if np.signbit(nan) else "nan"


NAN_TEXT = _nan_text()
"""A NaN as trec_eval prints it on this machine."""


def format_trec(rk, values: dict, pairs, *, per_query: bool, runid: bool, skip_unanswered: bool,
                answered: set, strings: dict | None = None, stop_after: int | None = None) -> str:
    """trec_eval's text output for one ranked run: ``%-22s\\t%s\\t%s`` lines, per query then ``all``.

    ``values`` maps each label of ``pairs`` to its per-query values (in ``rk.queries`` order); ``strings``
    each text measure's label to ``{query: text}``. ``stop_after``: the output of a trec_eval that stops
    with an error after that many queries (their per-query lines only).
    """
    ordered = _ordered(pairs)
    lines = []
    if per_query and (values or strings):
        for i, query in enumerate(rk.queries[:stop_after]):
            if skip_unanswered and query not in answered:
                continue
            for label, measure in ordered:
                spelling = measure.trec_spelling()
                if spelling is not None and not spelling.per_query:
                    continue
                if getattr(measure, "text", False):
                    lines.append(f"{label:<22s}\t{query}\t'{strings[label][query]}'")
                    continue
                lines.append(f"{label:<22s}\t{query}\t{_value_text(measure, values[label][i])}")
    if stop_after is not None:
        return "".join(line + "\n" for line in lines)
    if runid:
        lines.append(f"{'runid':<22s}\tall\t{rk.run.tag}")
    for label, measure in ordered:
        if getattr(measure, "text", False):
            continue
        lines.append(f"{label:<22s}\tall\t{_value_text(measure, measure.summary(rk, values[label]))}")
    return "".join(line + "\n" for line in lines)


def _records(rk, values: dict, pairs, *, per_query: bool) -> list[dict]:
    records = []
    if per_query:
        for i, query in enumerate(rk.queries):
            for label, measure in pairs:
                value = values[label][i]
                records.append({"system": rk.system, "query": query, "measure": label,
                                "value": int(round(value)) if measure.integer else _json_value(value)})
    from metrics.review.provenance import build_provenance

    card = build_provenance(rk.conventions, pairs, topics={label: rk.n_queries for label, _ in pairs}).compact()
    for label, measure in pairs:
        value = measure.summary(rk, values[label])
        records.append({"system": rk.system, "query": "all", "measure": label,
                        "value": int(round(value)) if measure.integer else _json_value(value), "provenance": card})
    return records


def _tie_rows(rk, pairs, *, per_query: bool) -> list[tuple]:
    """``--ties range`` for one ranked run: ``(system, query, label, measure, [low, reported, high])`` rows,
    per query (with -q) then ``all``."""
    from metrics.stats.ties import tie_ranges

    frame = tie_ranges(None, [rk], [label for label, _ in pairs], inexact="nan")
    columns = {label: [frame.loc[frame["measure"] == label, c].to_numpy() for c in ("low", "reported", "high")]
               for label, _ in pairs}
    rows = []
    if per_query:
        for i, query in enumerate(rk.queries):
            rows.extend((rk.system, query, label, m, [v[i] for v in columns[label]]) for label, m in _ordered(pairs))
    rows.extend((rk.system, "all", label, m, [m.summary(rk, v) for v in columns[label]]) for label, m in _ordered(pairs))
    return rows


def _json_value(value: float):
    value = float(value)
    return value if math.isfinite(value) else None
