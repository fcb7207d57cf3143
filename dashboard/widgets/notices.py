"""One way to say something on a page: an error (a reader's or a validator's one line), the pointer to the
data page when nothing is loaded, the provenance of the page's numbers, cautions, and the "start here" line."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard import data, pages
from dashboard.session import state
from dashboard.session.user_text import md

__all__ = ["cautions", "error", "need_collection", "need_two_runs", "provenance", "start_here"]


def error(err: Exception) -> None:
    """A reader's or a validator's message, shown as text."""
    st.error(md("{}", err), icon=":material/error:")


def need_collection(loaded: state.Loaded) -> bool:
    """Stop the page with a pointer to the data page when nothing is loaded."""
    if loaded.ready:
        return True
    st.info("Load a qrels file and at least one run on the **data** page first.")
    st.page_link(pages.by_script("data").path, label="Go to data", icon=":material/upload_file:")
    return False


def need_two_runs(loaded: state.Loaded, why: str) -> bool:
    """:func:`need_collection`, and at least two runs: else ``why`` (what two runs are for) is shown instead."""
    if not need_collection(loaded):
        return False
    if len(loaded.systems) >= 2:
        return True
    st.info(why)  # our literal, checked at each call (tests/dashboard/session/test_one_text_path.py)
    return False


def provenance(loaded: state.Loaded, measures: Sequence[str] = (), ties: str = "docid", *, card=None,
               **settings) -> None:
    """The provenance card of the page's numbers (:meth:`metrics.review.provenance.Provenance.compact`), as text:
    ``card`` when given (e.g. a report's), else :func:`dashboard.data.provenance` of ``measures`` with ``ties``
    and ``settings`` (the paired tests' ``test``, ``correction``, ``family``)."""
    card = card if card is not None else data.provenance(loaded, tuple(measures), ties, **settings)
    st.caption(md("Provenance: {}", card.compact()))


def cautions(sentences: Sequence[str]) -> None:
    """Each caution on a comparison (:mod:`metrics.review.cautions`), as text."""
    for sentence in sentences:
        st.info(md("{}", sentence), icon=":material/info:")


def start_here(text: str) -> None:
    """The line at the top of a page saying what it shows and what to try."""
    st.markdown(":material/flag: **Start here.** " + text)
