"""Who may do what, checked by the store itself (SQLite and PostgreSQL): two people, each role, every action
allowed and refused; an id one may not see says the same as an id that does not exist; roles follow the
lineage; the audit log records every destructive action with who and when, and shows each person only what
they may see."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.workspace.helpers import qrels_bytes, run_bytes
from workspace import Actor, Forbidden, NoAccess, UnknownCollection, WorkspaceError
from workspace.checks import new_id
from workspace.presenting import Stage

ANA, BEA, ROOT = "ana@example.org", "bea@example.org", "root@example.org"
# What each role allows, written out from the rule as documented (viewer < editor < owner), not from the code.
ALLOWED = {
    None: set(),
    "viewer": {"view"},
    "editor": {"view", "note", "version", "present"},
    "owner": {"view", "note", "version", "present", "rename", "archive", "delete", "restore", "share"},
}


def _add(ws, seed: int = 0, **options):
    return ws.add_collection(f"c{seed}", qrels=("qrels.txt", qrels_bytes(seed)),
                             runs=[("a.run", run_bytes(seed)), ("b.run", run_bytes(seed + 50))], **options)


def _try(ws, cid: str, action: str):
    """Do ``action`` on ``cid`` through ``ws`` (a view acting for someone); None when it went through, else the
    exception the store raised."""
    calls = {
        "view": lambda: (ws.collection(cid), ws.load(cid), ws.notes(cid), ws.members(cid), ws.log(cid)),
        "note": lambda: ws.save_note(cid, "1", None, "hard", "a note"),
        "version": lambda: ws.new_version(cid, remove_systems=["b"]),
        "rename": lambda: ws.rename(cid, "renamed"),
        "archive": lambda: (ws.archive(cid), ws.archive(cid, False)),
        "delete": lambda: ws.delete(cid),
        "restore": lambda: ws.restore(cid),
        "share": lambda: ws.share(cid, "dan@example.org", "viewer"),
        "present": lambda: Stage(ws).present(cid, new_id(), "overview", {"measure": "AP"}),
    }
    try:
        calls[action]()
    except WorkspaceError as err:
        return err
    return None


@pytest.mark.parametrize("role", [None, "viewer", "editor", "owner"])
def test_each_role_allows_its_actions_and_refuses_the_others(target, role):
    with target.open() as ws:
        ana, bea = ws.acting_as(Actor(ANA)), ws.acting_as(Actor(BEA))
        for action in ["view", "note", "version", "present", "rename", "archive", "delete", "restore", "share"]:
            cid = ana.add_collection("shared", qrels=("q.txt", qrels_bytes(1)), runs=[("a.run", run_bytes(1)),
                                                                                       ("b.run", run_bytes(2))]).id
            if role is not None:
                ana.share(cid, BEA, role)
            if action == "restore":
                ana.delete(cid)
            refused = _try(bea, cid, action)
            if action in ALLOWED[role]:
                assert refused is None, (role, action, refused)
            elif action == "restore" or "view" not in ALLOWED[role]:  # she may not see it: as if it were not there
                assert isinstance(refused, NoAccess), (role, action, refused)
            else:
                assert isinstance(refused, Forbidden), (role, action, refused)
                assert str(refused).startswith(f"{BEA} may not ") and "needs the" in str(refused)
            assert _try(ana, cid, "view") is None or action in ("delete", "restore")  # the owner is untouched


def test_an_id_one_may_not_see_says_exactly_what_an_unknown_id_says(target):
    with target.open() as ws:
        ana, bea = ws.acting_as(Actor(ANA)), ws.acting_as(Actor(BEA))
        hidden = _add(ana, 1).id
        deleted = _add(bea, 2).id
        bea.delete(deleted)
        unknown = "AAAAAAAAAAAAAAAA" if hidden != "AAAAAAAAAAAAAAAA" else "BBBBBBBBBBBBBBBB"
        messages = {}
        for cid in (hidden, deleted, unknown):
            with pytest.raises(NoAccess) as err:
                bea.load(cid)
            messages[cid] = str(err.value).replace(cid, "ID")
            assert isinstance(err.value, UnknownCollection)  # handled wherever an unknown id is
        assert len(set(messages.values())) == 1 and "\n" not in messages[hidden]
        with pytest.raises(NoAccess) as bad:  # not even an id: the same line, no pattern given away
            bea.load("../../etc/passwd")
        assert str(bad.value).replace("../../etc/passwd", "ID") == messages[hidden]
        assert ws.load(hidden).info.id == hidden  # the operator sees everything


def test_listing_shows_what_each_person_may_see_and_everyone_means_every_signed_in_person(target):
    with target.open() as ws:
        ana, bea, cy = (ws.acting_as(Actor(who)) for who in (ANA, BEA, "cy@example.org"))
        root = ws.acting_as(Actor(ROOT, admin=True))
        mine, hers = _add(ana, 1).id, _add(bea, 2).id
        public = ws.add_collection("demo", qrels=("q", qrels_bytes(3)), runs=[("a.run", run_bytes(3))],
                                   author="rankscope", members={"*": "viewer"}).id
        nobody = _add(ws, 4, author="operator").id  # made by the operator, shared with nobody yet
        assert {c.id for c in ana.collections()} == {mine, public}
        assert {c.id for c in bea.collections()} == {hers, public}
        assert {c.id for c in cy.collections()} == {public}
        assert {c.id for c in root.collections()} == {c.id for c in ws.collections()} == {mine, hers, public, nobody}
        assert ana.roles() == {mine: "owner", public: "viewer"} and root.roles() is None
        assert ws.acting_as(Actor("", checked=True)).collections() == []  # nobody signed in is not everyone
        assert _try(cy, public, "note") is not None and _try(cy, public, "view") is None
        for action in ["view", "note", "version", "rename", "archive", "share", "delete"]:  # an administrator: all
            assert _try(root, nobody, action) is None, action
        ana.share(mine, "*", "editor")
        assert {c.id for c in cy.collections()} == {mine, public} and _try(cy, mine, "note") is None
        assert _try(cy, mine, "rename") is not None


def test_roles_follow_the_lineage_of_versions(target):
    with target.open() as ws:
        ana, bea = ws.acting_as(Actor(ANA)), ws.acting_as(Actor(BEA))
        v1 = _add(ana, 1).id
        ana.share(v1, BEA, "editor")
        v2 = bea.new_version(v1, remove_systems=["b"]).id
        assert ws.collection(v2).created_by == BEA and ws.members(v2) == {ANA: "owner", BEA: "editor"}
        ana.share(v2, BEA, "viewer")  # changed on the new version, for every version
        assert ws.members(v1) == {ANA: "owner", BEA: "viewer"}
        for cid in (v1, v2):
            assert isinstance(_try(bea, cid, "note"), Forbidden) and _try(bea, cid, "view") is None
        ana.share(v1, BEA, None)
        assert bea.collections() == [] and isinstance(_try(bea, v2, "view"), NoAccess)


def test_names_cannot_be_typed_and_roles_keep_an_owner(target):
    with target.open() as ws:
        ana = ws.acting_as(Actor(ANA))
        cid = _add(ana, 1).id
        with pytest.raises(WorkspaceError, match="cannot write as"):
            ana.rename(cid, "x", author="mallory")
        with pytest.raises(WorkspaceError, match="cannot write as"):
            ana.save_note(cid, "1", None, "", "signed by someone else", author=BEA)
        note = ana.save_note(cid, "1", None, "", "mine")
        assert note.author == ANA and ws.collection(cid).created_by == ANA
        assert ana.share(cid, "  Bea@Example.ORG ", "viewer") == (BEA, None)  # one identity, whatever the case
        with pytest.raises(WorkspaceError, match="only owner"):
            ana.share(cid, ANA, "editor")
        with pytest.raises(WorkspaceError, match="not an owner"):
            ana.share(cid, "*", "owner")
        with pytest.raises(WorkspaceError, match="role: expected one of viewer, assessor, editor, owner, found "):
            ana.share(cid, BEA, "admin")
        ana.share(cid, BEA, "owner")
        ana.share(cid, ANA, None)  # another owner is left: allowed
        assert ws.members(cid) == {BEA: "owner"}
        with pytest.raises(Forbidden, match="purge"):
            ws.acting_as(Actor(BEA)).purge(0)


def test_the_audit_log_records_every_destructive_action_with_who_and_when(target):
    with target.open() as ws:
        ana, bea = ws.acting_as(Actor(ANA)), ws.acting_as(Actor(BEA))
        v1 = _add(ana, 1).id
        other = _add(ana, 2).id
        before = datetime.now().astimezone()
        ana.share(v1, BEA, "owner")
        v2 = bea.new_version(v1, remove_systems=["b"]).id
        bea.rename(v2, "second")
        bea.archive(v1)
        bea.archive(v1, False)
        bea.delete(v2)
        bea.restore(v2)
        ana.share(v2, BEA, "viewer")
        ana.rename(other, "not bea's")
        ws.rename(v1, "by the operator", author="root (command line)")
        after = datetime.now().astimezone()
        expected = [("rename", v1, "by the operator", "root (command line)"),
                    ("share", v2, f"{BEA}: owner -> viewer", ANA), ("restore", v2, "", BEA), ("delete", v2, "", BEA),
                    ("unarchive", v1, "", BEA), ("archive", v1, "", BEA), ("rename", v2, "second", BEA),
                    ("share", v1, f"{BEA}: none -> owner", ANA)]
        lineage = [(e.action, e.collection, e.detail, e.author) for e in bea.log(v2)]
        assert lineage == expected  # newest first, every version of the lineage
        assert [e.name for e in bea.log(v1)][:2] == ["by the operator", "second"]  # each entry names its collection
        everything = ws.log()
        assert [(e.action, e.collection) for e in everything][:2] == [("rename", v1), ("rename", other)]
        assert all(before <= datetime.fromisoformat(e.at) <= after for e in everything)
        assert [e.id for e in everything] == sorted((e.id for e in everything), reverse=True)
        assert other not in {e.collection for e in bea.log()}  # only what she may see
        assert {e.collection for e in bea.log()} == {v1, v2}
        with pytest.raises(NoAccess):
            bea.log(other)
        assert len(ws.log(limit=3)) == 3
