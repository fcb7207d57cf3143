"""``rankscope workspace claims ID``: a collection's claims, checked again on its versions; exported as an
expectations file for ``rankscope check``, or imported from one.

Without options it prints one line per claim, tab-separated: its status on version ID (``flipped`` when it
differs from its status on the version it was saved on, else ``holds``, ``fails`` or ``cannot be checked``),
the claim in words, the numbers now, the version it was saved on, and for a flipped claim the version that
flipped it with the numbers before and after.

``--yaml`` writes the claims as an expectations file (:mod:`metrics.review.claims.schema`): ``qrels`` and
``runs`` name files relative to the file's folder (``qrels.txt``, ``runs/<system>.run``), the version's
conventions when they differ from the defaults, and its claims under ``expect``; ``--with-files`` writes
those files there too, from the store, so that ``rankscope check FILE`` checks the claims on the version's
own runs. ``--import FILE`` adds the claims of an expectations file (only its ``expect`` entries and
``tolerance`` are used; ``qrels`` and ``runs`` may be left out) to the collection's note on all topics,
saved on version ID; ``--add CLAIM`` (repeatable) adds one written by hand, an ``expect`` entry in YAML's
flow form, such as ``"{better: dense, than: bm25, measure: AP, test: t}"``.
"""

from __future__ import annotations

import os
import re
import sys

from metrics.errors import RankscopeError

__all__ = ["add_parser", "run"]

DESCRIPTION = ("Print a collection's claims, one per line, tab-separated: the status on version ID (flipped when it "
               "differs from the status on the version the claim was saved on, else holds, fails or cannot be "
               "checked), the claim, its numbers, the version it was saved on, and for a flipped claim the version "
               "that flipped it with the numbers before and after. --yaml writes them as an expectations file for "
               "'rankscope check' (qrels.txt and runs/SYSTEM.run relative to the file; --with-files writes those "
               "too); --import adds the claims of an expectations file (its expect entries; qrels and runs may be "
               "left out) to the collection, saved on version ID; --add adds one claim written by hand, as an expect "
               "entry: --add '{better: dense, than: bm25, measure: AP, test: t}'.")

MAX_ADD = 4096  # characters of one claim written by hand

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def add_parser(sub, location) -> None:
    """Add ``claims`` to the ``rankscope workspace`` actions (``location`` adds --workspace and --files)."""
    p = sub.add_parser("claims", help="print a collection's claims with their status on each version; export "
                                      "them for 'rankscope check', or import them",
                       description=DESCRIPTION)
    p.add_argument("id", help="the collection's id: the version the claims are checked on")
    p.add_argument("--yaml", action="store_true",
                   help="write the claims as an expectations file that 'rankscope check' reads")
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="with --yaml: the file to write ('-': stdout, the default)")
    p.add_argument("--with-files", action="store_true",
                   help="with --yaml -o FILE: also write the version's qrels and runs beside FILE, where it names them")
    p.add_argument("--import", dest="import_", metavar="FILE",
                   help="add the claims of an expectations file (its 'expect' entries) to the collection")
    p.add_argument("--add", action="append", default=[], metavar="CLAIM",
                   help="add one claim written as an expect entry, e.g. '{system: bm25, measure: AP, at_least: 0.25}' "
                        "(repeatable)")
    location(p)


def run(ws, args, author: str, cell) -> int:
    """The action: ``author`` is who the command acts as, ``cell`` how a text is shown in one tab-separated cell
    (both those of ``rankscope workspace``)."""
    if args.import_ is not None or args.add:
        if args.yaml:
            raise RankscopeError(f"claims: expected {'--import' if args.import_ else '--add'} or --yaml, found both")
        return _import(ws, args, author, cell)
    if args.yaml:
        return _yaml(ws, args)
    if args.with_files or args.output != "-":
        raise RankscopeError("claims: -o and --with-files go with --yaml")
    return _print(ws, args, cell)


