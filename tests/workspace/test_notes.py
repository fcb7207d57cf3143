"""Review notes: append-only revisions, their history, and heads that keep concurrent edits."""

from __future__ import annotations

import numpy as np
import pytest

from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import WorkspaceError


def _collection(ws):
    return ws.add_collection("c", qrels=("q", qrels_bytes(1)), runs=[("a.run", run_bytes(1))], author="a").id


def test_history_and_heads_of_one_note(target):
    with target.open() as ws:
        cid = _collection(ws)
        first = ws.save_note(cid, "401", None, "hard", "first look", author="ana")
        second = ws.save_note(cid, "401", None, "hard", "second look", author="bo", base=first.revision)
        assert (first.base, second.base) == (None, first.revision) and second.revision > first.revision
        assert ws.notes(cid) == [second]
        left = ws.save_note(cid, "401", None, "ties", "ana's edit", author="ana", base=second.revision)
        right = ws.save_note(cid, "401", None, "judged?", "bo's edit", author="bo", base=second.revision)
        assert ws.notes(cid) == [left, right]  # both edits of the same base are kept, both shown
        assert ws.note_history(cid, "401", None) == [first, second, left, right]
        assert ws.note_history(cid, "401", "a") == []
        merged = ws.save_note(cid, "401", None, "hard", "merged", author="cy", base=left.revision)
        assert ws.notes(cid) == [right, merged]
        assert ws.note_history(cid, "401", None)[-1].comment == "merged"


def test_heads_match_a_textbook_loop_over_random_saves(target):
    rng = np.random.default_rng(7)
    with target.open() as ws:
        cid = _collection(ws)
        saved = []
        for i in range(60):
            topic, system = str(int(rng.integers(1, 4))), [None, "a", "b"][int(rng.integers(0, 3))]
            same = [n for n in saved if (n.topic, n.system) == (topic, system)]
            base = same[int(rng.integers(0, len(same)))].revision if same and rng.random() < 0.8 else None
            saved.append(ws.save_note(cid, topic, system, f"t{i % 3}", f"comment {i}", author="u", base=base))
        named = {n.base for n in saved if n.base is not None}
        expected = sorted((n for n in saved if n.revision not in named),
                          key=lambda n: (n.topic, n.system is not None, n.system or "", n.revision))
        got = sorted(ws.notes(cid), key=lambda n: (n.topic, n.system is not None, n.system or "", n.revision))
        assert got == expected
        for topic in "123":
            for system in (None, "a", "b"):
                assert ws.note_history(cid, topic, system) == [n for n in saved if (n.topic, n.system) ==
                                                                (topic, system)]


def test_notes_belong_to_their_collection_and_bases_to_their_note(target):
    with target.open() as ws:
        one, two = _collection(ws), _collection(ws)
        note = ws.save_note(one, "1", None, "", "x", author="a")
        assert ws.notes(two) == []
        with pytest.raises(WorkspaceError, match=r"note base \d+: expected a revision of the note on topic '1'"):
            ws.save_note(two, "1", None, "", "y", author="a", base=note.revision)
        with pytest.raises(WorkspaceError, match="note base"):
            ws.save_note(one, "2", None, "", "y", author="a", base=note.revision)
        with pytest.raises(WorkspaceError, match="note base"):
            ws.save_note(one, "1", "sys", "", "y", author="a", base=note.revision)
        for kwargs, what in [({"topic": ""}, "topic"), ({"topic": "a\nb"}, "topic"), ({"tag": "x" * 65}, "tag"),
                             ({"comment": 3}, "comment"), ({"author": ""}, "author"), ({"base": "1"}, "base"),
                             ({"base": True}, "base")]:
            args = {"topic": "1", "system": None, "tag": "", "comment": "c", "author": "a", **kwargs}
            with pytest.raises(WorkspaceError, match=f"note {what}"):
                ws.save_note(one, args.pop("topic"), args.pop("system"), args.pop("tag"), args.pop("comment"),
                             **args)
        assert ws.note_history(one, "1", None) == [note]


