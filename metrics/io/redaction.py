"""One rule for the credentials a location may hold, applied to everything that shows or keeps a location.

A workspace, its stored files or a scheduler are named by a location such as
``postgresql://rs:PASSWORD@db:5432/rankscope?sslmode=require``. Whatever prints, logs, stores or renders
text that may hold one (error messages, the command line recorded in a manifest and shown in a report,
the pages' messages) passes it through :func:`redact` first. The rule:

- a **location** is a scheme (a letter, then letters, digits, ``+``, ``-`` or ``.``) followed by ``://``,
  and everything after it up to the next white space: any scheme, so a typo (``postgresq://``) or a driver
  (``postgresql+asyncpg://``) is a location too;
- its **user info**, everything between ``://`` and the *last* ``@`` of the location, becomes ``***``: user
  name and password together, also when the password holds ``@``, ``:``, ``/``, ``?`` or ``#`` (a
  location whose path or query holds an ``@`` then loses its host from the message too, never a secret);
- in what follows the first ``?`` or ``#`` after that, the **value of every parameter** (``name=value``
  items separated by ``&``, ``;``, ``?`` or ``#``) becomes ``***``, and so does an item without ``=``,
  unless the parameter is one of :data:`SHOWN_PARAMETERS`, which never hold a secret (``sslmode``,
  ``connect_timeout``...). So ``password``, ``sslpassword``, ``token``, ``key``, ``secret`` and any name
  not known, misspelt ones included, are masked.

- a **name with a query** that is not a location (a file given as ``run.txt?token=...``): in what follows
  its first ``?`` that starts a parameter (``?name=``), every value is masked the same way;
- a **message of a library** about a location may repeat the location in part, without its scheme or cut
  where the library parsed it (fsspec repeats ``memory://u:p@x/run`` as ``/u:p@x/run``; Dask quotes what
  follows a ``:`` as a port, ``'p@host?token=...'``): a caller that knows the locations a text is about
  passes them (``redact(message, location)``), and every piece of theirs that the rule masks (the user
  info, the password, the value of each masked parameter) is masked wherever the text holds it.

Text outside locations is left as it is. The rule is pure string work, linear in the length of the text
(times the number of locations passed). Redact a text whole, then cut it if it must be short: a location
cut before its last ``@`` no longer says where its user info ends.

Examples
--------
>>> redact("workspace postgresql+asyncpg://rs:p@ss@db:5432/rankscope?sslmode=require&password=x cannot be used")
'workspace postgresql+asyncpg://***@db:5432/rankscope?sslmode=require&password=*** cannot be used'
>>> redact("postgresq://db/rankscope?token=abc#key=def")
'postgresq://db/rankscope?token=***#key=***'
>>> redact("/srv/rankscope/workspace")
'/srv/rankscope/workspace'
>>> redact("cannot read good.run?token=abc")
'cannot read good.run?token=***'
>>> redact("[Errno 2] /u:pw@x/run?token=abc", "memory://u:pw@x/run?token=abc")
'[Errno 2] /***@x/run?token=***'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MASK", "SHOWN_PARAMETERS", "redact", "redact_all"]

MASK = "***"
"""What a credential is replaced with."""

SHOWN_PARAMETERS = frozenset({
    "sslmode", "connect_timeout", "application_name", "target_session_attrs", "client_encoding", "gssencmode",
    "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "port",
    "host", "hostaddr", "dbname", "load_balance_hosts", "channel_binding", "require_auth", "sslcompression",
    "ssl_min_protocol_version", "ssl_max_protocol_version", "timeout",
})
"""Query parameters whose values are shown (lower case): settings of a connection that hold no secret."""

_LOCATION = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)(\S*)")
_QUERY = re.compile(r"[?#]")
_ITEM = re.compile(r"([^&;?#=]*)(=?)([^&;?#]*)")
_NAMED_QUERY = re.compile(r"\?(?=[A-Za-z_][A-Za-z0-9_.\-]*=)([^\s'\"]*)")  # a query in a name that is no location


def redact(text: str, *locations: str) -> str:
    """``text`` with the credentials of every location in it masked (the rule of this module).

    Parameters
    ----------
    text : str
        Any text: a location, a message naming one, a command line.
    *locations : str
        The locations ``text`` is about, when it is a library's message that may repeat them in part: each
        of their credentials is masked wherever ``text`` holds it.

    Returns
    -------
    str
        The same text, each location's user info and each parameter value not in
        :data:`SHOWN_PARAMETERS` replaced with :data:`MASK`.

    Examples
    --------
    >>> redact("cannot open 'postgresql://alice:s3cret@127.0.0.1:notaport/db'")
    "cannot open 'postgresql://***@127.0.0.1:notaport/db'"
    >>> redact("invalid literal for int(): 'pw@host?token=t0k'", "tcp://u:pw@host?token=t0k")
    "invalid literal for int(): '***@host?token=***'"
    """
    text = str(text)
    for secret in sorted({piece for where in locations for piece in _secrets(str(where))}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    if "://" in text:
        text = _LOCATION.sub(lambda m: m.group(1) + _masked(m.group(2)), text)
    if "?" in text:
        text = _NAMED_QUERY.sub(lambda m: "?" + _ITEM.sub(_parameter, m.group(1)), text)
    return text


def redact_all(texts: Iterable[str]) -> list[str]:
    """Each text redacted (:func:`redact`): a command line's arguments, for example."""
    return [redact(text) for text in texts]


def _masked(rest: str) -> str:
    """The part of a location after ``://``, its user info and parameter values masked."""
    at = rest.rfind("@")
    if at >= 0:
        rest = MASK + rest[at:]
    query = _QUERY.search(rest)
    if query is None:
        return rest
    start = query.start()
    return rest[:start + 1] + _ITEM.sub(_parameter, rest[start + 1:])


def _secrets(location: str) -> set[str]:
    """What the rule masks in ``location``: its user info, its password (after the user info's first ``:``)
    and the value of each masked parameter; empty ones left out."""
    found: set[str] = set()
    scheme = location.find("://")
    rest = location[scheme + 3:] if scheme >= 0 else location
    at = rest.rfind("@") if scheme >= 0 else -1
    if at >= 0:
        info = rest[:at]
        found.update((info, info.partition(":")[2]))
        rest = rest[at + 1:]
    query = _QUERY.search(rest)
    if query is not None:
        for item in _ITEM.finditer(rest[query.start() + 1:]):
            name, equals, value = item.groups()
            if not (equals and name.strip().lower() in SHOWN_PARAMETERS):
                found.add(value if equals else name)
    found.discard("")
    return found


def _parameter(match: re.Match) -> str:
    name, equals, value = match.groups()
    if not name and not value:
        return match.group()
    if equals and name.strip().lower() in SHOWN_PARAMETERS:
        return match.group()
    if not equals:  # an item without a name: it may be a token
        return MASK
    return f"{name}={MASK}"
