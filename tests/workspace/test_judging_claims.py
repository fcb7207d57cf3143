"""A claim about two systems on a collection being judged, checked again as the judgments arrive, on SQLite and
PostgreSQL: after each judgment the task's sets are saved as a new version and the claim is re-checked on it; its
status on every version equals what a slow textbook loop says (average precision over the reference judgments
plus the judgment rows read from the store with plain SQL, two assessors' different grades merged to the lower,
a task's grade replacing the reference's), and it flips on the way."""

from __future__ import annotations

from sqlalchemy import text

from metrics.review.claims import FAILS, FLIPPED, HOLDS, Better

TOPICS = ("1", "2")
DOCS = {t: [f"{t}-{i}" for i in range(1, 7)] for t in TOPICS}
# the reference judged each topic's first document (relevant); a ranks the documents 1..6, b the other way round
QRELS = "".join(f"{t} 0 {t}-1 1\n" for t in TOPICS).encode()
RELEVANT = {"5", "6"}  # what the assessors find: the documents b ranks first, so that b overtakes a
BOB_SEES_MORE = {"3"}  # bob calls these relevant too, ann does not: a disagreement wherever both judge them
SEED = "5eed5eed5eed5eed"  # the task's draw of the documents two assessors judge: 1-3, 2-2 and 2-5 of these


def _run(tag: str, reverse: bool) -> bytes:
    lines = []
    for t in TOPICS:
        order = DOCS[t][::-1] if reverse else DOCS[t]
        lines += [f"{t} Q0 {d} {r} {10 - r} {tag}\n" for r, d in enumerate(order, 1)]
    return "".join(lines).encode()


def _grade(who: str, docid: str) -> int:
    end = docid.rsplit("-", 1)[1]
    return int(end in RELEVANT or (who == "bob" and end in BOB_SEES_MORE))


def _stored(ws, tid: str) -> dict[tuple[str, str], dict[str, int]]:
    """The task's grades as the store holds them, read with plain SQL (no code of the project's)."""
    found: dict[tuple[str, str], dict[str, int]] = {}
    with ws._engine.connect() as conn:
        for topic, docid, who, grade in conn.execute(text(
                "SELECT topic, docid, assessor, grade FROM judging_judgments WHERE task = :task"), {"task": tid}):
            if grade is not None:
                found.setdefault((topic, docid), {})[who] = int(grade)
    return found


def _average_precision(ranking: list[str], grades: dict[str, int]) -> float:
    relevant = sum(1 for g in grades.values() if g >= 1)
    hits, total = 0, 0.0
    for rank, docid in enumerate(ranking, 1):
        if grades.get(docid, 0) >= 1:
            hits += 1
            total += hits / rank
    return total / relevant


def _textbook_status(judged: dict[tuple[str, str], dict[str, int]]) -> str:
    """Whether a's mean AP is above b's under the reference plus the judgments (the lower of two grades)."""
    means = {}
    for system, reverse in (("a", False), ("b", True)):
        values = []
        for t in TOPICS:
            grades = {f"{t}-1": 1}
            for (topic, docid), said in judged.items():
                if topic == t:
                    grades[docid] = min(said.values())
            values.append(_average_precision(DOCS[t][::-1] if reverse else DOCS[t], grades))
        means[system] = sum(values) / len(values)
    return HOLDS if means["a"] - means["b"] > 1e-12 else FAILS


def test_a_claim_rechecked_as_judgments_arrive_flips_when_a_textbook_loop_says_it_does(target, monkeypatch):
    from workspace.dealing import next_for
    from workspace.judging import Judging
    from workspace.recheck import add_claims, rechecked

    monkeypatch.setattr("workspace.judging.secrets.token_hex", lambda _: SEED)  # a draw the same in every run
    with target.open() as ws:
        v1 = ws.add_collection("judged", qrels=("q.qrels", QRELS), runs=[("a.run", _run("a", False)),
                                                                         ("b.run", _run("b", True))], author="owner")
        add_claims(ws, v1.id, [Better("a", "b", "AP")], author="owner")
        judging = Judging(ws)
        task = judging.start(v1.id, method="depth", assessors=["ann", "bob"], overlap=0.5, depth=6, author="owner")
        ((_, trail),) = rechecked(ws, v1.id)
        statuses = [trail.now.status]
        assert statuses == [_textbook_status({})] == [HOLDS]
        newest, waiting = v1.id, {"ann", "bob"}
        while waiting:
            for who in sorted(waiting):
                deal = next_for(ws, task.id, who)
                if deal is None:
                    waiting.discard(who)
                    continue
                assert judging.judge(task.id, deal.topic, deal.docid, _grade(who, deal.docid), assessor=who)
                newest = judging.save_sets(task.id, author="owner").id
                ((_, trail),) = rechecked(ws, newest)
                expected = _textbook_status(_stored(ws, task.id))
                assert trail.now.status == expected, (deal, _stored(ws, task.id))
                statuses.append(expected)
        judged = _stored(ws, task.id)
        assert {d for _, d in judged} == {d for t in TOPICS for d in DOCS[t][1:]}  # every unjudged one, once
        assert sorted(k for k, said in judged.items() if len(said) == 2) == [("1", "1-3"), ("2", "2-2"), ("2", "2-5")]
        assert judged["1", "1-3"] == {"ann": 0, "bob": 1}  # a disagreement, merged to the lower grade
        ((_, trail),) = rechecked(ws, newest)
        changes = [i for i in range(1, len(statuses)) if statuses[i] != statuses[i - 1]]
        assert changes and trail.status == FLIPPED and statuses[-1] == FAILS
        assert trail.flipped_by == trail.versions[changes[-1]]  # the version whose judgment flipped it last
        assert [r.status for r in trail.results] == statuses
