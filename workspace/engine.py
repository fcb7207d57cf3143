"""The database behind a workspace: where it is, how to connect, and what its failures mean.

One SQLAlchemy Core engine serves SQLite and PostgreSQL (psycopg 3 driver) with the same tables and the
same statements. SQLite is opened in WAL mode (readers never wait for the writer), with a busy timeout,
foreign keys on, and ``synchronous=FULL`` (a committed transaction survives a crash); each writing
transaction begins with ``BEGIN IMMEDIATE`` so that two writers queue instead of failing half-way. Database errors
(locked, read-only, disk full, server down, a file that is not a database, a connection the driver refuses)
and locations that do not parse become :class:`~workspace.errors.StoreUnavailable` or
:class:`~workspace.errors.WorkspaceError` with one line. Every message shows the location through
:func:`metrics.io.redaction.redact`: no password, token or other credential of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.engine import URL

from metrics.io.redaction import redact
from workspace.errors import StoreUnavailable, WorkspaceError

__all__ = ["DEFAULT_FOLDER", "Location", "connect", "resolve", "transaction"]

DEFAULT_FOLDER = "rankscope-workspace"
"""The workspace folder used when neither a location nor ``RANKSCOPE_WORKSPACE`` is given."""
_POSTGRESQL = ("postgresql://", "postgresql+psycopg://", "postgres://")
_FORMS = "a folder, sqlite:///FILE or postgresql://USER@HOST:PORT/DB"


@dataclass(frozen=True)
class Location:
    """Where a workspace's database and files are.

    Attributes
    ----------
    url : str
        SQLAlchemy URL of the database.
    files : str
        Folder or fsspec URL of the stored files.
    label : str
        The database as shown in messages (no password).
    sqlite_path : Path or None
        The SQLite file, or ``None`` for PostgreSQL.
    """

    url: str
    files: str
    label: str
    sqlite_path: Path | None


def resolve(location: str | os.PathLike | None, files: str | os.PathLike | None) -> Location:
    """Turn a location as given by a user into a :class:`Location`.

    ``None`` means ``$RANKSCOPE_WORKSPACE`` or else ``./rankscope-workspace``; a folder holds
    ``workspace.db`` and ``files/``; ``sqlite:///path.db`` keeps its files in ``files/`` beside the
    database; ``postgresql://...`` takes its files from ``files`` or ``$RANKSCOPE_WORKSPACE_FILES``.
    """
    if location is None:
        location = os.environ.get("RANKSCOPE_WORKSPACE") or DEFAULT_FOLDER
    location = os.fspath(location)
    files = None if files is None else os.fspath(files)
    if location.startswith(_POSTGRESQL):
        shown = redact(location)
        try:
            url = _postgresql_url(location)
        except (exc.ArgumentError, ValueError, TypeError):
            raise WorkspaceError(f"workspace {shown}: expected {_FORMS} (a numeric PORT, an IPv6 HOST in "
                                 "brackets), found a URL that does not parse") from None
        files = files or os.environ.get("RANKSCOPE_WORKSPACE_FILES")
        if not files:
            raise WorkspaceError(f"workspace {shown}: a PostgreSQL workspace needs "
                                 f"a place for its files; expected --files or RANKSCOPE_WORKSPACE_FILES, found "
                                 f"neither")
        label = redact(url.render_as_string(hide_password=False))
        return Location(url.render_as_string(hide_password=False), files, label, None)
    if location.startswith("sqlite:///"):
        path = Path(location.removeprefix("sqlite:///"))
        folder = path.parent
    elif "://" in location:
        raise WorkspaceError(f"workspace {redact(location)[:300]}: expected {_FORMS}, found another kind of URL")
    else:
        folder = Path(location)
        path = folder / "workspace.db"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreUnavailable(redact(f"workspace folder {folder} cannot be created: {err.strerror or err}")) from None
    return Location(f"sqlite:///{path}", files or str(folder / "files"), str(path), path)


def _postgresql_url(location: str) -> URL:
    """The psycopg URL of a ``postgresql://`` location. The user info ends at the last ``@`` before the host
    (as :func:`urllib.parse.urlsplit` reads it), so a password may hold ``@``; user, password and database
    are percent-decoded. Raises ValueError for a port that is not a number or a bracket left open."""
    parts = urlsplit(location)
    port = parts.port  # raises ValueError when not a number
    host = parts.hostname  # raises ValueError for "[::1" (an IPv6 address left open)
    query: dict[str, str | tuple[str, ...]] = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        query[key] = (*query[key], value) if isinstance(query.get(key), tuple) else (
            (query[key], value) if key in query else value)
    return URL.create("postgresql+psycopg", username=unquote(parts.username) if parts.username is not None else None,
                      password=unquote(parts.password) if parts.password is not None else None, host=host,
                      port=port, database=unquote(parts.path.lstrip("/")) or None, query=query)


def connect(where: Location, busy_timeout: float) -> Engine:
    """An engine for the workspace's database (connections made lazily, pooled)."""
    if where.sqlite_path is None:
        wait = f"{max(1, int(busy_timeout * 1000))}ms"
        return create_engine(where.url, pool_pre_ping=True, pool_size=5, max_overflow=10,
                             connect_args={"connect_timeout": max(1, round(busy_timeout)),
                                           "options": f"-c lock_timeout={wait}"})
    engine = create_engine(where.url, connect_args={"timeout": busy_timeout, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, not by the driver
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:  # readers do not queue behind writers (WAL)
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get("rankscope_read") else "BEGIN IMMEDIATE")

    return engine


@contextmanager
def transaction(engine: Engine, where: Location, *, read: bool = False) -> Iterator[Connection]:
    """One transaction (committed on success, rolled back on error) with database errors made one line.

    ``read=True`` for a transaction that only reads: on SQLite it does not take the write lock. Any driver
    error while connecting (server down, a connection option it refuses, a file that is not a database)
    is :class:`StoreUnavailable`; so are the errors of a database that cannot be used meanwhile.
    """
    try:
        connection = engine.connect()
    except exc.DBAPIError as err:
        raise unavailable(err, where) from None
    try:
        with connection.execution_options(rankscope_read=read) as conn, conn.begin():
            yield conn
    except (exc.OperationalError, exc.InterfaceError, exc.InternalError) as err:
        raise unavailable(err, where) from None
    except exc.DBAPIError as err:
        if err.connection_invalidated or _damaged(err):
            raise unavailable(err, where) from None
        raise


def _damaged(err: exc.DBAPIError) -> bool:
    """Whether a database error says the SQLite file is not a database, or a damaged one."""
    name = str(getattr(getattr(err, "orig", None), "sqlite_errorname", ""))
    return name in ("SQLITE_NOTADB", "SQLITE_CORRUPT")


def unavailable(err: BaseException, where: Location) -> StoreUnavailable:
    """The one-line :class:`StoreUnavailable` for a database error."""
    detail = str(getattr(err, "orig", None) or err).strip().splitlines()
    first = detail[0] if detail else type(err).__name__
    low = first.lower()
    if "locked" in low or "lock timeout" in low or "lock_timeout" in low:
        what = "is locked by another process; try again when it is done"
    elif "readonly" in low or "read-only" in low or "read only" in low:
        what = "is read-only"
    elif "disk is full" in low or "no space" in low or "disk full" in low or _full_disk(err, where):
        what = "is on a full disk"
    elif "unable to open" in low:
        what = "cannot be opened (missing folder or no permission)"
    elif "connection refused" in low or "could not connect" in low or "connection failed" in low:
        what = "does not answer (server down or wrong address)"
    elif "not a database" in low or "malformed" in low:
        what = "is not a workspace database (not SQLite, or damaged)"
    else:
        what = "cannot be used"
    return StoreUnavailable(f"workspace database {where.label} {what}: {redact(first, where.url)[:300]}")


_FULL = 1024 * 1024
"""Free bytes under which a SQLite I/O error is put down to a full disk."""


def _full_disk(err: BaseException, where: Location) -> bool:
    """Whether a SQLite I/O error comes from a full disk: in WAL mode SQLite reports a write that finds no
    space as ``disk I/O error`` (``SQLITE_IOERR_WRITE``, ``SQLITE_IOERR_SHMSIZE``...) rather than
    ``SQLITE_FULL``; the file system of the database having less than ``_FULL`` bytes left tells."""
    name = str(getattr(getattr(err, "orig", None), "sqlite_errorname", ""))
    if where.sqlite_path is None or not name.startswith("SQLITE_IOERR"):
        return False
    try:
        stat = os.statvfs(where.sqlite_path.parent)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize < _FULL
