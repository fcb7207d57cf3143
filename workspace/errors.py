"""The exceptions the workspace raises, all :class:`~metrics.errors.RankscopeError` with one-line messages.

::

    RankscopeError
    └── WorkspaceError          a stored file missing or tampered, a bad id, a bad argument
        ├── UnknownCollection   an id that names no collection (or a deleted one)
        ├── StoreUnavailable    the database or the file store cannot be used: read-only, full, locked, down
        └── SchemaTooNew        a workspace written by a newer rankscope
"""

from __future__ import annotations

from metrics.errors import RankscopeError

__all__ = ["SchemaTooNew", "StoreUnavailable", "UnknownCollection", "WorkspaceError"]


class WorkspaceError(RankscopeError):
    """Something in the workspace cannot be done; the message is one line naming what and where."""


class UnknownCollection(WorkspaceError):
    """An id that names no collection of the workspace, or one that was deleted."""


class StoreUnavailable(WorkspaceError):
    """The database or the file store cannot be used now (read-only, full disk, locked, server down)."""


class SchemaTooNew(WorkspaceError):
    """The workspace's schema is newer than this rankscope understands."""
