"""The workspace's tables (SQLAlchemy Core, one schema for SQLite and PostgreSQL) and their migrations.

The ``schema_version`` table holds one row, the version of the schema the database follows. Opening a
workspace upgrades an older database in one transaction, step by step (:data:`MIGRATIONS`), and refuses a
newer one with :class:`~workspace.errors.SchemaTooNew`.

Version 1 kept one row per note save, without saying which revision an author edited. Version 2 adds
``notes.base`` (filled, for existing notes, with the previous revision of the same topic and system, so
each history stays one chain) and the ``events`` table (who renamed, archived or deleted what, and when).
Version 3 adds ``lineage``, the id of the first version of the chain of parents, to ``collections`` and to
``notes``: a note belongs to every version of its collection. The step fills it by following each
collection's parents, and gives each note the lineage of the version it was saved on. Two notes on the same
topic and system saved on different versions before the upgrade did not see each other: both stay current
(two heads, as for two concurrent edits) until someone edits one of them.
Version 4 adds ``note_bases`` (every revision a merge edited, when a save resolves several heads at once;
``notes.base`` keeps the latest of them) and ``markers`` (one row per one-time action, such as seeding an
empty workspace, its unique name inserted in the same transaction as the action's rows).
Version 5 adds ``collections.replaced_by``: the id of the version that amended this one (the same author's
next change in one sitting, see :mod:`workspace.versions`), NULL for every version before the upgrade. A
replaced version is not listed, but still opens by its id.
Version 6 adds ``members``: who holds which role (:mod:`workspace.access`) on each lineage. Collections made
before it have no members: in the login mode only administrators see them until one shares them.
Version 7 adds ``collection_files.judgment_set``: the name of the judgment set a qrels file holds, for a
collection judged by several (the reference in the ``qrels`` row, each other set in a ``judgments`` row);
older rows keep NULL (the set is named after its file). A database of version 7 is refused by a release
that reads an older version, which could not open a collection with ``judgments`` rows.
Version 8 adds the live class (:mod:`workspace.classroom`): ``lessons`` (saved lists of questions),
``class_sessions`` (a class: its code, its questions, which one is shown and whether it is open or revealed)
and ``class_answers`` (one answer per student and question); new tables only.
Version 9 adds ``notes.claims``: the claims a note carries (:mod:`workspace.claims`, a JSON list), NULL for
every note before the upgrade (a note without claims).
Version 10 adds ``presentations`` (:mod:`workspace.presenting`): per lineage, who presents it, the page and
view shown, and a ``revision`` bumped at every change followers must see; a new table only.
Version 11 adds ``ended_sign_ins`` (:mod:`workspace.sign_ins`): the key of each sign-in ended by a sign-out,
kept until no cookie of it can be accepted; a new table only.
Version 12 adds judging (:mod:`workspace.judging`): ``judging_tasks`` (a task on a collection: its method, its
settings, its assessors, and a ``revision`` one more at every judgment), ``judging_assignments`` (the documents
dealt to each assessor), ``judging_judgments`` (one grade per task, document and assessor) and
``judging_adjudications`` (the owner's grade of a document assessors disagree on); new tables only.
Version 13 ties a lesson to its collection: ``lessons.collection`` (the version its questions were made from)
and ``lessons.lineage`` (whose roles decide who sees and teaches it, :mod:`workspace.classroom`), and the same
two columns on ``class_sessions`` (a class started from a collection's lesson stays that collection's: its
teacher's actions need the role at each one). Lessons and classes saved before it name no collection (NULL):
each is its author's alone, as a lesson made from no stored collection is.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (BigInteger, Boolean, Column, Connection, ForeignKey, Index, Integer, MetaData, String,
                        Table, Text, inspect, select, text)

from workspace.errors import SchemaTooNew

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "blobs", "class_answers", "class_sessions", "collection_files",
           "collections", "ensure_schema", "events", "lessons", "markers", "members", "metadata", "note_bases",
           "notes", "presentations", "schema_version", "ended_sign_ins", "judging_tasks", "judging_assignments",
           "judging_judgments", "judging_adjudications"]

SCHEMA_VERSION = 13
"""The schema version this code reads and writes."""

metadata = MetaData()

schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))

blobs = Table(
    "blobs", metadata,
    Column("sha256", String(64), primary_key=True),
    Column("size", BigInteger, nullable=False),
    Column("created_at", String(40), nullable=False),
)

collections = Table(
    "collections", metadata,
    Column("id", String(16), primary_key=True),
    Column("name", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("parent", String(16), ForeignKey("collections.id"), nullable=True),
    Column("created_by", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("archived", Boolean, nullable=False),
    Column("deleted", Boolean, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("systems", Text, nullable=False),  # JSON list of system names, in order
    Column("topics", Integer, nullable=False),
    Column("conventions", Text, nullable=False),  # JSON object
    Column("lineage", String(16), nullable=False, server_default=""),  # id of the first version of the chain
    Index("collections_lineage", "lineage"),
    # ---- schema 5: amended versions ----
    Column("replaced_by", String(16), nullable=True),  # the version that amended this one, else NULL
)

collection_files = Table(
    "collection_files", metadata,
    Column("collection", String(16), ForeignKey("collections.id"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("role", String(16), nullable=False),  # qrels | run | topics | documents | judgments
    Column("name", Text, nullable=False),
    Column("system", Text, nullable=True),
    Column("sha256", String(64), ForeignKey("blobs.sha256"), nullable=False),
    Column("judgment_set", Text, nullable=True),  # the set's name, for qrels and judgments (since version 7)
)

notes = Table(
    "notes", metadata,
    Column("revision", Integer, primary_key=True, autoincrement=True),
    Column("collection", String(16), ForeignKey("collections.id"), nullable=False),
    Column("topic", Text, nullable=False),
    Column("system", Text, nullable=True),
    Column("tag", Text, nullable=False),
    Column("comment", Text, nullable=False),
    Column("author", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("base", Integer, ForeignKey("notes.revision"), nullable=True),
    Column("lineage", String(16), nullable=False, server_default=""),  # the lineage of ``collection``
    Index("notes_key", "collection", "topic", "system"),
    Index("notes_lineage", "lineage", "topic", "system"),
    # ---- schema 9: claims carried by a note ----
    Column("claims", Text, nullable=True),  # JSON list of claims (workspace.claims), NULL for none
)

events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("collection", String(16), ForeignKey("collections.id"), nullable=False),
    Column("action", String(16), nullable=False),  # rename | archive | unarchive | delete | restore | purge | share
    Column("detail", Text, nullable=False),
    Column("author", Text, nullable=False),
    Column("at", String(40), nullable=False),
)

note_bases = Table(
    "note_bases", metadata,
    Column("revision", Integer, ForeignKey("notes.revision"), primary_key=True),
    Column("base", Integer, ForeignKey("notes.revision"), primary_key=True),
    Column("lineage", String(16), nullable=False),
    Index("note_bases_lineage", "lineage"),
)

markers = Table(
    "markers", metadata,
    Column("name", String(64), primary_key=True),
    Column("at", String(40), nullable=False),
)

# ---- the live class (schema 8): lessons, classes and their answers ------------------------------------------
lessons = Table(
    "lessons", metadata,
    Column("id", String(16), primary_key=True),
    Column("name", Text, nullable=False),
    Column("created_by", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("questions", Text, nullable=False),  # JSON (metrics.teaching.lesson)
    # ---- schema 13: the collection a lesson was made from (NULL: none stored, the author's alone) ----
    Column("collection", String(16), ForeignKey("collections.id"), nullable=True),  # the version
    Column("lineage", String(16), nullable=True, index=True),  # its lineage, whose roles decide
)

class_sessions = Table(
    "class_sessions", metadata,
    Column("code", String(8), primary_key=True),
    Column("teacher", String(64), nullable=False),  # SHA-256 of the teacher's key
    Column("lesson", String(16), nullable=True),  # the saved lesson it was started from
    Column("questions", Text, nullable=False),  # JSON, fixed when the class starts
    Column("size", Integer, nullable=False),  # how many questions
    Column("current", Integer, nullable=False),  # the question shown (0-based); -1 before the first
    Column("phase", String(16), nullable=False),  # waiting | open | revealed
    Column("closed", Boolean, nullable=False),
    Column("revision", Integer, nullable=False),  # one more at every change the students must see
    Column("created_by", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    # ---- schema 13: the collection its questions came from (NULL: none stored) ----
    Column("collection", String(16), ForeignKey("collections.id"), nullable=True),
    Column("lineage", String(16), nullable=True),
)

class_answers = Table(
    "class_answers", metadata,
    Column("code", String(8), ForeignKey("class_sessions.code"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("student", String(16), primary_key=True),  # a random token per browser session
    Column("nickname", Text, nullable=True),
    Column("answer", Text, nullable=False),
    Column("answered_at", String(40), nullable=False),
)


_SINCE_13 = ("collection", "lineage")  # the columns of lessons and class_sessions that version 13 adds


def _v7_to_v8(conn: Connection) -> None:
    """The live class's tables as version 8 made them (new tables only: nothing else changes)."""
    for table in (lessons, class_sessions):
        Table(table.name, MetaData(), *(c._copy() for c in table.columns if c.name not in _SINCE_13)).create(conn)
    class_answers.create(conn)


