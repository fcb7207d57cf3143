"""``rankscope pool``: what to judge next, by which method, and how many judgments each method needs.

``rankscope pool RUN... [--qrels QRELS] --method METHOD`` writes the documents to judge, in order, with why each
was chosen (the methods, their options and help come from :data:`metrics.judgments.pooling.METHODS`);
``rankscope pool --simulate COMPLETE_QRELS RUN...`` replays judging with the complete judgments hidden behind
each method (:func:`metrics.judgments.simulation.simulate`).
"""

from __future__ import annotations

import argparse
import json
import sys

from metrics.checks import Options
from metrics.judgments.candidates import ORDERS
from metrics.judgments.pooling import JUDGED_AT, METHODS
from metrics.judgments.simulation import TAU
from rankscope.commands import add_convention_flags, check_range, conventions_of, json_records, text_table

__all__ = ["FORMATS", "register", "run"]

FORMATS = {"tsv": "order, topic, docid, weight and why, tab-separated, with a header",
           "trec": "run lines 'topic Q0 docid order weight method' (order: the judging order)",
           "json": "the documents, the pool's statistics and, for decide, the pairs"}
MOST = 1_000_000_000
REPLAYED = ("measure", "prior", "confidence")  # the decision's options a replay reads too
SHOWN_PAIRS = 20  # pairs printed on the terminal, the least sure first (json holds every one)


def _options():
    """Every method option once (by name), with the methods that take it."""
    found: dict[str, tuple] = {}
    for method in METHODS.values():
        for option in method.options:
            known = found.get(option.name, (option, []))
            found[option.name] = (known[0], known[1] + [method.name])
    return found


def register(subparsers) -> None:
    methods = "; ".join(f"{m.name}: {m.help} [{m.reference}]" for m in METHODS.values())
    p = subparsers.add_parser(
        "pool", help="what to judge next: depth-k, RBP and RRF pools, move-to-front, MaxMean, and the documents "
                     "a decision between runs needs",
        description="Write the documents to judge, in order, with why each was chosen; documents already in "
                    "--qrels are not proposed. Methods: " + methods + ". With --simulate, replay judging with "
                    "complete judgments hidden behind each method and print the judgments each needs until "
                    f"Kendall's tau of the runs' order reaches {TAU} and until every pair is decided.")
    p.error = lambda message: p.exit(2, f"rankscope pool: {message}\n")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files (paths, globs, directories, @FILE)")
    p.add_argument("--qrels", metavar="QRELS", help="the judgments already made (their documents are not proposed)")
    p.add_argument("--simulate", metavar="COMPLETE_QRELS",
                   help="replay judging with these complete judgments instead of writing documents to judge")
    p.add_argument("--method", action="append", choices=list(METHODS), metavar="METHOD",
                   help=f"one of {', '.join(METHODS)} (default depth; with --simulate, repeatable, default all)")
    p.add_argument("--depth", type=int, default=100, metavar="K",
                   help="how deep each run is read (rbp, rrf: the documents per topic, the runs read whole); "
                        "default 100")
    p.add_argument("--budget", type=int, metavar="N",
                   help="the most documents to propose (with --simulate: judgments per method); default all")
    p.add_argument("--order", choices=list(ORDERS), default="trec_eval",
                   help="the order of a run's documents: " + "; ".join(f"{k}: {v}" for k, v in ORDERS.items()))
    for option, owners in _options().values():
        choices = list(option.rule.values) if isinstance(option.rule, Options) else None
        default = "" if option.default is None else f"; default {option.default}"
        who = ", ".join(owners) + (" and --simulate" if option.name in REPLAYED else "")
        p.add_argument(option.flag, dest=option.name, type=option.type, choices=choices, default=None,
                       metavar=option.metavar or option.name.split("_")[-1].upper(),
                       help=f"{who}: {option.help}{default}".replace("%", "%%"))
    p.add_argument("--step", type=int, metavar="N", help="--simulate: judgments between two checks (default: one "
                                                         "per topic)")
    p.add_argument("--format", choices=list(FORMATS), default="tsv",
                   help="; ".join(f"{k}: {v}" for k, v in FORMATS.items()) + " (default tsv)")
    p.add_argument("-o", "--output", default="-", metavar="FILE", help="where the documents go (default: stdout)")
    add_convention_flags(p, ("preset", "relevance_level"))
    p.set_defaults(func=run)


def _read(args):
    from metrics.io import read_run
    from metrics.io.readers import as_qrels
    from rankscope.datasets import qrels_of
    from rankscope.runs import expand_runs

    runs = [read_run(path) for path in expand_runs(args.runs)]
    qrels = as_qrels(args.qrels) if args.qrels is not None else None
    complete = as_qrels(qrels_of(args.simulate)) if args.simulate is not None else None
    return runs, qrels, complete


def _given_options(args, methods: list[str]) -> dict:
    """The method options given on the command line; one that none of ``methods`` takes is refused."""
    from metrics.errors import ValidationError

    given = {}
    for name, (option, owners) in _options().items():
        value = getattr(args, name)
        if value is None:
            continue
        if not set(owners) & set(methods) and not (args.simulate and name in REPLAYED):
            raise ValidationError(f"{option.flag}: applies to --method {' or '.join(owners)}, not {', '.join(methods)}")
        given[name] = value
    return given