def test_notes_follow_the_collection_across_its_versions(target):
    with target.open() as ws:
        v1 = ws.add_collection("c", qrels=("q", qrels_bytes(2)), runs=[("a.run", run_bytes(1))], author="a")
        v2 = ws.new_version(v1.id, add_runs=[("b.run", run_bytes(2))], author="b")
        v3 = ws.new_version(v2.id, remove_systems=["a"], author="c")
        branch = ws.new_version(v1.id, add_runs=[("c.run", run_bytes(3))], author="d")  # a second child of v1
        other = _collection(ws)  # another lineage
        assert {v.lineage for v in (v1, v2, v3, branch)} == {v1.id} and ws.collection(other).lineage == other
        versions = [v1.id, v2.id, v3.id, branch.id]

        first = ws.save_note(v1.id, "7", None, "hard", "seen on v1", author="ana")
        for cid in versions:
            assert ws.notes(cid) == [first]
        assert ws.notes(other) == []
        edit = ws.save_note(v3.id, "7", None, "hard", "edited on v3", author="bo", base=first.revision)
        assert (edit.collection, first.collection) == (v3.id, v1.id)  # the version each was saved on
        on_system = ws.save_note(v2.id, "7", "b", "ties", "on v2", author="cy")
        for cid in versions:
            assert ws.notes(cid) == [edit, on_system]
            assert ws.note_history(cid, "7", None) == [first, edit]
            assert ws.note_history(cid, "7", "b") == [on_system]

        # two edits of the same revision from different versions are both kept, both shown everywhere
        left = ws.save_note(v1.id, "7", None, "hard", "from v1", author="ana", base=edit.revision)
        right = ws.save_note(branch.id, "7", None, "easy", "from the branch", author="dan", base=edit.revision)
        for cid in versions:
            assert ws.notes(cid) == [left, right, on_system]
        merged = ws.save_note(v2.id, "7", None, "hard", "merged", author="cy", base=right.revision)
        assert ws.notes(v3.id) == [left, merged, on_system]
        assert ws.note_history(v1.id, "7", None) == [first, edit, left, right, merged]

        with pytest.raises(WorkspaceError, match=r"note base \d+: expected a revision of the note"):
            ws.save_note(other, "7", None, "", "x", author="a", base=first.revision)  # another lineage's note
        assert ws.notes(other) == []


def test_lineage_heads_match_a_textbook_loop_over_random_versions_and_saves(target):
    rng = np.random.default_rng(11)
    with target.open() as ws:
        roots = [_collection(ws), _collection(ws)]
        family = {roots[0]: roots[0], roots[1]: roots[1]}  # id -> its first version, by following parents
        for _ in range(5):
            parent = list(family)[int(rng.integers(len(family)))]
            child = ws.new_version(parent, author="v").id
            family[child] = family[parent]
        saved = []
        for i in range(50):
            cid = list(family)[int(rng.integers(len(family)))]
            topic = str(int(rng.integers(1, 3)))
            same = [n for n in saved if family[n.collection] == family[cid] and n.topic == topic and n.system is None]
            base = same[int(rng.integers(len(same)))].revision if same and rng.random() < 0.8 else None
            saved.append(ws.save_note(cid, topic, None, "", f"c{i}", author="u", base=base))
        for cid in family:
            mine = [n for n in saved if family[n.collection] == family[cid]]
            named = {n.base for n in mine}
            assert sorted(n.revision for n in ws.notes(cid)) == [n.revision for n in mine if n.revision not in named]
            for topic in "12":
                assert ws.note_history(cid, topic, None) == [n for n in mine if n.topic == topic]


