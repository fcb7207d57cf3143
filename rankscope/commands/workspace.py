"""``rankscope workspace``: add, list, rename, archive, export and remove collections of a shared workspace,
and print their review notes.

A workspace is a folder (SQLite and stored files), ``sqlite:///FILE`` or ``postgresql://USER@HOST:PORT/DB``
(see :func:`workspace.open_workspace`); ``--workspace`` defaults to ``$RANKSCOPE_WORKSPACE``, else
``./rankscope-workspace``.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import shlex
import sys

from metrics.errors import RankscopeError
from rankscope.commands import add_convention_flags, conventions_of

__all__ = ["author_of", "cell", "export_session", "register", "run", "stored_inputs"]


def _location(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", metavar="LOC", default=None,
                   help="workspace folder, sqlite:///FILE or postgresql://USER@HOST:PORT/DB (default "
                        "$RANKSCOPE_WORKSPACE, else ./rankscope-workspace)")
    p.add_argument("--files", metavar="URL", default=None,
                   help="folder or fsspec URL of the stored files (PostgreSQL: default $RANKSCOPE_WORKSPACE_FILES)")


def register(subparsers) -> None:
    p = subparsers.add_parser("workspace", help="manage the collections of a shared workspace",
                              description="Add, list, rename, archive, export and remove collections (qrels, "
                                          "runs and conventions) of a workspace shared by a team, and print "
                                          "their review notes.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    add = sub.add_parser("add", help="add a collection: qrels, runs and conventions")
    add.add_argument("qrels", help="qrels file (qid iter docid rel), plain or gzip")
    add.add_argument("runs", nargs="+", metavar="run", help="run file(s); each system is named after its file")
    add.add_argument("--name", required=True, help="the collection's name")
    add.add_argument("--author", default=None, help="who adds it (default $RANKSCOPE_AUTHOR, else the user name)")
    _location(add)
    add_convention_flags(add)
    listing = sub.add_parser("list", help="list the collections, newest first")
    listing.add_argument("--archived", action="store_true", help="include archived collections")
    _location(listing)
    export = sub.add_parser("export", help="write a collection and its notes as a session file")
    export.add_argument("id", help="the collection's id (see 'rankscope workspace list')")
    export.add_argument("-o", "--output", required=True, metavar="FILE", help="the session file to write")
    _location(export)
    rename = sub.add_parser("rename", help="give a collection a new name")
    rename.add_argument("id", help="the collection's id (see 'rankscope workspace list')")
    rename.add_argument("name", help="the new name (one line)")
    _author(rename, "renames it")
    _location(rename)
    archive = sub.add_parser("archive", help="hide a collection from the default list, or restore it")
    archive.add_argument("id", help="the collection's id")
    archive.add_argument("--undo", action="store_true", help="restore an archived collection")
    _author(archive, "archives it")
    _location(archive)
    notes = sub.add_parser("notes", help="print a collection's review notes as a table",
                           description="Print the current review notes of a collection, saved on any of its "
                                       "versions, one per line, tab-separated; tabs, line breaks and other "
                                       "control characters in the text are shown escaped (\\t, \\n, \\x1b).")
    notes.add_argument("id", help="the collection's id (any of its versions)")
    notes.add_argument("--history", action="store_true",
                       help="every revision of every note (note by note, oldest first), not only the current ones")
    _location(notes)
    rm = sub.add_parser("rm", help="delete a collection")
    rm.add_argument("id", help="the collection's id")
    rm.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    _author(rm, "deletes it")
    _location(rm)
    p.set_defaults(func=run)


def _author(p: argparse.ArgumentParser, does: str) -> None:
    p.add_argument("--author", default=None, help=f"who {does} (default $RANKSCOPE_AUTHOR, else the user name)")


def author_of(args: argparse.Namespace) -> str:
    """``--author``, else ``$RANKSCOPE_AUTHOR``, else the login name."""
    if args.author:
        return args.author
    try:
        return os.environ.get("RANKSCOPE_AUTHOR") or getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def run(args: argparse.Namespace) -> int:
    from workspace import open_workspace

    with open_workspace(args.workspace, files=args.files) as ws:
        actions = {"add": _add, "list": _list, "rename": _rename, "archive": _archive, "notes": _notes,
                   "export": _export, "rm": _rm}
        return actions[args.action](ws, args)


def _read(path: str) -> tuple[str, bytes]:
    try:
        with open(path, "rb") as handle:
            return os.path.basename(path), handle.read()
    except OSError as err:
        raise RankscopeError(f"cannot read {path}: {err.strerror or err}") from None


def _add(ws, args) -> int:
    conventions = conventions_of(args).as_dict()
    info = ws.add_collection(args.name, qrels=_read(args.qrels), runs=[_read(path) for path in args.runs],
                             conventions=conventions, author=author_of(args))
    print(f"{info.id}\tadded {info.name!r} version {info.version}: {len(info.systems)} runs, {info.topics} topics, "
          f"{info.size / 1024:.0f} KB")
    return 0


def _list(ws, args) -> int:
    rows = ws.collections(archived=args.archived)
    print("id\tversion\tname\truns\ttopics\tKB\tcreated_by\tcreated_at\tarchived")
    for c in rows:
        print(f"{c.id}\t{c.version}\t{cell(c.name)}\t{len(c.systems)}\t{c.topics}\t{c.size / 1024:.0f}\t"
              f"{cell(c.created_by)}\t{c.created_at}\t{'yes' if c.archived else 'no'}")
    return 0


def _rename(ws, args) -> int:
    old = ws.collection(args.id)
    info = ws.rename(args.id, args.name, author=author_of(args))
    print(f"{info.id}\trenamed {old.name!r} to {info.name!r} (version {info.version})")
    return 0


def _archive(ws, args) -> int:
    info = ws.archive(args.id, not args.undo, author=author_of(args))
    print(f"{info.id}\t{'restored' if args.undo else 'archived'} {info.name!r} version {info.version}")
    return 0


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\]")
_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}


def cell(text: str | None) -> str:
    """``text`` as one cell of a tab-separated table: tabs, line breaks (also U+2028, U+2029), other control
    characters and the backslash escaped (``\\t``, ``\\n``, ``\\x1b``, ``\\u2028``, ``\\\\``), so a cell
    is one line that cannot steer a terminal; ``None`` is an empty cell."""
    if text is None:
        return ""
    return _CONTROL.sub(lambda m: _ESCAPES.get(m.group(), _code(m.group())), text)


def _code(character: str) -> str:
    return f"\\x{ord(character):02x}" if ord(character) < 0x100 else f"\\u{ord(character):04x}"


def _notes(ws, args) -> int:
    current = ws.notes(args.id)
    if args.history:  # every (topic, system) with a revision has a current one
        keys = dict.fromkeys((n.topic, n.system) for n in current)
        shown = [revision for topic, system in keys for revision in ws.note_history(args.id, topic, system)]
    else:
        shown = current
    print("revision\tbase\ttopic\tsystem\ttag\tauthor\tcreated_at\tsaved_on\tcomment")
    for n in shown:
        print("\t".join([str(n.revision), "" if n.base is None else str(n.base), cell(n.topic), cell(n.system),
                         cell(n.tag), cell(n.author), n.created_at, n.collection, cell(n.comment)]))
    return 0


def export_session(ws, cid: str) -> bytes:
    """The session file (:mod:`dashboard.exports.session`) of collection ``cid``: its files' names and
    digests, its conventions, and its current notes (a topic's notes merged: tags in order, comments one
    per line, those on a system marked ``[system]``)."""
    from dashboard.exports.session import session_to_json
    from metrics.conventions import Conventions

    stored = ws.load(cid)
    merged = _merged_notes(ws.notes(cid))
    digests = {"qrels": stored.qrels.sha256, **{r.system: r.sha256 for r in stored.runs}}
    view = {"workspace_collection": stored.info.id, "workspace_name": stored.info.name,
            "workspace_version": stored.info.version}
    return session_to_json({r.system: r.name for r in stored.runs}, Conventions.coerce(**stored.conventions),
                           merged, view, qrels_name=stored.qrels.name, digests=digests)


def _merged_notes(notes) -> dict[str, dict]:
    """Current notes in the session file's shape ``{topic: {"tags": [...], "comment": "..."}}``: a topic's
    notes merged, tags in order, comments one per line, those on a system marked ``[system]``."""
    merged: dict[str, dict] = {}
    for note in notes:
        entry = merged.setdefault(note.topic, {"tags": [], "comment": ""})
        if note.tag and note.tag not in entry["tags"]:
            entry["tags"].append(note.tag)
        if note.comment:
            line = note.comment if note.system is None else f"[{note.system}] {note.comment}"
            entry["comment"] = f"{entry['comment']}\n{line}" if entry["comment"] else line
    return merged


def _export(ws, args) -> int:
    from metrics.io.files import write_atomic

    data = export_session(ws, args.id)
    try:
        write_atomic(args.output, data)
    except OSError as err:
        raise RankscopeError(f"cannot write {args.output}: {err.strerror or err}") from None
    print(f"wrote {shlex.quote(args.output)} ({len(data)} bytes)", file=sys.stderr)
    return 0


def _rm(ws, args) -> int:
    info = ws.collection(args.id)
    if not args.yes:
        if not sys.stdin.isatty():
            raise RankscopeError(f"rm {args.id}: expected --yes to delete without a terminal to confirm on")
        answer = input(f"delete collection {info.id} {info.name!r} version {info.version}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing deleted", file=sys.stderr)
            return 1
    ws.delete(args.id, author=author_of(args))
    print(f"deleted {info.id} {info.name!r} version {info.version}", file=sys.stderr)
    return 0


def stored_inputs(location: str | None, cid: str) -> dict:
    """What ``rankscope report --collection`` reports on: the stored qrels and runs (bytes, checked), their
    file names, the collection's notes (as the session file has them) and its stored conventions."""
    from workspace import open_workspace

    with open_workspace(location) as ws:
        stored = ws.load(cid)
        notes = _merged_notes(ws.notes(cid))
        return {"qrels": stored.qrels.read(), "qrels_name": stored.qrels.name,
                "runs": {r.system: r.read() for r in stored.runs},
                "file_names": {r.system: r.name for r in stored.runs}, "notes": notes,
                "conventions": stored.conventions}
