"""Judging in the workspace: tasks, the documents dealt to each assessor, their judgments, the owner's
adjudications, and the judgment sets they make.

A **task** belongs to one version of a collection (the one it was started on: its runs, its reference judgments,
its texts) and to its lineage. It names a way of choosing what to judge (:data:`metrics.judgments.pooling.METHODS`
and its options), the topics, the assessors (identities; none: whoever may judge), the share of documents
given to two assessors, the budget (documents), the grade scale (:class:`metrics.judgments.assessors.GradeScale`)
and the rule that merges two assessors' grades. Starting one is the ``assign`` action of :mod:`workspace.access`
(an editor); an owner who starts one gives each listed assessor without a role the ``assessor`` role.

**Judging** is the ``judge`` action (an assessor) on a document dealt to that person (:mod:`workspace.dealing`
deals them). Each judgment is committed when it is made, one row per task, document and assessor: made again
with the same grade it changes nothing, with another grade it replaces the first (so a request sent twice, or
sent again after the server was killed, is never counted twice). A skipped document keeps a row without a
grade; a judgment taken back loses its grade. Every change adds one to the task's ``revision`` (the row is
locked for it) and stamps the row with it (``seq``): a page polls one number, a process that keeps a method in
memory reads only the rows past the revision it has seen.

**Adjudicating** (an owner) gives a document two assessors graded differently the grade that counts.
**The sets** (:func:`metrics.judgments.assessors.task_sets`): merged, adjudicated and one per assessor;
:meth:`Judging.save_sets` makes them a new version of the collection whose reference is the adjudicated set (or
the merged one), the collection's own judgments kept as a set under their name, so that every page, the
judges page and the claims read them.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite

from metrics.errors import RankscopeError
from workspace import audit, members as member_rows
from workspace.access import identity, role_of
from workspace.checks import ID, line, new_id, now
from workspace.engine import transaction
from workspace.errors import WorkspaceError

if TYPE_CHECKING:
    import pandas as pd

    from metrics.judgments.assessors import GradeScale
    from workspace.model import CollectionInfo

__all__ = ["KINDS", "MAX_ASSESSORS", "Judging", "TaskClosed", "TaskInfo", "UnknownTask", "listed"]

KINDS = ("team", "class")
MAX_ASSESSORS = 200
MAX_BUDGET = 1_000_000
MAX_DEPTH = 10_000
MAX_TOPICS = 100_000
STINT = 10
"""Documents an assessor judges on one topic in a row, before the method's best document anywhere."""


class UnknownTask(WorkspaceError):
    """A task id that names no task the person may see."""


class TaskClosed(WorkspaceError):
    """A judgment of a task that is closed."""


@dataclass(frozen=True)
class TaskInfo:
    """A judging task as stored (see the module's notes); ``settings`` is its JSON as a dict."""

    id: str
    collection: str
    lineage: str
    name: str
    kind: str
    code: str | None
    method: str
    settings: dict = field(repr=False)
    assessors: tuple[str, ...]
    created_by: str
    created_at: str
    closed: bool
    revision: int

    @property
    def scale(self) -> "GradeScale":
        from metrics.judgments.assessors import GradeScale

        grades = self.settings["scale"]
        return GradeScale(tuple(g for g, _ in grades), tuple(label for _, label in grades))

    @property
    def budget(self) -> int | None:
        return self.settings.get("budget")

    @property
    def overlap(self) -> float:
        return float(self.settings.get("overlap", 0.0))

    @property
    def rule(self) -> str:
        return self.settings.get("rule", "lower")

    @property
    def topics(self) -> tuple[str, ...] | None:
        found = self.settings.get("topics")
        return None if found is None else tuple(found)

    def may_judge(self, who: str) -> bool:
        """Whether ``who`` is one of the task's assessors (any person, for a task that names none)."""
        return not self.assessors or identity(who) in self.assessors


