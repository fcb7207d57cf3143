"""Judging in the store: every judgment committed when made and never counted twice, a server killed with
SIGKILL while an assessor judges losing none; the roles in the login mode; and the conclusion the pages show,
each pair's probability, equal to a decision made afresh (:class:`metrics.judgments.decide.Decision`) on the
reference judgments plus the task's."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from tests import processes
from tests.workspace.writers import check_sqlite, start_writer


QRELS = b"".join(f"{t} 0 d{d} {d % 2}\n".encode() for t in range(1, 5) for d in range(0, 40, 9))


def run_bytes(seed: int) -> bytes:
    """A run over topics 1-4, 30 of 40 documents each in a seeded order."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return "".join(f"{t} Q0 d{d} {r} {30 - r} s{seed}\n" for t in range(1, 5)
                   for r, d in enumerate(rng.permutation(40)[:30], 1)).encode()


def qrels_bytes(_seed: int) -> bytes:
    return QRELS


def _task(ws, **options):
    from workspace.judging import Judging

    info = ws.add_collection("c", qrels=("q", qrels_bytes(3)), runs=[(f"r{i}.run", run_bytes(10 + i))
                                                                      for i in range(3)], author="owner")
    settings = {"method": "depth", "assessors": ["ann", "bob"], "depth": 20, "author": "owner", **options}
    return info, Judging(ws).start(info.id, **settings)


def test_the_same_judgment_twice_changes_nothing_and_another_grade_replaces_it(target):
    from workspace.dealing import next_for
    from workspace.errors import WorkspaceError
    from workspace.judging import Judging

    with target.open() as ws:
        _, task = _task(ws)
        judging = Judging(ws)
        deal = next_for(ws, task.id, "ann")
        assert judging.judge(task.id, deal.topic, deal.docid, 1, assessor="ann") is True
        assert judging.judge(task.id, deal.topic, deal.docid, 1, assessor="ann") is False  # sent again
        assert judging.revision(task.id) == 1
        assert judging.judge(task.id, deal.topic, deal.docid, 0, assessor="ann") is True
        rows = judging.judgments(task.id)
        assert rows[["topic", "docid", "assessor", "grade", "seq"]].values.tolist() == \
            [[deal.topic, deal.docid, "ann", 0.0, 2]]
        with pytest.raises(WorkspaceError, match="expected a document dealt to bob, found"):
            judging.judge(task.id, deal.topic, deal.docid, 1, assessor="bob")
        with pytest.raises(WorkspaceError, match="expected one of its assessors, found eve"):
            next_for(ws, task.id, "eve")
        assert judging.counts(task.id) == {"dealt": 1, "judgments": 1, "documents": 1}


def test_a_server_killed_while_an_assessor_judges_loses_no_judgment(target):
    from workspace.dealing import next_for
    from workspace.judging import Judging

    with target.open() as ws:
        _, task = _task(ws)
    printed: dict[tuple[str, str], int] = {}
    for round_ in range(2):
        child = start_writer(target, "judge-loop", task.id, "ann", stdout=subprocess.PIPE, text=True)
        try:
            for _ in range(12 + 5 * round_):
                topic, docid, grade = child.stdout.readline().split()
                printed[(topic, docid)] = int(grade)
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
            for line in child.stdout.read().splitlines():  # committed and printed before the kill, not read yet
                topic, docid, grade = line.split()
                printed[(topic, docid)] = int(grade)
        finally:
            processes.stop(child, grace=2)
            child.stdout.close()
    with target.open() as ws:
        judging = Judging(ws)
        rows = judging.judgments(task.id)
        stored = {(t, d): int(g) for t, d, g in rows[["topic", "docid", "grade"]].itertuples(index=False)}
        assert {k: v for k, v in stored.items() if k in printed} == printed  # every committed judgment is there
        assert len(stored) - len(printed) <= 2  # at most the one in flight per round, and it is whole
        dealt = judging.dealt(task.id, "ann")
        assert not dealt.duplicated(["topic", "docid"]).any() and dealt["position"].is_unique
        waiting = dealt[dealt["grade"].isna()]
        assert len(waiting) <= 2  # dealt before a kill, not judged: dealt again first
        deal = next_for(ws, task.id, "ann")
        if len(waiting):
            assert (deal.topic, deal.docid) == tuple(waiting.iloc[0][["topic", "docid"]])
    check_sqlite(target)


def test_in_the_login_mode_judging_needs_a_role_and_an_assignment(target):
    from workspace.access import Actor, Forbidden
    from workspace.dealing import next_for
    from workspace.judging import Judging, UnknownTask

    with target.open() as ws:
        info = ws.add_collection("c", qrels=("q", qrels_bytes(3)), runs=[("a.run", run_bytes(10)),
                                                                          ("b.run", run_bytes(11))],
                                 author="owner@x", members={"owner@x": "owner", "viewer@x": "viewer"})
        owner = ws.acting_as(Actor("owner@x", checked=True))
        task = Judging(owner).start(info.id, method="depth", assessors=["ann@x"], depth=10)
        assert ws.members(info.id)["ann@x"] == "assessor"  # the owner's start gave the listed assessor the role
        ann = ws.acting_as(Actor("ann@x", checked=True))
        deal = next_for(ann, task.id)
        assert Judging(ann).judge(task.id, deal.topic, deal.docid, 1)
        with pytest.raises(Forbidden):  # an assessor judges, but starts nothing
            Judging(ann).start(info.id, method="depth")
        viewer = ws.acting_as(Actor("viewer@x", checked=True))
        with pytest.raises(Forbidden):
            next_for(viewer, task.id)
        with pytest.raises(Forbidden):
            Judging(viewer).judge(task.id, deal.topic, deal.docid, 1)
        stranger = ws.acting_as(Actor("eve@x", checked=True))
        for attempt in (lambda: Judging(stranger).task(task.id), lambda: Judging(stranger).dealt(task.id),
                        lambda: next_for(stranger, task.id)):
            with pytest.raises(UnknownTask, match="does not exist or is not shared with you"):
                attempt()
        assert Judging(ws).judgments(task.id)["assessor"].tolist() == ["ann@x"]


def test_each_pairs_probability_equals_a_decision_made_afresh(target):
    from metrics import read_qrels, read_run
    from metrics.judgments.candidates import gather
    from metrics.judgments.decide import Decision
    from workspace import dealing
    from workspace.judging import Judging

    with target.open() as ws:
        info, task = _task(ws, method="decide", assessors=["ann"], options={"measure": "P@10"})
        judging = Judging(ws)
        made = []
        for i in range(15):
            deal = dealing.next_for(ws, task.id, "ann")
            grade = (i * 7) % 3 % 2
            judging.judge(task.id, deal.topic, deal.docid, grade, assessor="ann")
            made.append(f"{deal.topic} 0 {deal.docid} {grade}\n")
            current = judging.task(task.id)
            decision = dealing.decision_for(ws, current)  # brought up to the store under the task's lock
            with dealing.locked(ws, current):
                ours = decision.probabilities()
            runs = [read_run(run_bytes(10 + r), name=f"r{r}") for r in range(3)]
            qrels = read_qrels(qrels_bytes(3) + "".join(made).encode(), name="q")
            fresh = Decision(gather(runs, qrels, depth=20), measure="P@10").probabilities()
            key = ["better", "worse"]
            assert ours.sort_values(key)[key].values.tolist() == fresh.sort_values(key)[key].values.tolist()
            assert ours.sort_values(key)["probability"].tolist() == \
                pytest.approx(fresh.sort_values(key)["probability"].tolist(), abs=1e-12)
