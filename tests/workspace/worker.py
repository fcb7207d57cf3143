"""A child process for the workspace tests: saves notes from threads, saves notes in a loop, adds a big
collection, seeds the workspace as the dashboard does, adds, deletes and purges in a loop, judges in a loop. Run as
``python -m tests.workspace.worker ACTION LOCATION FILES ...``."""

from __future__ import annotations

import os
import sys
import threading

from workspace import open_workspace


def notes(ws, cid: str, prefix: str, threads: int, each: int) -> None:
    """``threads`` threads, each saving ``each`` notes whose comments are ``prefix-thread-i``."""
    errors = []

    def work(t: int) -> None:
        try:
            for i in range(each):
                ws.save_note(cid, str(i % 5), None if i % 2 else "sys", "", f"{prefix}-{t}-{i}", author=prefix)
        except BaseException as err:  # reported by the parent through the exit status
            errors.append(err)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]


def note_loop(ws, cid: str, prefix: str) -> None:
    """Save notes until killed, printing each revision once it is committed."""
    base, i = None, 0
    while True:
        note = ws.save_note(cid, "1", None, "", f"{prefix}-{i}", author=prefix, base=base)
        print(note.revision, note.comment, flush=True)
        base, i = note.revision, i + 1


def add(ws, runs: int, lines: int) -> None:
    """Add a collection of ``runs`` runs of ``lines`` lines, printing "start" first and its id at the end."""
    from tests.workspace.helpers import qrels_bytes, run_bytes

    data = [(f"big{i}.run", run_bytes(1000 + i, lines)) for i in range(runs)]
    print("start", flush=True)
    info = ws.add_collection("big", qrels=("qrels.txt", qrels_bytes(1)), runs=data, author="worker")
    print(info.id, flush=True)


def seed(ws, ready: str, go: str) -> None:
    """Seed the workspace as a dashboard server does on an empty one, once ``go`` exists (after making
    ``ready``), so that two of these race; prints the number of collections it saw before."""
    from dashboard.store import opened

    seen = len(ws.collections(archived=True))
    open(ready, "w").close()
    while not os.path.exists(go):
        threading.Event().wait(0.005)
    opened._seed(ws)
    print(seen, flush=True)


def purge_loop(ws, start: int) -> None:
    """Add a collection (sharing its qrels with the others, its run its own), delete it and purge, until killed;
    print each round's number once its purge is done."""
    from tests.workspace.helpers import qrels_bytes, run_bytes

    i = start
    while True:
        info = ws.add_collection(f"round {i}", qrels=("qrels.txt", qrels_bytes(1)),
                                 runs=[("r.run", run_bytes(i, 3000))], author="worker")
        ws.save_note(info.id, "1", None, "", f"round {i}", author="worker")
        stored = ws.load(info.id)
        ws.keep_derived_frame("rows", {"qrels": stored.qrels.sha256, "run": stored.runs[0].sha256}, _frame(i))
        ws.delete(info.id, author="worker")
        ws.purge(0, author="worker")
        print(i, flush=True)
        i += 1


def _frame(i: int):
    import pandas as pd

    return pd.DataFrame({"system": ["r"] * 3, "value": [float(i), 1.0, 2.0]})


def judge_loop(ws, tid: str, who: str) -> None:
    """Judge the documents a task deals ``who`` until killed (grade: the document id's length, mod 2), printing
    each judgment once it is committed; then wait."""
    import time

    from workspace.dealing import next_for
    from workspace.judging import Judging

    judging = Judging(ws)
    while True:
        deal = next_for(ws, tid, who)
        if deal is None:
            time.sleep(60)
            continue
        grade = len(deal.docid) % 2
        judging.judge(tid, deal.topic, deal.docid, grade, assessor=who)
        print(deal.topic, deal.docid, grade, flush=True)


if __name__ == "__main__":
    action, location, files, *rest = sys.argv[1:]
    with open_workspace(location, files=files) as workspace:
        if action == "notes":
            notes(workspace, rest[0], rest[1], int(rest[2]), int(rest[3]))
        elif action == "note-loop":
            note_loop(workspace, rest[0], rest[1])
        elif action == "seed":
            seed(workspace, rest[0], rest[1])
        elif action == "judge-loop":
            judge_loop(workspace, rest[0], rest[1])
        elif action == "purge-loop":
            purge_loop(workspace, int(rest[0]))
        else:
            add(workspace, int(rest[0]), int(rest[1]))
