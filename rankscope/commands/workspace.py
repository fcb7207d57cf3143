"""``rankscope workspace``: add, list, rename, archive, export, remove, restore, share and purge collections of
a shared workspace, and print their review notes, their claims (:mod:`rankscope.commands._claims`) and the
audit log; start judging tasks and export their judgments (:mod:`rankscope.commands._judging`).

A workspace is a folder (SQLite and stored files), ``sqlite:///FILE`` or ``postgresql://USER@HOST:PORT/DB``
(see :func:`workspace.open_workspace`); ``--workspace`` defaults to ``$RANKSCOPE_WORKSPACE``, else
``./rankscope-workspace``.

The command works on the store directly, as its operator: nothing is checked against the roles of the
login mode (whoever can open the database can change it), and every change is recorded as made by the
operating-system user who ran it (:func:`operator`), never by a name typed on the command line.
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import sys

from metrics.errors import RankscopeError
from metrics.io.spreadsheet import neutralise
from rankscope.commands import _claims, _judging, add_convention_flags, conventions_of, write_output

__all__ = ["cell", "export_session", "operator", "register", "run", "stored_inputs"]


def _location(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", metavar="LOC", default=None,
                   help="workspace folder, sqlite:///FILE or postgresql://USER@HOST:PORT/DB (default "
                        "$RANKSCOPE_WORKSPACE, else ./rankscope-workspace)")
    p.add_argument("--files", metavar="URL", default=None,
                   help="folder or fsspec URL of the stored files (PostgreSQL: default $RANKSCOPE_WORKSPACE_FILES)")


def register(subparsers) -> None:
    p = subparsers.add_parser("workspace", help="manage the collections of a shared workspace",
                              description="Add, list, rename, archive, export, remove, restore and share "
                                          "collections (qrels, runs and conventions) of a workspace shared by a "
                                          "team, print their review notes, their claims and the audit log, and "
                                          "purge deleted "
                                          "ones. It works on the store directly, as the operator: roles are not "
                                          "checked, and changes are recorded as made by the operating-system user "
                                          "that runs it.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    add = sub.add_parser("add", help="add a collection: qrels, runs and conventions",
                         description="Add a collection and print its id alone on stdout (so that "
                                     "ID=$(rankscope workspace add ...) works); what was added goes to stderr.")
    add.add_argument("qrels", help="qrels file (qid iter docid rel), plain or gzip")
    add.add_argument("runs", nargs="+", metavar="run", help="run file(s); each system is named after its file")
    add.add_argument("--name", default=None,
                     help="the collection's name (default: the qrels file's name and the first systems, "
                          "as 'qrels: bm25, dense +2 more')")
    add.add_argument("--owner", action="append", default=[], metavar="IDENTITY",
                     help="its owner in the login mode (an e-mail address as the provider gives it; may be repeated); "
                          "without one, only administrators see it there until they share it")
    add.add_argument("--judgments", action="append", default=[], metavar="NAME=FILE",
                     help="another judgment set of the collection (a crowd's, a language model's): its name and "
                          "qrels file; repeatable")
    add.add_argument("--reference", metavar="NAME", default=None,
                     help="the name of the judgment set QRELS holds, the reference (default: its file name "
                          "without suffixes)")
    _location(add)
    add_convention_flags(add)
    listing = sub.add_parser("list", help="list the collections, newest first")
    listing.add_argument("--archived", action="store_true", help="include archived collections")
    _location(listing)
    export = sub.add_parser("export", help="write a collection and its notes as a session file")
    export.add_argument("id", help="the collection's id (see 'rankscope workspace list')")
    export.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the session file to write ('-': stdout); a new path or a regular file")
    _location(export)
    rename = sub.add_parser("rename", help="give a collection a new name")
    rename.add_argument("id", help="the collection's id (see 'rankscope workspace list')")
    rename.add_argument("name", help="the new name (one line)")
    _location(rename)
    archive = sub.add_parser("archive", help="hide a collection from the default list, or show it again")
    archive.add_argument("id", help="the collection's id")
    archive.add_argument("--undo", action="store_true", help="unarchive: list the collection again")
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
    _location(rm)
    restore = sub.add_parser("restore", help="undo the deletion of a collection whose files are not yet purged")
    restore.add_argument("id", help="the deleted collection's id (see 'rankscope workspace log')")
    _location(restore)
    share = sub.add_parser("share", help="give a person a role on a collection (every version), or take it away",
                           description="Give IDENTITY (an e-mail address as the login provider gives it, or * for "
                                       "everyone signed in) a role on every version of a collection: viewer (opens "
                                       "it, reads its notes), assessor (also judges the documents a judging task deals "
                                       "them), editor (also adds versions, writes notes), owner (also "
                                       "renames, archives, deletes and shares it), or none (takes the role away).")
    share.add_argument("id", help="the collection's id (any of its versions)")
    share.add_argument("identity", help="an e-mail address, or * for everyone signed in")
    share.add_argument("role", choices=["viewer", "assessor", "editor", "owner", "none"])
    _location(share)
    log = sub.add_parser("log", help="print the audit log: renames, archives, deletions, restores, purges, roles",
                         description="Print the audit log, newest first, tab-separated: every rename, archive, "
                                     "deletion, restore, purge and role change, with who and when.")
    log.add_argument("id", nargs="?", default=None, help="only the collection of this id (all its versions)")
    _location(log)
    purge = sub.add_parser("purge", help="remove the files of collections deleted longer ago than the undo window",
                           description="Remove the files of the collections deleted longer ago than the undo window "
                                       "(they can no longer be restored), and every stored file, cache or derived "
                                       "table that no collection names. Dashboard servers do it every 10 minutes.")
    purge.add_argument("--older-than", type=float, default=None, metavar="HOURS",
                       help="hours since the deletion (default $RANKSCOPE_UNDO_HOURS, else 72; 0: every deleted one)")
    _location(purge)
    _claims.add_parser(sub, _location)
    _judging.add_parsers(sub, _location)
    p.set_defaults(func=run)


def operator() -> str:
    """Who the command acts as: the operating-system user that runs it, marked as the command line."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown user"
    return f"{user} (command line)"