def _task(row) -> TaskInfo:
    try:
        settings, assessors = json.loads(row.settings), json.loads(row.assessors)
    except ValueError:
        raise WorkspaceError(f"judging task {row.id}: expected its settings as JSON, found text that is not") from None
    return TaskInfo(row.id, row.collection, row.lineage, row.name, row.kind, row.code, row.method, settings,
                    tuple(assessors), row.created_by, row.created_at, bool(row.closed), row.revision)


def listed(text: str | None) -> list[str]:
    """Names written one after another, comma-separated (the assessors, the topics of a task): each stripped,
    the empty ones left out. How the command line and the judges page read what a person typed.

    >>> listed(" ana@x, bea@y,,")
    ['ana@x', 'bea@y']
    """
    return [piece.strip() for piece in (text or "").split(",") if piece.strip()]


def task_id(tid: object) -> str:
    """A task id checked against the id pattern before any query, or :class:`UnknownTask`."""
    if not isinstance(tid, str) or not ID.match(tid):
        raise UnknownTask(f"unknown judging task {str(tid)[:40]!r}: expected 16 characters A-Z a-z 0-9 _ -")
    return tid


def _dialect(conn):
    return postgresql if conn.dialect.name == "postgresql" else sqlite


class Judging:
    """The judging tasks of one :class:`~workspace.Workspace`, as the person it acts for may use them."""

    def __init__(self, ws) -> None:
        self._ws = ws
        self._engine, self._where, self._actor = ws._engine, ws.location, ws.actor

    def _tx(self, read: bool = False):
        return transaction(self._engine, self._where, read=read)

    # ---- tasks ---------------------------------------------------------------------------------------------
    def start(self, cid: str, *, method: str = "decide", name: str | None = None, assessors: Iterable[str] = (),
              overlap: float = 0.0, budget: int | None = None, depth: int = 100,
              topics: Iterable[str] | None = None, scale: "GradeScale | str | None" = None, rule: str = "lower",
              options: Mapping[str, Any] | None = None, author: str | None = None) -> TaskInfo:
        """Start a judging task on version ``cid``.

        Parameters
        ----------
        method : str, default="decide"
            A name of :data:`metrics.judgments.pooling.METHODS`; ``options`` its options (checked).
        name : str, optional
            Names the task's judgment sets (``<name>:merged``); default ``judging N``.
        assessors : iterable of str
            Identities; none: whoever may judge.
        overlap : float, default=0.0
            The share of documents given to a second assessor (two assessors at least).
        budget : int, optional
            The most documents to deal (a second assessor's copy not counted); None: the method's every one.
        depth : int, default=100
            How deep the runs are read.
        topics : iterable of str, optional
            The topics to judge (default every topic of the runs).
        scale : GradeScale or str, optional
            The grades and their labels (default :func:`metrics.judgments.assessors.scale_of` the reference's).
        rule : str, default="lower"
            How two assessors' different grades merge (:data:`metrics.judgments.assessors.MERGES`).

        Raises
        ------
        workspace.access.Forbidden
            A role below editor.
        metrics.errors.ValidationError
            An option, a topic, a pair or a scale the method or the collection refuses.
        """
        from metrics.judgments.assessors import MERGES, GradeScale, set_names
        from metrics.judgments.pooling import METHODS
        from workspace import kept_methods

        who = self._ws._who(author)
        if method not in METHODS:
            raise WorkspaceError(f"method: expected one of {', '.join(METHODS)}, found {str(method)[:40]!r}")
        given = dict(options or {})
        unknown = sorted(set(given) - {o.name for o in METHODS[method].options})
        if unknown:
            raise WorkspaceError(f"options of {method}: expected "
                                 f"{', '.join(o.name for o in METHODS[method].options) or 'none'}, found {unknown[0]!r}")
        settings_of = METHODS[method].settings(given)  # checked against each option's rule
        people = list(dict.fromkeys(identity(line(a, "assessor")) for a in assessors))
        if len(people) > MAX_ASSESSORS:
            raise WorkspaceError(f"assessors: expected at most {MAX_ASSESSORS}, found {len(people)}")
        if isinstance(overlap, bool) or not isinstance(overlap, (int, float)) or not 0 <= overlap <= 1:
            raise WorkspaceError(f"overlap: expected a share from 0 to 1, found {overlap!r}")
        if overlap > 0 and len(people) == 1:
            raise WorkspaceError("overlap: expected two assessors or more to judge a document twice, found one")
        for what, value, top in (("budget", budget, MAX_BUDGET), ("depth", depth, MAX_DEPTH)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top):
                raise WorkspaceError(f"{what}: expected a whole number from 1 to {top:,}, found {value!r}")
        if rule not in MERGES:
            raise WorkspaceError(f"rule: expected one of {', '.join(MERGES)}, found {str(rule)[:40]!r}")
        chosen = None if topics is None else list(dict.fromkeys(str(t) for t in topics))
        if chosen is not None and not 0 < len(chosen) <= MAX_TOPICS:
            raise WorkspaceError(f"topics: expected 1 to {MAX_TOPICS:,} topics, found {len(chosen)}")
        with self._tx(read=True) as conn:
            row = member_rows.row(conn, self._actor, cid, "assign")
            count = conn.execute(select(func.count()).select_from(_tasks()).where(
                _tasks().c.lineage == row.lineage)).scalar_one()
        name = line(name if name is not None else f"judging {count + 1}", "task name", 120)
        if isinstance(scale, str):
            scale = GradeScale.parse(scale)
        scale = scale or self.scale_of(cid)
        set_names(name, people)  # every set can be named
        settings = {"scale": [[g, label] for g, label in zip(scale.grades, scale.labels)], "budget": budget,
                    "depth": depth, "overlap": float(overlap), "topics": chosen, "options": given, "rule": rule,
                    "seed": secrets.token_hex(8), "stint": STINT}
        info = TaskInfo(new_id(), cid, row.lineage, name, "team", None, method, settings, tuple(people), who, now(),
                        False, 0)
        kept_methods.check(self._ws, info, settings_of)  # the method made once: pairs, topics and options checked
        self._insert(info)
        if people and self._actor is not None and self._actor.checked and "share" in self._ws.allowed(cid):
            members = self._ws.members(cid)
            for person in people:
                if role_of(members, person) is None:
                    self._ws.share(cid, person, "assessor")
        return info

    def scale_of(self, cid: str) -> "GradeScale":
        """The grade scale a task on ``cid`` has unless given one: the grades of its reference judgments, 0 to the
        highest, with their usual labels (:func:`metrics.judgments.assessors.scale_of`).

        Raises
        ------
        metrics.errors.ValidationError
            A grade above 9 (such a collection needs a scale given).
        """
        from metrics.judgments.assessors import scale_of

        stored = self._ws.load(cid)
        qrels = self._ws.parsed_qrels(stored.qrels.sha256)
        return scale_of(qrels.table["relevance"].to_pylist() if qrels is not None else [0, 1])

    def _insert(self, info: TaskInfo) -> None:
        values = {"id": info.id, "collection": info.collection, "lineage": info.lineage, "name": info.name,
                  "kind": info.kind, "code": info.code, "method": info.method, "settings": json.dumps(info.settings),
                  "assessors": json.dumps(list(info.assessors)), "created_by": info.created_by,
                  "created_at": info.created_at, "closed": False, "revision": 0}
        with self._tx() as conn:
            conn.execute(_tasks().insert().values(**values))
            audit.record(conn, info.collection, "judging", f"started {info.name} ({info.method})", info.created_by)

    def tasks(self, cid: str) -> list[TaskInfo]:
        """The tasks of ``cid``'s lineage (on any of its versions), newest first."""
        with self._tx(read=True) as conn:
            lineage = member_rows.row(conn, self._actor, cid, "view").lineage
            rows = conn.execute(select(_tasks()).where(_tasks().c.lineage == lineage, _tasks().c.kind == "team")
                                .order_by(_tasks().c.created_at.desc(), _tasks().c.id)).all()
        return [_task(r) for r in rows]

    def task(self, tid: str, action: str = "view") -> TaskInfo:
        """One task, if the person may do ``action`` with its collection (else the one :class:`UnknownTask` line,
        whether it exists or not)."""
        with self._tx(read=True) as conn:
            return self._task_row(conn, tid, action)

    def _task_row(self, conn, tid: str, action: str, *, lock: bool = False) -> TaskInfo:
        query = select(_tasks()).where(_tasks().c.id == task_id(tid))
        row = conn.execute(query.with_for_update() if lock else query).first()
        if row is None:
            raise UnknownTask(f"no judging task {tid!r}: it does not exist or is not shared with you")
        try:  # a task on a collection the person may not see is not there for them
            member_rows.row(conn, self._actor, row.collection, "view")
        except RankscopeError:
            raise UnknownTask(f"no judging task {tid!r}: it does not exist or is not shared with you") from None
        member_rows.row(conn, self._actor, row.collection, action)  # Forbidden names the role needed
        return _task(row)

    def revision(self, tid: str) -> int:
        """The task's revision (one row, after the access check): what a page polls."""
        return self.task(tid).revision

    def close(self, tid: str, *, author: str | None = None) -> TaskInfo:
        """Close the task: no more documents are dealt or judged; its judgments stay."""
        who = self._ws._who(author)
        with self._tx() as conn:
            info = self._task_row(conn, tid, "assign", lock=True)
            if not info.closed:
                conn.execute(_tasks().update().where(_tasks().c.id == info.id)
                             .values(closed=True, revision=info.revision + 1))
                audit.record(conn, info.collection, "judging", f"closed {info.name}", who)
        return self.task(tid)

    # ---- judging -------------------------------------------------------------------------------------------
    def judge(self, tid: str, topic: str, docid: str, grade: int | None, *, assessor: str | None = None,
              skipped: bool = False) -> bool:
        """Record the assessor's grade of a document dealt to them (None: take it back; ``skipped``: they could
        not judge it). Returns whether anything changed (the same grade again changes nothing).

        Raises
        ------
        TaskClosed
        WorkspaceError
            A document not dealt to this assessor, or a grade off the task's scale.
        """
        from workspace.schema import judging_assignments as ja
        from workspace.schema import judging_judgments as jj

        who = identity(self._ws._who(assessor, "assessor"))
        with self._tx() as conn:
            info = self._task_row(conn, tid, "judge", lock=True)
            if info.closed:
                raise TaskClosed(f"judging task {info.name} is closed")
            if not info.may_judge(who):
                raise WorkspaceError(f"judging task {info.name}: expected one of its assessors, found {who}")
            if grade is not None:
                grade = _scale_checked(info, grade)
            dealt = conn.execute(select(ja.c.slot).where(ja.c.task == info.id, ja.c.topic == topic,
                                                         ja.c.docid == docid, ja.c.assessor == who)).first()
            if dealt is None:
                raise WorkspaceError(f"judging task {info.name}: expected a document dealt to {who}, found "
                                     f"{str(docid)[:80]!r} of topic {str(topic)[:40]!r}")
            before = conn.execute(select(jj.c.grade, jj.c.skipped).where(
                jj.c.task == info.id, jj.c.topic == topic, jj.c.docid == docid, jj.c.assessor == who)).first()
            skipped = bool(skipped) and grade is None
            if before is not None and (before.grade, bool(before.skipped)) == (grade, skipped):
                return False
            if before is None and grade is None and not skipped:
                return False
            revision = self._bump(conn, info)
            values = {"grade": grade, "skipped": skipped, "judged_at": now(), "seq": revision}
            conn.execute(_dialect(conn).insert(jj).values(task=info.id, topic=topic, docid=docid, assessor=who,
                                                          **values)
                         .on_conflict_do_update(index_elements=[jj.c.task, jj.c.topic, jj.c.docid, jj.c.assessor],
                                                set_=values))
        return True

    @staticmethod
    def _bump(conn, info: TaskInfo) -> int:
        revision = info.revision + 1
        conn.execute(_tasks().update().where(_tasks().c.id == info.id).values(revision=revision))
        return revision

    def adjudicate(self, tid: str, topic: str, docid: str, grade: int | None, *, author: str | None = None) -> None:
        """The grade that counts for a document assessors graded differently (None: the adjudication taken back)."""
        from workspace.schema import judging_adjudications as jd

        who = self._ws._who(author)
        with self._tx() as conn:
            info = self._task_row(conn, tid, "adjudicate", lock=True)
            if grade is None:
                conn.execute(jd.delete().where(jd.c.task == info.id, jd.c.topic == topic, jd.c.docid == docid))
                self._bump(conn, info)
                return
            grade = _scale_checked(info, grade)
            revision = self._bump(conn, info)
            values = {"grade": grade, "decided_by": who, "decided_at": now(), "seq": revision}
            conn.execute(_dialect(conn).insert(jd).values(task=info.id, topic=topic, docid=docid, **values)
                         .on_conflict_do_update(index_elements=[jd.c.task, jd.c.topic, jd.c.docid], set_=values))

    # ---- reading -------------------------------------------------------------------------------------------
    def judgments(self, tid: str, *, since: int = 0) -> "pd.DataFrame":
        """Every judgment row of the task changed after revision ``since``: ``topic``, ``docid``, ``assessor``,
        ``grade`` (NaN: skipped or taken back), ``skipped``, ``judged_at``, ``seq``, by topic, document and
        assessor."""
        import pandas as pd

        from workspace.schema import judging_judgments as jj

        with self._tx(read=True) as conn:
            info = self._task_row(conn, tid, "view")
            rows = conn.execute(select(jj.c.topic, jj.c.docid, jj.c.assessor, jj.c.grade, jj.c.skipped,
                                       jj.c.judged_at, jj.c.seq)
                                .where(jj.c.task == info.id, jj.c.seq > since)
                                .order_by(jj.c.topic, jj.c.docid, jj.c.assessor)).all()
        frame = pd.DataFrame(rows, columns=["topic", "docid", "assessor", "grade", "skipped", "judged_at", "seq"])
        return frame.astype({"grade": "float64", "skipped": bool})

    def adjudications(self, tid: str) -> "pd.DataFrame":
        """The owner's grades: ``topic``, ``docid``, ``grade``, ``decided_by``, ``decided_at``, ``seq``."""
        import pandas as pd

        from workspace.schema import judging_adjudications as jd

        with self._tx(read=True) as conn:
            info = self._task_row(conn, tid, "view")
            rows = conn.execute(select(jd.c.topic, jd.c.docid, jd.c.grade, jd.c.decided_by, jd.c.decided_at, jd.c.seq)
                                .where(jd.c.task == info.id).order_by(jd.c.topic, jd.c.docid)).all()
        return pd.DataFrame(rows, columns=["topic", "docid", "grade", "decided_by", "decided_at", "seq"])

    def dealt(self, tid: str, assessor: str | None = None) -> "pd.DataFrame":
        """The documents dealt (to ``assessor`` only, when given), in the order dealt: ``position``, ``topic``,
        ``docid``, ``slot``, ``assessor``, ``why``, with the assessor's ``grade`` (NaN: none yet), ``skipped``
        and ``judged_at``."""
        import pandas as pd

        from workspace.schema import judging_assignments as ja
        from workspace.schema import judging_judgments as jj

        with self._tx(read=True) as conn:
            info = self._task_row(conn, tid, "view" if assessor is None else "judge")
            query = (select(ja.c.position, ja.c.topic, ja.c.docid, ja.c.slot, ja.c.assessor, ja.c.why, jj.c.grade,
                            jj.c.skipped, jj.c.judged_at)
                     .select_from(ja.outerjoin(jj, (jj.c.task == ja.c.task) & (jj.c.topic == ja.c.topic)
                                               & (jj.c.docid == ja.c.docid) & (jj.c.assessor == ja.c.assessor)))
                     .where(ja.c.task == info.id))
            if assessor is not None:
                query = query.where(ja.c.assessor == identity(assessor))
            rows = conn.execute(query.order_by(ja.c.position, ja.c.slot)).all()
        frame = pd.DataFrame(rows, columns=["position", "topic", "docid", "slot", "assessor", "why", "grade", "skipped",
                                            "judged_at"])
        return frame.astype({"grade": "float64"}).assign(skipped=frame["skipped"].fillna(False).astype(bool))

    def counts(self, tid: str) -> dict[str, int]:
        """``dealt`` (documents dealt to a first assessor), ``documents`` (documents with a grade) and
        ``judgments`` (grades, a document judged twice counted twice): three counts, one query each."""
        from workspace.schema import judging_assignments as ja
        from workspace.schema import judging_judgments as jj

        with self._tx(read=True) as conn:
            info = self._task_row(conn, tid, "view")
            graded = (jj.c.task == info.id) & jj.c.grade.is_not(None)
            dealt = conn.execute(select(func.count()).select_from(ja).where(ja.c.task == info.id, ja.c.slot == 0))
            judged = conn.execute(select(func.count()).select_from(jj).where(graded))
            documents = conn.execute(select(func.count()).select_from(
                select(jj.c.topic, jj.c.docid).where(graded).distinct().subquery()))
            return {"dealt": dealt.scalar_one(), "judgments": judged.scalar_one(), "documents": documents.scalar_one()}

    def sets(self, tid: str) -> dict:
        """The task's judgment sets (:func:`metrics.judgments.assessors.task_sets`), the collection's reference
        judgments in the merged and adjudicated ones: ``{name: Qrels}``."""
        from metrics.judgments.assessors import task_sets

        info = self.task(tid)
        judged = self.judgments(tid)
        stored = self._ws.load(info.collection)
        reference = self._ws.parsed_qrels(stored.qrels.sha256)
        return task_sets(judged, self.adjudications(tid), reference, task=info.name, rule=info.rule)

    def save_sets(self, tid: str, *, author: str | None = None) -> "CollectionInfo":
        """A new version of the task's collection (after its newest version) holding the task's sets: the
        adjudicated set (else the merged one) as the reference, the collection's reference kept under its name,
        the other sets of the task after it, and every other set of that version kept (those of an earlier save
        of this task replaced).

        Raises
        ------
        WorkspaceError
            Nothing judged yet, or a role below editor.
        """
        from metrics.io.writers import qrels_bytes
        from metrics.judgments.assessors import ADJUDICATED, MERGED, SEPARATOR

        who = self._ws._who(author)
        info = self.task(tid, "assign")
        made = self.sets(tid)
        if not made:
            raise WorkspaceError(f"judging task {info.name}: expected a judgment or more, found none yet")
        newest = self._ws.lineage(info.collection)[-1]
        stored = self._ws.load(newest.id)
        prefix = f"{info.name}{SEPARATOR}"
        first = next(n for n in (f"{prefix}{ADJUDICATED}", f"{prefix}{MERGED}") if n in made)
        kept = [(n, f) for n, f in stored.judgment_sets if not n.startswith(prefix)]
        files = {n: (f"{n}.qrels", qrels_bytes(q)) for n, q in made.items()}
        others = [(n, f) for n, f in kept] + [(n, files[n]) for n in made if n != first]
        return self._ws.new_version(newest.id, qrels=files[first], reference=first, judgments=others, author=who)


def _tasks():
    from workspace.schema import judging_tasks

    return judging_tasks


def _scale_checked(info: TaskInfo, grade: object) -> int:
    try:
        return info.scale.check(grade)
    except RankscopeError as err:
        raise WorkspaceError(f"judging task {info.name}: {err}") from None
