"""Who may do what with a collection: the one rule, read by the store and by the dashboard alike.

A workspace is used in one of two modes, chosen by whoever starts the server:

- **open**: everyone may do everything, and the name recorded beside a change is one the person typed;
- **login**: people sign in through an OpenID Connect provider, and what each may do follows from the
  *role* they hold on the collection's lineage (every version of one collection shares its members).

The roles, each allowing what the one before allows:

========  ===================================================================================
viewer    open the collection and read its notes
editor    add versions (upload or remove runs, change texts and system names), write notes, present it,
          see and teach its lessons (save, start, open, reveal and end a live class of its questions)
owner     rename, archive, delete and restore the collection, and share it (give or take roles)
========  ===================================================================================

Administrators (a server setting) may do everything with every collection. The member
:data:`EVERYONE` (``*``) stands for every signed-in person: the bundled demo collection is shared with it
as a viewer. The command line, working on the store directly as the operator, is not checked, nor is the
open mode: their :class:`Actor` is not ``checked``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from metrics.io.redaction import redact
from workspace.errors import UnknownCollection, WorkspaceError

__all__ = ["ACTIONS", "EVERYONE", "Actor", "Forbidden", "NoAccess", "ROLES", "identity", "may", "require",
           "role_of"]

ROLES = ("viewer", "assessor", "editor", "owner")
"""The roles, from least to most: each allows what the ones before it allow."""

EVERYONE = "*"
"""The member that stands for every signed-in person."""

ACTIONS: dict[str, str] = {
    "view": "viewer",      # list it, open it, read its notes and its log
    "note": "editor",      # write a review note
    "present": "editor",   # present it: those who follow see the presenter's page and view
    "teach": "editor",     # see its saved lessons, save one, start a class of one, open, reveal and end its questions
    "judge": "assessor",   # judge the documents a judging task deals them
    "assign": "editor",    # start or close a judging task, save its judgments as judgment sets
    "adjudicate": "owner",  # decide the grade of a document two assessors graded differently
    "version": "editor",   # save a new version (runs added or removed, texts or system names changed)
    "rename": "owner",
    "archive": "owner",    # archive or unarchive
    "delete": "owner",
    "restore": "owner",    # undo a deletion, within the undo window
    "share": "owner",      # give, change or take a member's role
}
"""``{action: the least role that allows it}``."""
_VERBS = {"view": "open", "note": "write notes on", "present": "present", "teach": "teach the lessons of",
          "judge": "judge documents of",
          "assign": "start judging tasks on", "adjudicate": "adjudicate the judgments of",
          "version": "save versions of", "rename": "rename",
          "archive": "archive", "delete": "delete", "restore": "restore", "share": "share"}


class NoAccess(UnknownCollection):
    """A collection the person may not see, or one that does not exist: the same message for both, so that
    nobody learns whether an id exists."""


class Forbidden(WorkspaceError):
    """An action on a collection the person may see, but which their role does not allow."""


@dataclass(frozen=True)
class Actor:
    """Who acts on the workspace.

    Attributes
    ----------
    name : str
        What is recorded as the author of what they do: the signed-in identity, or (unchecked) the name
        typed in the open mode, or the operator's user name on the command line.
    checked : bool
        Whether :func:`may` applies the roles; False for the open mode and the operator.
    admin : bool
        An administrator of the server: every action on every collection is allowed.
    """

    name: str
    checked: bool = True
    admin: bool = False


def identity(text: str) -> str:
    """The canonical form of an identity: an e-mail address in lower case, anything else as it is (trimmed).

    The signed-in person's identity (their provider's ``email``, else its ``sub``) and the identities an
    owner types when sharing go through here, so that ``Bea@Example.org`` and ``bea@example.org`` are one.
    """
    text = text.strip()
    return text.lower() if "@" in text else text


def role_of(members: Mapping[str, str], who: str) -> str | None:
    """The role ``who`` holds among ``members`` (``{identity: role}``), counting :data:`EVERYONE`; or None."""
    held = [members[k] for k in (identity(who), EVERYONE) if k in members]
    return max(held, key=ROLES.index) if held else None


def may(actor: Actor, action: str, role: str | None) -> bool:
    """Whether ``actor``, holding ``role`` (None: no role) on a collection, may do ``action`` with it.

    >>> may(Actor("bea@example.org"), "note", "viewer"), may(Actor("bea@example.org"), "note", "editor")
    (False, True)
    >>> may(Actor("bea@example.org"), "judge", "assessor"), may(Actor("bea@example.org"), "note", "assessor")
    (True, False)
    >>> may(Actor("root (command line)", checked=False), "delete", None)
    True
    """
    if action not in ACTIONS:
        raise WorkspaceError(f"unknown action {action!r}: expected one of {', '.join(ACTIONS)}")
    if not actor.checked or actor.admin:
        return True
    return role is not None and ROLES.index(role) >= ROLES.index(ACTIONS[action])


def require(actor: Actor, action: str, role: str | None, cid: str) -> None:
    """Raise unless :func:`may`: :class:`NoAccess` when ``actor`` may not even see the collection (the
    message an unknown id gets), :class:`Forbidden` naming the role needed otherwise."""
    if may(actor, action, role):
        return
    if not may(actor, "view", role):
        raise no_access(cid)
    raise Forbidden(f"{actor.name} may not {_VERBS[action]} collection {cid}: that needs the {ACTIONS[action]} "
                    f"role, and they are {'an' if role[0] in 'aeiou' else 'a'} {role}")


def no_access(cid: object) -> NoAccess:
    """The one message for an id that is not there, deleted, or not shared with the person."""
    return NoAccess(f"no access to collection {redact(str(cid))[:40]!r}: it does not exist or is not shared with you")
