"""One way to cache a computation of the loaded collection: :func:`on_collection`.

A page asks ``data.per_query(loaded, measures)``; the table is computed once per collection and arguments.
Streamlit hashes what a cached function is given, so the collection itself (its bytes) must not be given
to it: the decorator gives Streamlit the collection's key (:attr:`~dashboard.session.state.Loaded.key`: content
digests, names and conventions) and the other arguments, and hands the collection to the function beside
them, unhashed. The key and the collection can never disagree, since both come from the one argument.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import streamlit as st

from dashboard.server import memory
from dashboard.session.state import Loaded

__all__ = ["on_collection"]

F = TypeVar("F", bound=Callable[..., Any])


def _collection_key(loaded: Loaded) -> Hashable:
    return loaded.key


def on_collection(*, max_entries: int, show_spinner: bool | str = False,
                  key: Callable[[Loaded], Hashable] = _collection_key, resource: bool = False) -> Callable[[F], F]:
    """Cache ``fn(loaded, *args)`` on ``key(loaded)`` and ``args``.

    Parameters
    ----------
    max_entries : int
    show_spinner : bool or str
        As for :func:`streamlit.cache_data`.
    key : callable, default ``loaded.key``
        What identifies the collection for this computation: a computation that reads the topic texts adds
        their digest, one that reads only them may use the digest alone.
    resource : bool, default False
        Share one result between callers (:func:`streamlit.cache_resource`) instead of a copy each
        (:func:`streamlit.cache_data`), for results that are large and never changed by a caller.

    The arguments after the collection must be values Streamlit can hash (text, numbers, tuples); give
    tuples for sequences, so that equal choices hit the same entry. Keywords and defaults are bound to
    their places first, so a call that spells a default and one that leaves it out share an entry.
    """
    cache = st.cache_resource if resource else st.cache_data

    def decorate(fn: F) -> F:
        def compute(collection_key: Hashable, args: tuple, _loaded: Loaded) -> Any:
            return fn(_loaded, *args)

        # Streamlit names a cache by module and qualified name: one per decorated function
        compute.__module__, compute.__qualname__ = fn.__module__, f"{fn.__qualname__}.<cached>"
        # an entry is dropped once no session holds the collection's files (dashboard.server.memory)
        cached = memory.released(cache(max_entries=max_entries, show_spinner=show_spinner)(compute))

        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(loaded: Loaded, *args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(loaded, *args, **kwargs)
            bound.apply_defaults()
            return cached(key(loaded), bound.args[1:], _loaded=loaded)

        call.clear = cached.clear  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate
