"""``rankscope workspace judge|tasks|judgments``: judging tasks on a stored collection (:mod:`workspace.judging`).

``judge ID`` starts a task on version ID and prints its id alone on stdout (``TASK=$(rankscope workspace judge
...)`` works): the method (``rankscope pool``'s, with the same options), the budget, the assessors, the share
given to two of them, the topics, the grade scale and the rule that merges two different grades. ``tasks ID``
lists the tasks of the collection with their progress. ``judgments TASK`` prints every judgment, tab-separated,
with its assessor and time; ``--qrels SET`` writes one judgment set as TREC qrels (``merged``, ``adjudicated``
or an assessor), ``--folder DIR`` every set and the table, ``--save`` adds them to the collection as a new
version (the adjudicated or merged set its reference), ``--close`` closes the task.
"""

from __future__ import annotations

import sys

from metrics.errors import RankscopeError

__all__ = ["add_parsers", "run"]


def add_parsers(sub, location) -> None:
    """Add ``judge``, ``tasks`` and ``judgments`` to the ``rankscope workspace`` actions."""
    from metrics.checks import Options
    from metrics.judgments.assessors import MERGES
    from metrics.judgments.pooling import METHODS
    from rankscope.commands.pool import _options

    judge = sub.add_parser("judge", help="start a judging task: who judges which documents, chosen by which method",
                           description="Start a judging task on version ID: the documents its METHOD proposes are "
                                       "dealt to the assessors one at a time in the dashboard's Judge page, a share "
                                       "of them to two assessors for agreement. Prints the task's id alone on stdout. "
                                       "Assessors without a role on the collection get the assessor role.")
    judge.add_argument("id", help="the collection's id (the version whose runs and judgments the task reads)")
    judge.add_argument("--method", choices=list(METHODS), default="decide",
                       help="how the documents are chosen: " + "; ".join(f"{m.name}: {m.help}" for m in METHODS.values())
                       + " (default decide)")
    judge.add_argument("--budget", type=int, metavar="N", help="the most documents to judge (default: every one)")
    judge.add_argument("--assessors", default="", metavar="A,B,...",
                       help="the assessors' identities, comma-separated (default: whoever may judge)")
    judge.add_argument("--overlap", type=float, default=0.0, metavar="SHARE",
                       help="the share of documents given to a second assessor, from 0 to 1 (default 0)")
    judge.add_argument("--name", metavar="NAME", help="names the task's judgment sets (default 'judging N')")
    judge.add_argument("--topics", metavar="T,T,...", help="the topics to judge (default every topic of the runs)")
    judge.add_argument("--depth", type=int, default=100, metavar="K", help="how deep the runs are read (default 100)")
    judge.add_argument("--scale", metavar="0=LABEL,1=LABEL,...",
                       help="the grades and their labels (default the collection's grades, 0 to the highest)")
    judge.add_argument("--rule", choices=list(MERGES), default="lower",
                       help="; ".join(f"{k}: {v}" for k, v in MERGES.items()) + " (default lower)")
    for option, owners in _options().values():
        choices = list(option.rule.values) if isinstance(option.rule, Options) else None
        judge.add_argument(option.flag, dest=option.name, type=option.type, choices=choices, default=None,
                           metavar=option.metavar or option.name.split("_")[-1].upper(),
                           help=f"{', '.join(owners)}: {option.help}".replace("%", "%%"))
    location(judge)
    tasks = sub.add_parser("tasks", help="list a collection's judging tasks and their progress")
    tasks.add_argument("id", help="the collection's id (any of its versions)")
    location(tasks)
    made = sub.add_parser("judgments", help="print, export or save a judging task's judgments",
                          description="Print every judgment of a task, tab-separated (topic, docid, assessor, grade, "
                                      "label, skipped, judged_at); or write one set as TREC qrels, or every set and "
                                      "the table into a folder, or add the sets to the collection as a new version.")
    made.add_argument("task", help="the task's id (see 'rankscope workspace tasks ID')")
    what = made.add_mutually_exclusive_group()
    what.add_argument("--qrels", metavar="SET", help="write one set as TREC qrels: merged, adjudicated or an assessor")
    what.add_argument("--folder", metavar="DIR", help="write every set (.qrels) and the table (.csv) into DIR")
    what.add_argument("--save", action="store_true", help="add the sets to the collection as a new version")
    what.add_argument("--close", action="store_true", help="close the task: nothing more is dealt or judged")
    made.add_argument("-o", "--output", default="-", metavar="FILE", help="with --qrels: the file ('-': stdout)")
    location(made)


