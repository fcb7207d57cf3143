"""One way to say something on a page: an error (a reader's or a validator's one line), the pointer to the
data page when nothing is loaded, the provenance of the page's numbers, cautions, and the "start here" line,
which leads to the page's section of the documentation the dashboard serves."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from dashboard import data, pages
from dashboard.server import config
from dashboard.session import state
from dashboard.session.user_text import md
from dashboard.widgets.page_frame import this_page

__all__ = ["NOT_BUILT", "NOT_SERVED", "cautions", "error", "need_collection", "need_two_runs", "provenance",
           "section_url", "start_here"]

NOT_BUILT = ("The documentation is not built: `python3 dev.py docs`, in a checkout of rankscope, builds it for "
             "this server, and each page then links to its section.")
NOT_SERVED = ("This server does not serve the documentation: start it with `rankscope dashboard`, or with "
              "`--server.enableStaticServing true`.")


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


def section_url(page: pages.Page) -> str | None:
    """The address of ``page``'s section of the documentation (``docs/dashboard.md`` has an anchor
    ``page-<script>`` for every page of the table), relative to the page's own; None when the site is not built."""
    if not (config.SITE / "dashboard.html").is_file():
        return None
    return f"{config.SITE_URL}dashboard.html#page-{page.script}"


def start_here(text: str) -> None:
    """The line at the top of a page saying what it shows and what to try, ending with a link to the page's
    section of the documentation; where this server does not serve the site, a line says how it would."""
    page = this_page()
    url = section_url(page) if page is not None else None
    served = url is not None and st.get_option("server.enableStaticServing")
    # the address escaped by md(): CommonMark reads a link's destination with its escapes undone
    st.markdown(":material/flag: **Start here.** " + text
                + (md(" [More in the documentation]({})", url) if served else ""))
    if page is not None and not served:
        st.caption(NOT_SERVED if url else NOT_BUILT)
