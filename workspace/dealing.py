"""Which document an assessor judges next: the task's method kept in memory by each server process, following
the judgments in the store, and the deal written to the store.

Each process keeps the method of a task (:mod:`workspace.kept_methods`) and brings it up to date before it
answers, from the judgment rows past the revision it has seen (:mod:`workspace.judging`): the method sees each
document at its merged grade (:func:`metrics.judgments.assessors.merged`, the task's rule, an adjudication
deciding), so several processes serving one task's assessors agree.

The next document of an assessor (:func:`next_for`), in this order:

1. a document dealt to them and not judged yet (after a reload, or a server killed and started again);
2. a document another assessor was dealt and that was drawn for a second assessor
   (:func:`metrics.judgments.assessors.overlapped`), their current topic first;
3. while the task's budget lasts, the method's best document not dealt yet: on the assessor's current topic
   while the method still proposes one there and they have judged fewer than the task's ``stint`` (10) of it in
   a row, else the method's best on any of the task's topics.

A deal is one row (task, topic, document, slot) inserted only if it is not there: two processes that pick the
same document at once deal it once, and the one that lost picks again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import func, select

from metrics.judgments.decide import EFFECT_DECIMALS
from workspace.checks import now
from workspace.errors import WorkspaceError
from workspace.kept_methods import Kept, kept_of

if TYPE_CHECKING:
    from metrics.judgments.decide import Decision
    from workspace.judging import TaskInfo

__all__ = ["Deal", "conclusion", "decision_for", "locked", "next_for"]

TRIES = 20


@dataclass(frozen=True)
class Deal:
    """A document dealt to an assessor: its topic, id, slot (0, or 1 for a second assessor) and why."""

    topic: str
    docid: str
    slot: int
    why: str


def _follow(ws, info: "TaskInfo", kept: Kept) -> None:
    """Bring the method (and the decision, when kept) up to the judgments in the store (under ``kept.lock``)."""
    from metrics.judgments.assessors import merged
    from workspace.judging import Judging
    from workspace.schema import judging_assignments as ja

    import pandas as pd

    judging = Judging(ws)
    with judging._tx(read=True) as conn:
        positions = conn.execute(select(ja.c.topic, ja.c.docid, ja.c.position).where(
            ja.c.task == info.id, ja.c.slot == 0, ja.c.position > kept.dealt_up_to)).all()
    for topic, docid, position in positions:
        kept.dealt.add((topic, docid))
        kept.dealt_up_to = max(kept.dealt_up_to, position)
    if info.revision == kept.seen:
        return
    rows = judging.judgments(info.id, since=kept.seen)
    decided = {(t, d): int(g) for t, d, g in judging.adjudications(info.id)[["topic", "docid", "grade"]]
               .itertuples(index=False)}
    touched = {(t, d) for t, d in zip(rows["topic"], rows["docid"])}
    touched |= {k for k in set(decided) | set(kept.decided) if decided.get(k) != kept.decided.get(k)}
    for t, d, who, grade in rows[["topic", "docid", "assessor", "grade"]].itertuples(index=False):
        kept.said.setdefault((t, d), {})[who] = None if grade != grade else int(grade)
    kept.decided = decided
    frame = pd.DataFrame([(t, d, who, g) for (t, d) in touched for who, g in kept.said.get((t, d), {}).items()],
                         columns=["topic", "docid", "assessor", "grade"])
    adjudicated = pd.DataFrame([(t, d, decided[(t, d)]) for (t, d) in touched if (t, d) in decided],
                               columns=["topic", "docid", "grade"])
    now_graded = {(t, d): int(g) for t, d, g in merged(frame, adjudicated, rule=info.rule)[["topic", "docid", "grade"]]
                  .itertuples(index=False)}
    for key in sorted(touched):
        grade = now_graded.get(key, -1)
        if kept.grades.get(key, -1) == grade:
            continue
        kept.grades[key] = grade
        for follower in {id(p): p for p in (kept.proposer, kept.decision) if p is not None}.values():
            follower.judge(key[0], key[1], grade)
    kept.seen = max([info.revision, *rows["seq"].astype(int).tolist()])


def decision_for(ws, info: "TaskInfo") -> "Decision":
    """The decision between the task's runs under its judgments so far: the task's own method when it is
    ``decide``, else a decision with its defaults (every pair, AP) kept beside the method. Callers read it
    under :func:`locked`."""
    kept = kept_of(ws, info)
    with kept.lock:
        if kept.decision is None:
            from metrics.judgments.decide import Decision

            if info.method == "decide":
                kept.decision = kept.proposer
            else:
                kept.decision = Decision(kept.proposer.candidates)
                for (topic, docid), grade in kept.grades.items():
                    kept.decision.judge(topic, docid, grade)
        _follow(ws, info, kept)
        return kept.decision


def locked(ws, info: "TaskInfo"):
    """The lock under which the task's method and decision are read or changed in this process."""
    return kept_of(ws, info).lock