def _v12_to_v13(conn: Connection) -> None:
    """A lesson's and a class's collection: new, nullable columns (rows before it name none: NULL)."""
    for table in ("lessons", "class_sessions"):
        conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {_SINCE_13[0]} VARCHAR(16) REFERENCES collections(id)"))
        conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {_SINCE_13[1]} VARCHAR(16)"))
    conn.execute(text("CREATE INDEX ix_lessons_lineage ON lessons (lineage)"))
# ---- end of the live class's tables ---------------------------------------------------------------------------


# ---- following a presenter (schema 10): one presentation per lineage ---------------------------------------
presentations = Table(
    "presentations", metadata,
    Column("lineage", String(16), ForeignKey("collections.id"), primary_key=True),  # every version of it
    Column("presenter", Text, nullable=False),  # who presents (the author recorded)
    Column("session", String(16), nullable=False),  # the presenting browser session's random token
    Column("page", String(64), nullable=False),  # the page's address (its url_path)
    Column("params", Text, nullable=False),  # JSON object: the view's query parameters
    Column("active", Boolean, nullable=False),
    Column("revision", Integer, nullable=False),  # one more at every change a follower must see
    Column("updated_at", String(40), nullable=False),
)


def _v9_to_v10(conn: Connection) -> None:
    """The presentations' table (new table only: nothing else changes)."""
    presentations.create(conn)