def run(args: argparse.Namespace) -> int:
    from workspace import open_workspace

    with open_workspace(args.workspace, files=args.files) as ws:
        actions = {"add": _add, "list": _list, "rename": _rename, "archive": _archive, "notes": _notes,
                   "export": _export, "rm": _rm, "restore": _restore, "share": _share, "log": _log, "purge": _purge,
                   "claims": lambda ws, args: _claims.run(ws, args, operator(), cell),
                   **dict.fromkeys(("judge", "tasks", "judgments"),
                                   lambda ws, args: _judging.run(ws, args, operator(), cell))}
        return actions[args.action](ws, args)


def _read(path: str) -> tuple[str, bytes]:
    from metrics.io.readers import read_path

    try:
        return os.path.basename(path), bytes(read_path(path, os.path.basename(path)))
    except OSError as err:
        raise RankscopeError(f"cannot read {path}: {err.strerror or err}") from None


def _topics(args):
    """The topics of the ir_datasets id given as the qrels, as a ``qid<TAB>text`` file; None for a file."""
    if getattr(args, "qrels_file", None) is None:
        return None
    from metrics.io.irds import load_topics
    from metrics.io.writers import topics_bytes

    topics = load_topics(args.qrels_source)
    return None if topics is None else (f"{args.qrels_source}.topics.tsv", topics_bytes(topics))


def _add(ws, args) -> int:
    conventions = conventions_of(args).as_dict()
    judgments = []
    for given in args.judgments:
        name, equals, path = given.partition("=")
        if not equals or not name or not path:
            raise RankscopeError(f"--judgments: expected NAME=FILE, found {given!r}")
        judgments.append((name, _read(path)))
    qrels = getattr(args, "qrels_file", None) or _read(args.qrels)  # an ir_datasets id: its judgments as a file
    info = ws.add_collection(args.name, qrels=qrels, runs=[_read(path) for path in args.runs], topics=_topics(args),
                             conventions=conventions, author=operator(), judgments=judgments,
                             reference=args.reference, members={who: "owner" for who in args.owner})
    print(info.id)  # the id alone on stdout: ID=$(rankscope workspace add ...) works
    print(f"added {info.name!r} version {info.version}: {len(info.systems)} runs, {info.topics} topics, "
          f"{info.size / 1024:.0f} KB", file=sys.stderr)
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
    info = ws.rename(args.id, args.name, author=operator())
    print(f"{info.id}\trenamed {old.name!r} to {info.name!r} (version {info.version})")
    return 0


def _archive(ws, args) -> int:
    info = ws.archive(args.id, not args.undo, author=operator())
    print(f"{info.id}\t{'restored' if args.undo else 'archived'} {info.name!r} version {info.version}")
    return 0


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\]")
_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}