# ---- the next document --------------------------------------------------------------------------------------
def next_for(ws, tid: str, who: str | None = None) -> Deal | None:
    """The next document of the assessor ``who`` (the person the workspace acts for, by default), dealt to
    them now if it was not (see the module's notes); None when the task has nothing more for them.

    Raises
    ------
    workspace.judging.UnknownTask
    workspace.WorkspaceError
        Not an assessor of the task, or a role below assessor.
    """
    from workspace.access import identity
    from workspace.judging import Judging

    judging = Judging(ws)
    who = identity(ws._who(who, "assessor"))
    info = judging.task(tid, "judge")
    if not info.may_judge(who):
        raise WorkspaceError(f"judging task {info.name}: expected one of its assessors, found {who}")
    mine = judging.dealt(tid, who)
    waiting = mine[mine["grade"].isna() & ~mine["skipped"]]
    if len(waiting):
        first = waiting.iloc[0]
        return Deal(first["topic"], first["docid"], int(first["slot"]), first["why"])
    if info.closed:
        return None
    topic = mine["topic"].iloc[-1] if len(mine) else None
    held = set(zip(mine["topic"], mine["docid"]))
    if info.overlap > 0:
        found = _second(judging, info, who, topic, held)
        if found is not None:
            return found
    kept = kept_of(ws, info)
    with kept.lock:
        _follow(ws, info, kept)
        for _ in range(TRIES):
            if info.budget is not None and len(kept.dealt) >= info.budget:
                return None
            run = 0 if topic is None else _run(mine, topic)
            picked = _pick(kept, topic if run < info.settings.get("stint", 10) else None, held)
            if picked is None:
                return None
            deal = _insert(judging, info, who, picked, slot=0)
            if deal is not None:
                kept.dealt.add((deal.topic, deal.docid))
                return deal
            kept.dealt.add(picked[:2])  # another process dealt it meanwhile: pick again
    return None


def _run(mine, topic: str) -> int:
    """How many of the assessor's last documents, in a row, are of ``topic``."""
    topics = mine["topic"].tolist()
    count = 0
    for t in reversed(topics):
        if t != topic:
            break
        count += 1
    return count


def _second(judging, info, who: str, topic: str | None, held: set) -> Deal | None:
    """A document drawn for a second assessor that has none yet, dealt to ``who`` (their topic first)."""
    from workspace.schema import judging_assignments as ja

    second = ja.alias("second")
    with judging._tx(read=True) as conn:
        rows = conn.execute(select(ja.c.topic, ja.c.docid, ja.c.why).where(
            ja.c.task == info.id, ja.c.slot == 0, ja.c.overlap.is_(True), ja.c.assessor != who,
            ~select(second.c.slot).where(second.c.task == ja.c.task, second.c.topic == ja.c.topic,
                                         second.c.docid == ja.c.docid, second.c.slot == 1).exists())
            .order_by(ja.c.position)).all()
    rows = [r for r in rows if (r.topic, r.docid) not in held]
    rows.sort(key=lambda r: r.topic != topic)  # stable: their topic first, then in the order dealt
    for row in rows:
        deal = _insert(judging, info, who, (row.topic, row.docid, f"a second judgment for agreement ({row.why})"),
                       slot=1)
        if deal is not None:
            return deal
    return None