def test_one_save_naming_several_bases_merges_concurrent_versions(target):
    with target.open() as ws:
        cid = _collection(ws)
        first = ws.save_note(cid, "7", "a", "t", "first", author="ana")
        left = ws.save_note(cid, "7", "a", "t", "left", author="ana", base=first.revision)
        right = ws.save_note(cid, "7", "a", "t", "right", author="bo", base=first.revision)
        other = ws.save_note(cid, "7", None, "t", "the topic's own", author="bo")
        assert ws.notes(cid) == [other, left, right]
        merged = ws.save_note(cid, "7", "a", "t", "both", author="cy", base=[right.revision, left.revision])
        assert merged.bases == (left.revision, right.revision) and merged.base == right.revision
        assert ws.notes(cid) == [other, merged]
        assert ws.note_history(cid, "7", "a") == [first, left, right, merged]
        assert ws.note_history(cid, "7", "a")[1].bases == (first.revision,) and first.bases == ()
        single = ws.save_note(cid, "7", "a", "t", "after", author="ana", base=merged.revision)  # an int still works
        assert ws.notes(cid) == [other, single] and single.bases == (merged.revision,)
        for bad, message in ([[], "non-empty list"], [[single.revision, "x"], "list of int, str"],
                             [[single.revision, other.revision], f"note base {other.revision}"],
                             [[single.revision, 10**6], "note base 1000000"], [True, "found bool"]):
            with pytest.raises(WorkspaceError, match=message):
                ws.save_note(cid, "7", "a", "t", "bad", author="ana", base=bad)
        assert ws.notes(cid) == [other, single]  # a refused save leaves nothing


def test_merged_heads_match_a_textbook_loop_over_random_merges(target):
    rng = np.random.default_rng(11)
    with target.open() as ws:
        cid = _collection(ws)
        saved, edited = [], set()
        for i in range(50):
            topic = str(int(rng.integers(1, 3)))
            same = [n.revision for n in saved if n.topic == topic]
            k = int(rng.integers(0, min(3, len(same)) + 1))
            bases = [int(b) for b in rng.choice(same, size=k, replace=False)] if k else None
            base = bases[0] if k == 1 and rng.random() < 0.5 else bases
            saved.append(ws.save_note(cid, topic, None, "", f"c{i}", author="u", base=base))
            edited |= set(bases or ())
        expected = sorted((n for n in saved if n.revision not in edited), key=lambda n: (n.topic, n.revision))
        assert ws.notes(cid) == expected


def _slow_merge(versions):
    """The merge rule written out: each tag once, first seen first; non-empty comments joined by ---."""
    tags, comments = [], []
    for note in versions:
        for tag in note.tag.split(","):
            if tag.strip() and tag.strip() not in tags:
                tags.append(tag.strip())
        if note.comment:
            comments.append(note.comment)
    return tags, "\n---\n".join(comments)


def test_concurrent_versions_merge_by_one_rule_and_the_merge_resolves_them(target):
    from workspace.notes import merged

    rng = np.random.default_rng(11)
    words = ["hard", "typo", "pool", "ties", ""]
    with target.open() as ws:
        cid = _collection(ws)
        root = ws.save_note(cid, "7", None, "hard", "root", author="ana")
        versions = [ws.save_note(cid, "7", None, ", ".join(rng.choice(words, size=3).tolist()),
                                 str(rng.choice(["", "a comment", "another"])), author=f"p{i}", base=root.revision)
                    for i in range(4)]
        heads = [n for n in ws.notes(cid) if n.topic == "7"]
        assert heads == versions
        together = merged(heads)
        assert (list(together.tags), together.comment) == _slow_merge(heads)
        assert together.base == tuple(n.revision for n in versions)
        saved = ws.save_note(cid, "7", None, ", ".join(together.tags), together.comment, author="cy",
                             base=together.base)
        assert [n for n in ws.notes(cid) if n.topic == "7"] == [saved] and saved.bases == together.base
    assert merged([root]).base == root.revision and merged([root]).comment == "root"
    assert merged([]) == type(merged([]))(tags=(), comment="", base=None)