# ---- end of following a presenter -----------------------------------------------------------------------------


# ---- sign-ins ended by a sign-out (schema 11) -------------------------------------------------------------------
ended_sign_ins = Table(
    "ended_sign_ins", metadata,
    Column("key", String(64), primary_key=True),  # workspace.sign_ins.key_of: a hash, never the claims
    Column("ended_at", String(40), nullable=False),
    Column("expires_at", String(40), nullable=False, index=True),  # past it no cookie of it is accepted
)


def _v10_to_v11(conn: Connection) -> None:
    """The ended sign-ins' table (new table only: nothing else changes)."""
    ended_sign_ins.create(conn)
# ---- end of ended sign-ins ---------------------------------------------------------------------------------------


# ---- judging (schema 12): tasks, the documents dealt, the judgments and adjudications ---------------------------
judging_tasks = Table(
    "judging_tasks", metadata,
    Column("id", String(16), primary_key=True),
    Column("collection", String(16), ForeignKey("collections.id"), nullable=False),  # the version it started on
    Column("lineage", String(16), nullable=False),
    Column("name", Text, nullable=False),
    Column("kind", String(8), nullable=False),  # team | class
    Column("code", String(8), nullable=True, unique=True),  # a class's code (workspace.classroom's alphabet)
    Column("method", String(16), nullable=False),
    Column("settings", Text, nullable=False),  # JSON: scale, budget, depth, overlap, topics, options, seed...
    Column("assessors", Text, nullable=False),  # JSON list of identities (empty: whoever may judge)
    Column("created_by", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("closed", Boolean, nullable=False),
    Column("revision", Integer, nullable=False),  # one more at every judgment, adjudication or close
    Index("judging_tasks_lineage", "lineage"),
)

judging_assignments = Table(
    "judging_assignments", metadata,
    Column("task", String(16), ForeignKey("judging_tasks.id"), primary_key=True),
    Column("topic", Text, primary_key=True),
    Column("docid", Text, primary_key=True),
    Column("slot", Integer, primary_key=True),  # 0: the first assessor; 1: the second (overlap)
    Column("assessor", Text, nullable=False),
    Column("position", Integer, nullable=False),  # the order of the deal within the task
    Column("overlap", Boolean, nullable=False),  # slot 0: drawn for a second assessor
    Column("why", Text, nullable=False),
    Column("dealt_at", String(40), nullable=False),
    Index("judging_assignments_assessor", "task", "assessor"),
)

judging_judgments = Table(
    "judging_judgments", metadata,
    Column("task", String(16), ForeignKey("judging_tasks.id"), primary_key=True),
    Column("topic", Text, primary_key=True),
    Column("docid", Text, primary_key=True),
    Column("assessor", Text, primary_key=True),
    Column("grade", Integer, nullable=True),  # NULL: skipped or taken back
    Column("skipped", Boolean, nullable=False),
    Column("judged_at", String(40), nullable=False),
    Column("seq", Integer, nullable=False),  # the task's revision when it last changed
    Index("judging_judgments_seq", "task", "seq"),
)

judging_adjudications = Table(
    "judging_adjudications", metadata,
    Column("task", String(16), ForeignKey("judging_tasks.id"), primary_key=True),
    Column("topic", Text, primary_key=True),
    Column("docid", Text, primary_key=True),
    Column("grade", Integer, nullable=False),
    Column("decided_by", Text, nullable=False),
    Column("decided_at", String(40), nullable=False),
    Column("seq", Integer, nullable=False),
)


def _v11_to_v12(conn: Connection) -> None:
    """Judging's tables (new tables only: nothing else changes)."""
    for table in (judging_tasks, judging_assignments, judging_judgments, judging_adjudications):
        table.create(conn)
# ---- end of judging ---------------------------------------------------------------------------------------------


# ---- access control (version 6) ---------------------------------------------------------------------------
members = Table(
    "members", metadata,
    Column("lineage", String(16), ForeignKey("collections.id"), primary_key=True),  # every version of it
    Column("identity", String(256), primary_key=True),  # workspace.access.identity(...), or "*": everyone
    Column("role", String(16), nullable=False),  # viewer | assessor | editor | owner
)


def _v5_to_v6(conn: Connection) -> None:
    members.create(conn)
# ---- end of access control ----------------------------------------------------------------------------------


def _v1_to_v2(conn: Connection) -> None:
    conn.execute(text("ALTER TABLE notes ADD COLUMN base INTEGER REFERENCES notes(revision)"))
    conn.execute(text(
        "UPDATE notes SET base = (SELECT MAX(older.revision) FROM notes older"
        " WHERE older.collection = notes.collection AND older.topic = notes.topic"
        " AND (older.system = notes.system OR (older.system IS NULL AND notes.system IS NULL))"
        " AND older.revision < notes.revision)"))
    events.create(conn)


def _roots(parents: dict[str, str | None]) -> dict[str, str]:
    """``{id: lineage}``: the first version reached by following ``parents`` (a parent that is not in
    ``parents`` ends the chain, as would a cycle). Each id is visited once."""
    roots: dict[str, str] = {}
    for cid in parents:
        chain, seen, at = [], set(), cid
        while at not in roots and parents.get(at) in parents and at not in seen:
            chain.append(at)
            seen.add(at)
            at = parents[at]
        root = roots.get(at, at)
        for member in chain + [at]:
            roots[member] = root
    return roots


def _v2_to_v3(conn: Connection) -> None:
    for table in ("collections", "notes"):
        conn.execute(text(f"ALTER TABLE {table} ADD COLUMN lineage VARCHAR(16) NOT NULL DEFAULT ''"))
    roots = _roots(dict(conn.execute(text("SELECT id, parent FROM collections")).all()))
    if roots:
        conn.execute(text("UPDATE collections SET lineage = :root WHERE id = :id"),
                     [{"id": cid, "root": root} for cid, root in roots.items()])
    conn.execute(text("UPDATE notes SET lineage = (SELECT collections.lineage FROM collections"
                      " WHERE collections.id = notes.collection)"))
    conn.execute(text("CREATE INDEX collections_lineage ON collections (lineage)"))
    conn.execute(text("CREATE INDEX notes_lineage ON notes (lineage, topic, system)"))


def _v3_to_v4(conn: Connection) -> None:
    note_bases.create(conn)
    markers.create(conn)


# ---- schema 5: amended versions ----------------------------------------------------------------------------
def _v4_to_v5(conn: Connection) -> None:
    """``collections.replaced_by``, NULL for every existing version (none was amended before)."""
    conn.execute(text("ALTER TABLE collections ADD COLUMN replaced_by VARCHAR(16)"))


# ---- schema 7: several named judgment sets per collection ----------------------------------------------------
def _v6_to_v7(conn: Connection) -> None:
    """Name the judgment set of each qrels file: a new, nullable column (existing rows keep NULL)."""
    conn.execute(text("ALTER TABLE collection_files ADD COLUMN judgment_set TEXT"))


# ---- schema 9: claims carried by a note ---------------------------------------------------------------------
def _v8_to_v9(conn: Connection) -> None:
    """``notes.claims``, NULL (no claim) for every existing note."""
    conn.execute(text("ALTER TABLE notes ADD COLUMN claims TEXT"))


MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5,
                                                       5: _v5_to_v6, 6: _v6_to_v7,
                                                       7: _v7_to_v8,
                                                       8: _v8_to_v9,
                                                       9: _v9_to_v10,
                                                       10: _v10_to_v11, 11: _v11_to_v12,
                                                       12: _v12_to_v13}