def _print(ws, args, cell) -> int:
    from workspace.recheck import rechecked

    versions = {v.id: v.version for v in ws.lineage(args.id)}

    def named(cid: str | None) -> str:
        return "" if cid is None else f"version {versions.get(cid, '?')} ({cid})"

    print("status\tclaim\tnumbers\tsaved_on\tflipped_by\tbefore\tafter")
    for stored, trail in rechecked(ws, args.id):
        before, after = trail.before, trail.after
        print("\t".join([trail.status, cell(trail.claim.describe()), cell(trail.now.details()), named(stored.since),
                         named(trail.flipped_by), cell(before.details() if before else ""),
                         cell(after.details() if after else "")]))
    return 0


def _names(stored) -> tuple[str, dict[str, str]]:
    """The file names an export gives the qrels and each run: safe, unique, never a name a user typed whole."""
    taken: set[str] = {"qrels.txt"}
    runs = {}
    for run in stored.runs:
        base = (_SAFE.sub("_", run.system).strip("._") or "run")[:80]
        name, n = f"runs/{base}.run", 1
        while name in taken:
            n += 1
            name = f"runs/{base}-{n}.run"
        taken.add(name)
        runs[run.system] = name
    return "qrels.txt", runs


def _yaml(ws, args) -> int:
    import yaml

    from metrics.conventions import Conventions
    from metrics.review.claims import expectations_data
    from rankscope.commands import write_output
    from workspace.recheck import collection_claims

    stored = ws.load(args.id)
    claims = [c.claim for c in collection_claims(ws.notes(args.id))]
    if not claims:
        raise RankscopeError(f"claims {args.id}: the collection has no claims to export")
    qrels, runs = _names(stored)
    data = expectations_data(qrels, runs, claims, conventions=Conventions.coerce(**stored.conventions),
                             name=f"{stored.info.name} (version {stored.info.version})")
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
    if args.with_files:
        if args.output == "-":
            raise RankscopeError("claims: --with-files needs -o FILE: the files are written beside it")
        folder = os.path.dirname(args.output)
        try:
            os.makedirs(os.path.join(folder, "runs"), exist_ok=True)
        except OSError as err:
            raise RankscopeError(f"claims: cannot make the folder {folder or '.'}: {err.strerror or err}") from None
        write_output(os.path.join(folder, qrels), stored.qrels.read())
        for run in stored.runs:
            write_output(os.path.join(folder, runs[run.system]), run.read())
    write_output(args.output, text.encode())
    return 0


def _import(ws, args, author: str, cell) -> int:
    from collections.abc import Mapping

    from metrics.review.claims import read_expectations
    from rankscope.commands.check import load_yaml, parse_yaml
    from workspace.recheck import add_claims

    claims = []
    if args.import_ is not None:
        data, lines = load_yaml(args.import_)
        if isinstance(data, Mapping):  # the collection's own files are checked: a file's qrels and runs are not needed
            data = {"qrels": "-", "runs": {"-": "-"}, **data}
        claims += read_expectations(data, source=args.import_, lines=lines).claims
    for i, text in enumerate(args.add, start=1):
        source = f"--add {i}"
        if len(text) > MAX_ADD:
            raise RankscopeError(f"{source}: expected a claim of at most {MAX_ADD} characters, found {len(text)}")
        entry, _ = parse_yaml(text, source)
        claims += read_expectations({"qrels": "-", "runs": {"-": "-"}, "expect": [entry]}, source=source).claims
    ws.collection(args.id)  # an unknown id is one line before anything is written
    before = len(_claims(ws, args.id))
    add_claims(ws, args.id, claims, author=author)
    added = len(_claims(ws, args.id)) - before
    print(f"{args.id}\tadded {added} claim{'s' * (added != 1)} ({len(claims) - added} already there)",
          file=sys.stderr)
    return _print(ws, args, cell)


def _claims(ws, cid):
    from workspace.recheck import collection_claims

    return collection_claims(ws.notes(cid))
