"""The shared workspace: collections (qrels, named runs, conventions) and review notes in a database.

A workspace is a SQLite file (WAL mode) with a folder of stored files, or a PostgreSQL database with a
folder or fsspec URL for its files. Collections never change: a change makes a new version. Stored bytes
are addressed by their SHA-256 and checked on every read; parsed runs and qrels are cached as
Arrow IPC files beside them.

>>> from workspace import open_workspace               # doctest: +SKIP
>>> ws = open_workspace("team-workspace")              # doctest: +SKIP
>>> info = ws.add_collection("robust04", qrels=("qrels.txt", b"..."), runs=[("bm25.run", b"...")],
...                          author="ana")              # doctest: +SKIP
"""

from workspace.access import Actor, Forbidden, NoAccess
from workspace.errors import SchemaTooNew, StoreUnavailable, UnknownCollection, WorkspaceError
from workspace.model import CollectionInfo, Event, Note, StoredClaim, StoredCollection, StoredFile
from workspace.purge import Purged
from workspace.store import Workspace, open_workspace

__all__ = ["Actor", "CollectionInfo", "Event", "Forbidden", "NoAccess", "Note", "Purged", "SchemaTooNew",
           "StoreUnavailable", "StoredClaim", "StoredCollection", "StoredFile", "UnknownCollection", "Workspace", "WorkspaceError",
           "open_workspace"]