"""``{version: step}``: the step upgrades a database of that version to the next, inside a transaction."""


def ensure_schema(conn: Connection, where: str) -> int:
    """Create the tables in an empty database, or upgrade an older one, inside the caller's transaction.

    Parameters
    ----------
    conn : Connection
        In a transaction that holds the database's write lock (SQLite ``BEGIN IMMEDIATE``; an advisory
        lock on PostgreSQL), so two processes opening one new workspace do not both create it.
    where : str
        The database, for messages.

    Returns
    -------
    int
        The version the database had before (0 for a new one).

    Raises
    ------
    SchemaTooNew
        The database follows a newer schema than :data:`SCHEMA_VERSION`.
    """
    if not inspect(conn).has_table("schema_version"):
        metadata.create_all(conn)
        conn.execute(schema_version.insert().values(version=SCHEMA_VERSION))
        return 0
    found = conn.execute(select(schema_version.c.version)).scalar()
    if found is None:
        raise SchemaTooNew(f"{where}: schema_version is empty; expected one row with a version up to "
                           f"{SCHEMA_VERSION}")
    if found > SCHEMA_VERSION:
        raise SchemaTooNew(f"{where}: workspace schema version {found} is newer than version {SCHEMA_VERSION} "
                           f"that this rankscope reads; upgrade rankscope")
    version = found
    while version < SCHEMA_VERSION:
        MIGRATIONS[version](conn)
        version += 1
    if version != found:
        conn.execute(schema_version.update().values(version=version))
    return found