def _pick(kept: Kept, topic: str | None, held: set) -> tuple[str, str, str] | None:
    """The method's best document not dealt: on ``topic`` when it has one there, else on any task topic."""
    from metrics.judgments.decide import Decision

    p, c = kept.proposer, kept.proposer.candidates
    taken = kept.dealt | held
    order = [c.topic_index(topic)] if topic is not None and topic in set(c.topics[kept.topics].tolist()) else []
    for scope in (order, kept.topics.tolist()):
        if not scope:
            continue
        if isinstance(p, Decision):
            found = _best_effect(p, scope, taken)
        else:
            found = _best_planned(p, scope, taken)
        if found is not None:
            return found
    return None


def _best_effect(p: "Decision", topics: list[int], taken: set) -> tuple[str, str, str] | None:
    c = p.candidates
    index = np.concatenate([np.arange(c.topic_starts[t], c.topic_starts[t + 1]) for t in topics]) if topics else []
    index = np.asarray(index, dtype=np.int64)
    scores = p.scores[index]
    for at in index[np.lexsort((index, -scores))]:  # best first, the earlier candidate on equal effects
        if round(float(p.scores[at]), EFFECT_DECIMALS) <= 0:  # no effect on any difference: never dealt
            return None
        topic, docid = str(c.topics[c.topic_of[at]]), str(c.docids[at])
        if (topic, docid) not in taken:
            return topic, docid, (f"{p.model.measure}: effect {p.scores[at]:.3g} on the differences of the pairs "
                                  f"not decided yet")
    return None


def _best_planned(p: "Proposer", topics: list[int], taken: set) -> tuple[str, str, str] | None:
    c = p.candidates
    ordered = sorted(topics, key=lambda t: (int(p.made[t]), t))  # the topic whose turn it is first
    for t in ordered:
        need = 8
        while True:
            index, _, why = p.plan(t, need)
            for at, reason in zip(index, why):
                key = (str(c.topics[t]), str(c.docids[at]))
                if key not in taken:
                    return key[0], key[1], reason
            if len(index) < need:
                break
            need *= 4
    return None


def _insert(judging, info: "TaskInfo", who: str, picked: tuple[str, str, str], *, slot: int) -> Deal | None:
    """Deal ``picked`` (topic, docid, why) to ``who`` in ``slot``, unless that slot is taken already."""
    from metrics.judgments.assessors import overlapped
    from workspace.judging import _dialect
    from workspace.schema import judging_assignments as ja

    topic, docid, why = picked
    with judging._tx() as conn:
        position = int(conn.execute(select(func.coalesce(func.max(ja.c.position), 0))
                                    .where(ja.c.task == info.id)).scalar_one()) + 1
        drawn = slot == 0 and info.overlap > 0 and overlapped(info.settings["seed"], topic, docid, info.overlap)
        done = conn.execute(_dialect(conn).insert(ja).values(
            task=info.id, topic=topic, docid=docid, slot=slot, assessor=who, position=position, overlap=drawn,
            why=why[:500], dealt_at=now()).on_conflict_do_nothing().returning(ja.c.slot)).first()
    return None if done is None else Deal(topic, docid, slot, why)


def conclusion(ws, info: "TaskInfo") -> dict:
    """How sure each pairwise order is under a task's judgments so far: ``pairs`` (better, worse, probability,
    decided, needed; the undecided first, the least sure first), ``needed`` (the judgments the decision estimates
    until every pair is decided; NaN: more than the documents there are), ``runs`` (Judged@10 of each run before
    the task and now), ``model`` (the decision's model in words), ``measure``, ``confidence`` and ``judged_now``
    (documents the task judged that the collection had not). The judges, overview and trust pages, the report
    and ``rankscope report --collection`` read it."""
    from metrics.judgments.candidates import NOT_JUDGED
    from metrics.judgments.pooling import pool_statistics
    from metrics.judgments.remaining import still_needed, total_needed

    decision = decision_for(ws, info)
    with locked(ws, info):
        c = decision.candidates
        pairs = still_needed(decision)
        made = np.flatnonzero((decision.grades != NOT_JUDGED) & (c.grades == NOT_JUDGED))
        runs = pool_statistics(c, made)[1]
        described = decision.describe()
        measure, confidence = decision.model.measure, decision.confidence
    return {"pairs": pairs.sort_values(["decided", "probability"], kind="stable").reset_index(drop=True),
            "needed": total_needed(pairs), "runs": runs, "model": described, "measure": measure,
            "confidence": confidence, "judged_now": len(made)}