def run(args: argparse.Namespace) -> int:
    from metrics.errors import ValidationError

    check_range("--depth", args.depth, 1, MOST)
    if args.budget is not None:
        check_range("--budget", args.budget, 1, MOST)
    if args.step is not None:
        if args.simulate is None:
            raise ValidationError("--step: applies to --simulate only")
        check_range("--step", args.step, 1, MOST)
    methods = args.method or (list(METHODS) if args.simulate else ["depth"])
    if args.simulate is None and len(methods) > 1:
        raise ValidationError(f"--method: expected one method, found {len(methods)} ({', '.join(methods)}); "
                              f"several are for --simulate")
    if args.simulate is not None and args.qrels is not None:
        raise ValidationError("--qrels: a replay starts from no judgment; give the complete ones to --simulate only")
    options = _given_options(args, methods)
    conventions = conventions_of(args)
    runs, qrels, complete = _read(args)
    if complete is not None:
        return _simulate(args, runs, complete, methods, options, conventions)
    return _pool(args, runs, qrels, methods[0], options, conventions)


def _pool(args, runs, qrels, method, options, conventions) -> int:
    from metrics.judgments.pooling import make_pool
    from rankscope.commands import write_output

    pool = make_pool(runs, qrels, method=method, depth=args.depth, budget=args.budget, order=args.order,
                     conventions=conventions, **options)
    decision = pool.proposer if method == "decide" else None
    pairs = decision.probabilities() if decision is not None else None
    documents = pool.documents
    if args.format == "json":
        doc = {"method": method, "settings": pool.settings, "depth": args.depth, "order": args.order,
               "documents": json_records(documents), "topics": json_records(pool.topics),
               "runs": json_records(pool.runs)}
        if decision is not None:
            doc["model"] = decision.describe()
            doc["pairs"] = json_records(pairs)
        data = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    elif args.format == "trec":
        data = "".join(f"{r.topic} Q0 {r.docid} {r.order} {r.weight:.6g} {method}\n"
                       for r in documents.itertuples(index=False)).encode("utf-8")
    else:
        lines = ["order\ttopic\tdocid\tweight\twhy\n"]
        lines += [f"{r.order}\t{r.topic}\t{r.docid}\t{r.weight:.6g}\t{r.why}\n" for r in documents.itertuples(index=False)]
        data = "".join(lines).encode("utf-8")
    write_output(args.output, data)
    if args.format != "json" or args.output != "-":
        print(_summary(pool, args.depth, pairs, decision), file=sys.stderr, end="")
    return 0


def _summary(pool, depth: int, pairs, decision) -> str:
    """What the pool holds, for the terminal."""
    topics, runs = pool.topics, pool.runs
    read = "read whole, the heaviest per topic" if pool.method.whole_runs else "read"
    head = (f"{pool.method.name} ({pool.method.title}): {len(pool.documents):,} documents to judge on "
            f"{int((topics['proposed'] > 0).sum())} of {len(topics)} topics (runs {read} to {depth}; "
            f"{int(topics['judged'].sum()):,} of their documents judged already)\n")
    rows = [["run", "documents only it brings", f"Judged@{JUDGED_AT} now", "after judging these"]]
    rows += [[r.system, f"{r.alone:,}", f"{r.judged_before:.3f}", f"{r.judged_after:.3f}"]
             for r in runs.itertuples(index=False)]
    out = head + text_table(rows, {0})
    if pairs is not None:
        ordered = pairs.sort_values("probability", kind="stable")
        shown = ordered.head(SHOWN_PAIRS)
        rows = [["better", "worse", "difference", "sd", "P(order holds)", "how", "unjudged", "decided"]]
        rows += [[r.better, r.worse, f"{r.difference:.4f}", f"{r.sd:.4f}", f"{r.probability:.3f}", r.method,
                  f"{r.unjudged:,}", "yes" if r.decided else "no"] for r in shown.itertuples(index=False)]
        more = f" ({SHOWN_PAIRS} least sure of {len(pairs)}; --format json has every one)" \
            if len(pairs) > SHOWN_PAIRS else ""
        out += (f"\n{decision.model.measure}: each pair's probability that its order holds, under the judgments "
                f"so far{more}\nmodel: {decision.describe()}\n" + text_table(rows, {0, 1, 5, 7}))
    return out


def _simulate(args, runs, complete, methods, options, conventions) -> int:
    from metrics.judgments.simulation import simulate
    from rankscope.commands import write_output

    decision = {k: options.pop(k) for k in REPLAYED if k in options}
    found = simulate(runs, complete, methods=methods, depth=args.depth, step=args.step, budget=args.budget,
                     order=args.order, conventions=conventions, **decision, **options)
    measure = decision.get("measure", METHODS["decide"].settings({})["measure"])
    confidence = decision.get("confidence", METHODS["decide"].settings({})["confidence"])
    if args.format == "json":
        doc = {"pool": found.pool, "relevant": found.relevant, "pairs": found.pairs, "step": found.step,
               "measure": measure, "summary": json_records(found.summary), "checks": json_records(found.checks)}
        write_output(args.output, (json.dumps(doc, indent=1) + "\n").encode("utf-8"))
        return 0
    rows = [["method", f"judgments to tau >= {TAU}", f"to every pair decided ({confidence:.0%})", "wrong then",
             "judged"]]
    number = lambda x: "-" if x != x else f"{int(x):,}"  # noqa: E731  (NaN: never reached)
    rows += [[r.method, number(r.to_tau), number(r.to_decided), number(r.wrong), f"{r.judged:,}"]
             for r in found.summary.itertuples(index=False)]
    head = (f"Replay: {len(runs)} runs ({found.pairs} pairs), {found.pool:,} documents to judge (the runs to depth "
            f"{args.depth}), {found.relevant:,} of them relevant; {measure}; a check every {found.step:,} judgments "
            f"('-': not reached within the documents there are)\n")
    write_output(args.output, (head + text_table(rows, {0})).encode("utf-8"))
    return 0