def _options_given(args) -> dict:
    from metrics.judgments.pooling import METHODS

    names = {o.name for o in METHODS[args.method].options}
    given = {}
    for method in METHODS.values():
        for option in method.options:
            value = getattr(args, option.name, None)
            if value is None:
                continue
            if option.name not in names:
                raise RankscopeError(f"{option.flag}: applies to --method "
                                     f"{' or '.join(m.name for m in METHODS.values() if option in m.options)}, "
                                     f"not {args.method}")
            given[option.name] = value
    return given


def run(ws, args, operator: str, cell) -> int:
    """Run ``judge``, ``tasks`` or ``judgments`` (``cell`` writes a text as one table cell)."""
    from workspace.judging import Judging, listed

    judging = Judging(ws)
    if args.action == "judge":
        assessors = listed(args.assessors)
        topics = None if args.topics is None else listed(args.topics)
        info = judging.start(args.id, method=args.method, name=args.name, assessors=assessors, overlap=args.overlap,
                             budget=args.budget, depth=args.depth, topics=topics, scale=args.scale, rule=args.rule,
                             options=_options_given(args), author=operator)
        print(info.id)
        print(f"started {info.name!r} on version {info.collection}: {info.method}, budget "
              f"{info.budget if info.budget is not None else 'all'}, {len(info.assessors) or 'any'} assessor(s), "
              f"overlap {info.overlap:g}; grades {info.scale.text()}", file=sys.stderr)
        return 0
    if args.action == "tasks":
        return _tasks(judging, args, cell)
    return _judgments(ws, judging, args, operator, cell)


def _tasks(judging, args, cell) -> int:
    print("task\tname\tmethod\tassessors\tdealt\tbudget\tjudgments\tclosed\tcreated_by\tcreated_at")
    for info in judging.tasks(args.id):
        dealt = judging.dealt(info.id)
        judged = judging.judgments(info.id)
        print("\t".join([info.id, cell(info.name), info.method, cell(",".join(info.assessors)),
                         str(int((dealt["slot"] == 0).sum())), "" if info.budget is None else str(info.budget),
                         str(int(judged["grade"].notna().sum())), "yes" if info.closed else "no",
                         cell(info.created_by), info.created_at]))
    return 0


def _judgments(ws, judging, args, operator: str, cell) -> int:
    import pandas as pd

    from dashboard.exports.judgments import judgment_files, judgments_table
    from metrics.io.writers import qrels_bytes
    from metrics.judgments.assessors import SEPARATOR
    from rankscope.commands import write_output

    info = judging.task(args.task)
    if args.close:
        judging.close(args.task, author=operator)
        print(f"{info.id}\tclosed {info.name!r}")
        return 0
    if args.save:
        made = judging.save_sets(args.task, author=operator)
        print(made.id)
        print(f"saved the sets of {info.name!r} as version {made.version} of {made.name!r}", file=sys.stderr)
        return 0
    if args.qrels is not None:
        sets = judging.sets(args.task)
        name = f"{info.name}{SEPARATOR}{args.qrels}"
        if name not in sets:
            shown = ", ".join(n.split(SEPARATOR, 1)[1] for n in sets) or "none yet"
            raise RankscopeError(f"--qrels: task {info.name!r} has no set {args.qrels!r}; its sets are {shown}")
        write_output(args.output, qrels_bytes(sets[name]))
        return 0
    table = judgments_table(judging.judgments(args.task), info.scale)
    if args.folder is not None:
        from dashboard.report.bundle import write_files

        for path in write_files(args.folder, judgment_files(info.name, judging.sets(args.task), table)):
            print(path, file=sys.stderr)
        return 0
    print("\t".join(table.columns))
    for row in table.itertuples(index=False):
        print("\t".join([cell(row.topic), cell(row.docid), cell(row.assessor),
                         "" if pd.isna(row.grade) else str(row.grade), cell(row.label),
                         "yes" if row.skipped else "no", row.judged_at]))
    return 0
