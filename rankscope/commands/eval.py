"""``rankscope eval``: trec_eval's command line, with its output byte for byte, plus JSON and CSV."""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys

import numpy as np

from rankscope.commands import COMPAT, add_convention_flags, rank

__all__ = ["register", "run", "format_trec"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "eval", help="evaluate runs like trec_eval",
        description="Evaluate runs against qrels. Output matches trec_eval's, line for line.")
    p.add_argument("qrels", help="qrels file (qid iter docid rel), plain or gzip")
    p.add_argument("runs", nargs="+", metavar="run", help="run file(s) (qid Q0 docid rank score tag)")
    p.add_argument("-q", dest="per_query", action="store_true", help="print per-query values too")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help="measure(s): trec_eval names (map, P.5,10, ndcg_cut.10, all_trec, official) or "
                        "ir_measures-style names (nDCG@10, P(rel=2)@5); repeatable; default official")
    add_convention_flags(p)
    p.add_argument("--format", choices=("trec", "json", "csv"), default="trec", help="output format")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.evaluate import per_query_values

    version = COMPAT[args.compat]
    specs = args.measures or ["official"]
    wants_runid = any(s in ("runid", "official", "all_trec") for s in specs)
    specs = [s for s in specs if s != "runid"]
    relstring, specs = _relstring(specs)
    pairs = _resolve(specs, version) if specs else []
    rankings = rank(args, args.runs)
    out = sys.stdout
    records = []
    for rk in rankings:
        values = dict(zip((label for label, _ in pairs), per_query_values(rk, pairs)))
        strings = {}
        if relstring is not None:
            strings[relstring.label] = dict(zip(rk.queries, relevance_strings(rk, relstring.length)))
        if args.format == "trec":
            out.write(format_trec(rk, values, pairs + ([(relstring.label, relstring)] if relstring else []),
                                  per_query=args.per_query, runid=wants_runid, skip_unanswered=version < 10,
                                  answered=set(rk.run.queries) if args.complete else set(rk.queries),
                                  strings=strings))
        else:
            records.extend(_records(rk, values, pairs, per_query=args.per_query))
            if args.per_query:
                for label, texts in strings.items():
                    records.extend({"system": rk.system, "query": q, "measure": label, "value": v}
                                   for q, v in texts.items())
    if args.format == "json":
        json.dump(records, out, indent=1, allow_nan=False)
        out.write("\n")
    elif args.format == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["system", "query", "measure", "value"])
        writer.writerows([r["system"], r["query"], r["measure"], "" if r["value"] is None else r["value"]]
                         for r in records)
    return 0


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
                raise UnknownMeasureError(f"relstring: expected a whole number of documents, got {raw!r}")
            found = RelString(int(raw), f"relstring_{int(raw)}") if raw else RelString(10, "relstring")
            continue
        rest.append(spec)
    if found is None and "all_trec" in specs:
        found = RelString(10, "relstring")
    return found, rest


def relevance_strings(rk, length: int) -> list[str]:
    """``relstring`` of every query of a ranked run: one character per document of the top ``length``."""
    chars = np.array(list("0123456789"), dtype=object)
    out = []
    for q in range(rk.n_queries):
        rel = rk.rel[rk.offsets[q]:min(rk.offsets[q] + length, rk.offsets[q + 1])]
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
    return f"{value:6.4f}"


def format_trec(rk, values: dict, pairs, *, per_query: bool, runid: bool, skip_unanswered: bool,
                answered: set, strings: dict | None = None) -> str:
    """trec_eval's text output for one ranked run: ``%-22s\\t%s\\t%s`` lines, per query then ``all``.

    ``values`` maps each label of ``pairs`` to its per-query values (in ``rk.queries`` order); ``strings``
    each text measure's label to ``{query: text}``.
    """
    ordered = _ordered(pairs)
    lines = []
    if per_query and (values or strings):
        for i, query in enumerate(rk.queries):
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
    if runid:
        lines.append(f"{'runid':<22s}\tall\t{rk.run.tag}")
    for label, measure in ordered:
        if getattr(measure, "text", False):
            continue
        lines.append(f"{label:<22s}\tall\t{_value_text(measure, measure.aggregate(values[label]))}")
    return "".join(line + "\n" for line in lines)


def _records(rk, values: dict, pairs, *, per_query: bool) -> list[dict]:
    records = []
    if per_query:
        for i, query in enumerate(rk.queries):
            for label, measure in pairs:
                value = values[label][i]
                records.append({"system": rk.system, "query": query, "measure": label,
                                "value": int(round(value)) if measure.integer else _json_value(value)})
    for label, measure in pairs:
        value = measure.aggregate(values[label])
        records.append({"system": rk.system, "query": "all", "measure": label,
                        "value": int(round(value)) if measure.integer else _json_value(value)})
    return records


def _json_value(value: float):
    value = float(value)
    return value if math.isfinite(value) else None
