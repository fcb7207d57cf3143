"""Move-to-front and MaxMean against traces worked by hand.

One topic, three runs to depth 3 (ties go to the run given first):

    A: a1 a2 a3        relevant: a1, b1, b2, c2
    B: b1 b2 a1        not relevant: a2, a3, c1
    C: c1 b1 c2

Move-to-front (priorities start at 0; stay with a run while its documents are relevant, lower its priority by
one on a non-relevant one and go to the first run of highest priority):

    1 A a1 relevant, stay      2 A a2 not: A -1           3 B b1 relevant, stay
    4 B b2 relevant, stay      (B passes a1, judged relevant: B is done)
    5 C c1 not: C -1           6 A a3 not: A -2 (A and C at -1: A is given first)
    (C passes b1, judged relevant: stays)                  7 C c2 relevant

MaxMean (each run's mean (1 + relevant) / (2 + seen), the highest pulled, ties to the first):

    1 A a1 (all 1/2) relevant: A 2/3      2 A a2 not: A 2/4      3 A a3 (A, B, C at 1/2) not: A 2/5
    4 B b1 relevant: B 2/3                5 B b2 relevant: B 3/4
    (B passes a1, relevant: 4/5, done)    6 C c1 (1/2) not: C 1/3
    (C passes b1, relevant: 2/4)          7 C c2
"""

from __future__ import annotations

import pytest

from metrics.io import read_qrels, read_run
from metrics.judgments.candidates import gather
from metrics.judgments.pooling import make_proposer

RUNS = {"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "a1"], "C": ["c1", "b1", "c2"]}
RELEVANT = {"a1", "b1", "b2", "c2"}
TRACES = {"mtf": ["a1", "a2", "b1", "b2", "c1", "a3", "c2"],
          "bandit": ["a1", "a2", "a3", "b1", "b2", "c1", "c2"]}


def proposer(method: str, qrels: str = "", runs=RUNS, topics=("1",)):
    read = [read_run("".join(f"{t} Q0 {d} {n} {10 - n} {name}\n" for t in topics for n, d in enumerate(docs, 1)),
                     name=name) for name, docs in runs.items()]
    return make_proposer(gather(read, read_qrels(qrels, name="q") if qrels else None, depth=3), method)


def replay(p, truth=RELEVANT) -> list[tuple[str, str]]:
    seen = []
    while True:
        found = p.next(1)
        if found.empty:
            return seen
        topic, docid = found["topic"][0], found["docid"][0]
        seen.append((topic, docid))
        p.judge(topic, docid, 1 if docid in truth else 0)


@pytest.mark.parametrize("method", list(TRACES))
def test_one_judgment_at_a_time_follows_the_hand_worked_trace(method):
    assert [d for _, d in replay(proposer(method))] == TRACES[method]


def test_the_reasons_name_the_run_and_its_state():
    p = proposer("mtf")
    p.judge("1", "a1", 1)
    p.judge("1", "a2", 0)
    assert p.next(1)["why"][0] == "B: priority 0, 0 of 0 relevant so far"
    q = proposer("bandit")
    q.judge("1", "a1", 1)
    first = q.next(1)
    assert (first["docid"][0], first["weight"][0]) == ("a2", pytest.approx(2 / 3))
    assert first["why"][0] == "A: mean 0.667 = (1 + 1) / (2 + 1)"


def test_a_batch_is_planned_as_though_each_document_were_relevant():
    """Both methods stay with a run while its documents are relevant: a batch takes each run to its end in
    turn, passing the documents planned before (a1, b1) as relevant ones."""
    for method in TRACES:
        assert proposer(method).next()["docid"].tolist() == ["a1", "a2", "a3", "b1", "b2", "c1", "c2"]


@pytest.mark.parametrize("method", list(TRACES))
def test_judgments_given_are_passed_and_count(method):
    """a2 judged non-relevant beforehand: never proposed, and A's first pull of it counts, as in the trace."""
    got = [d for _, d in replay(proposer(method, qrels="1 0 a2 0\n"))]
    assert got == [d for d in TRACES[method] if d != "a2"]


def test_topics_take_turns_and_each_follows_its_own_trace():
    """Two topics with the same runs: the judgments go round the topics, each one's sequence being the trace."""
    p = proposer("mtf", topics=("1", "2"))
    seen = replay(p)
    assert [t for t, _ in seen] == ["1", "2"] * 7
    assert [d for t, d in seen if t == "2"] == TRACES["mtf"]