def cell(text: str | None) -> str:
    """``text`` as one cell of a tab-separated table: tabs, line breaks (also U+2028, U+2029), other control
    characters and the backslash escaped (``\\t``, ``\\n``, ``\\x1b``, ``\\u2028``, ``\\\\``), so a cell
    is one line that cannot steer a terminal, and a text beginning like a spreadsheet formula written after a
    ``'`` (:func:`metrics.io.spreadsheet.neutralise`); ``None`` is an empty cell."""
    if text is None:
        return ""
    return neutralise(_CONTROL.sub(lambda m: _ESCAPES.get(m.group(), _code(m.group())), text))


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
    """The session file (:mod:`dashboard.exports.session_file`) of collection ``cid``: its files' names and
    digests, its conventions, and its current notes (a topic's notes merged: tags in order, comments one
    per line, those on a system marked ``[system]``). Every stored file is read and checked against its digest
    first, as a report on the collection would: a missing or damaged one raises :class:`RankscopeError`."""
    from dashboard.exports.session_file import session_to_json
    from metrics.conventions import Conventions

    stored = ws.load(cid)
    for file in (stored.qrels, *stored.runs, stored.topics, stored.documents):
        if file is not None:
            file.read()  # the session file names them: they must be there, as they were stored
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
        if not (note.tag or note.comment):  # e.g. the note that only carries a collection's claims
            continue
        entry = merged.setdefault(note.topic, {"tags": [], "comment": ""})
        if note.tag and note.tag not in entry["tags"]:
            entry["tags"].append(note.tag)
        if note.comment:
            line = note.comment if note.system is None else f"[{note.system}] {note.comment}"
            entry["comment"] = f"{entry['comment']}\n{line}" if entry["comment"] else line
    return merged


def _export(ws, args) -> int:
    write_output(args.output, export_session(ws, args.id))
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
    ws.delete(args.id, author=operator())
    print(f"deleted {info.id} {info.name!r} version {info.version} (restorable until purged: "
          f"'rankscope workspace restore {info.id}')", file=sys.stderr)
    return 0


def _restore(ws, args) -> int:
    info = ws.restore(args.id, author=operator())
    print(f"{info.id}\trestored {info.name!r} version {info.version}")
    return 0


def _share(ws, args) -> int:
    role = None if args.role == "none" else args.role
    who, before = ws.share(args.id, args.identity, role, author=operator())
    print(f"{args.id}\t{who}: {before or 'none'} -> {args.role}")
    return 0


def _log(ws, args) -> int:
    print("at\tauthor\taction\tcollection\tversion\tname\tdetail")
    for e in ws.log(args.id):
        print("\t".join([e.at, cell(e.author), e.action, e.collection, str(e.version), cell(e.name), cell(e.detail)]))
    return 0


def _purge(ws, args) -> int:
    from dashboard.server.config import SettingError, undo_hours

    try:
        hours = undo_hours() if args.older_than is None else args.older_than
    except SettingError as err:
        raise RankscopeError(str(err)) from None
    if not 0 <= hours <= 1e9:
        raise RankscopeError(f"purge --older-than: expected hours from 0 to 1e9, found {hours}")
    done = ws.purge(hours * 3600, author=operator())
    print(f"purged {len(done.collections)} deleted collection{'s' * (len(done.collections) != 1)} "
          f"(deleted more than {hours:g} hours ago): {done.files} stored files, {done.bytes} bytes removed")
    for cid in done.collections:
        print(cid)
    return 0


def stored_inputs(location: str | None, cid: str, judgments: str | None = None) -> dict:
    """What ``rankscope report --collection`` reports on: the stored qrels (the reference, or the judgment set
    named ``judgments``) and runs (bytes, checked), their file names, the collection's notes (as the session
    file has them), its stored conventions and its judging tasks (their report section and files)."""
    from dashboard.exports.judgments import task_record
    from workspace import open_workspace
    from workspace.dealing import conclusion
    from workspace.judging import Judging

    with open_workspace(location) as ws:
        stored = ws.load(cid)
        notes = _merged_notes(ws.notes(cid))
        tasks = Judging(ws)
        judging = [task_record(tasks, info, conclusion(ws, info)) for info in tasks.tasks(cid)]
        sets = dict(stored.judgment_sets)
        if judgments is not None and judgments not in sets:
            raise RankscopeError(f"--judgments: collection {cid} has no judgment set {judgments!r}; its sets are "
                                 f"{', '.join(sets)}")
        qrels = sets[judgments] if judgments is not None else stored.qrels
        return {"qrels": qrels.read(), "qrels_name": qrels.name,
                "runs": {r.system: r.read() for r in stored.runs},
                "file_names": {r.system: r.name for r in stored.runs}, "notes": notes,
                "conventions": stored.conventions, "judging": judging}
