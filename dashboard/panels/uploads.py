"""The data page's uploaders, every kind of file received by one routine (:func:`receive`).

A kind of file is declared once (:data:`KINDS`): its uploader's label and help, whether it takes several files,
the reader that checks it (a bad file gives its reader's one line, :class:`metrics.ParseError` or the guard's
:class:`~dashboard.server.guard.LimitError`) and how good files join the session's collection. Each new file is
read once (a file the uploader shows again on a rerun is not: its id is remembered); its errors stay on the page,
beside its uploader, until the next file of any kind arrives. After new files the page runs again, so that the sidebar, drawn before
the page, shows a changed collection and no uploader drawn earlier shows an earlier message. A bad file never
changes what is loaded.

A good file whose name is taken (a run named like a loaded system, with other content) is not added at once:
the uploader asks whether it replaces the loaded one, joins it under a new name (``beta-2``) or is left out,
and says what it did (:func:`_clash`). A file whose content is loaded already is left out, and that is said too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass

import streamlit as st

from dashboard import data
from dashboard.session import state
from dashboard.session.state import Loaded, Upload
from dashboard.widgets import error, md
from metrics import RankscopeError, system_name

__all__ = ["FORMAT_EXAMPLES", "KINDS", "Kind", "receive"]

_QRELS = "401 0 FBIS3-10082 1\n401 0 FBIS3-10169 0\n401 0 LA012390-0040 2\n402 0 FT921-7107 1"
_RUN = ("401 Q0 LA012390-0040 1 14.82 bm25\n401 Q0 FBIS3-10082 2 13.50 bm25\n401 Q0 FT934-5418 3 11.07 bm25\n"
        "402 Q0 FT921-7107 1 9.93 bm25")
FORMAT_EXAMPLES = {
    "**Qrels** (the judgments), one line per judged document: topic, an unused column (0), document, grade "
    "(0 not relevant; 1, 2, ... more relevant).": _QRELS,
    "**Run** (one system's rankings), one line per ranked document: topic, Q0, document, rank, score, the "
    "system's name. Higher scores rank first (the rank column is not used).": _RUN,
}
"""The two file formats, one small example each (shown on the data page)."""


@dataclass(frozen=True)
class Kind:
    """One kind of file the data page takes.

    ``read`` checks one upload (raising :class:`metrics.RankscopeError` with its one line) and caches its parse;
    ``add`` puts the good uploads into the collection. ``side_by_side``: several are read at once, with a
    progress bar (:func:`dashboard.data.read_runs`). A kind whose files take a name also has ``named`` (an
    upload's name), ``held`` (``{name: upload}`` loaded now) and ``replace`` (the uploads in place of the loaded
    ones of their names).
    """

    key: str
    label: str
    help: str
    add: Callable[[Loaded, list[Upload]], Loaded]
    read: Callable[[Upload], object] | None = None
    many: bool = False
    side_by_side: bool = False
    named: Callable[[Upload], str] | None = None
    held: Callable[[Loaded], dict[str, Upload]] | None = None
    replace: Callable[[Loaded, list[Upload]], Loaded] | None = None


def _read_each(kind: Kind, uploads: Sequence[Upload]) -> tuple[list[Upload], list[str]]:
    good, errors = [], []
    for upload in uploads:
        try:
            with st.spinner(md("Reading {} ({:.1f} MB)…", upload.name, upload.size / 1e6), show_time=True):
                kind.read(upload)
            good.append(upload)
        except RankscopeError as err:
            errors.append(str(err))
    return good, errors


def _read_side_by_side(uploads: Sequence[Upload]) -> tuple[list[Upload], list[str]]:
    progress = st.progress(0.0, text="Reading runs…")
    failed = {}
    for done, (position, upload, err) in enumerate(data.read_runs(uploads), start=1):
        progress.progress(done / len(uploads), text=md("Read {} ({:.1f} MB), {} of {}…", upload.name,
                                                       upload.size / 1e6, done, len(uploads)))
        if err is not None:
            failed[position] = str(err)
    progress.empty()
    good = [up for i, up in enumerate(uploads) if i not in failed]
    return good, [failed[i] for i in sorted(failed)]  # in the order of the files


def receive(kind: Kind, loaded: Loaded, seen: set, container=None) -> Loaded:
    """Draw the uploader of ``kind`` in ``container``, read its new files and add the good ones.

    ``seen``: the ids of the files this session has read already (the page's, shared by every kind). Returns
    the collection unchanged when nothing new was added (a change reruns the page). ``container``: a column
    or container of the page to draw in (by default, where the page is).
    """
    inside = nullcontext() if container is None else container  # where what follows is drawn
    chosen = (container or st).file_uploader(kind.label, accept_multiple_files=kind.many, key=kind.key, help=kind.help)
    files = [f for f in (chosen if kind.many else [chosen]) or [] if f is not None and f.file_id not in seen]
    errors = f"{kind.key}_errors"
    if files:
        for other in KINDS.values():  # earlier messages were about earlier files
            for key in (f"{other.key}_errors", f"{other.key}_clash", f"{other.key}_said"):
                st.session_state.pop(key, None)
        uploads = Upload.all_of([(f.name, f.getvalue()) for f in files])
        with inside:
            good, st.session_state[errors] = (_read_side_by_side(uploads) if kind.side_by_side
                                              else _read_each(kind, uploads))
        seen.update(f.file_id for f in files)  # once read: a rerun in between reads them again
        good, clashing, said = _sorted(kind, loaded, good)
        if good:
            state.put(kind.add(loaded, good))
        if clashing:
            st.session_state[f"{kind.key}_clash"] = clashing
        if said:
            st.session_state[f"{kind.key}_said"] = said
        st.rerun()  # the sidebar, drawn before this page, shows the new collection, and no uploader an old message
    for message in st.session_state.get(errors, []):
        with inside:
            error(message)
    with inside:
        _clash(kind)
        for what, values in st.session_state.get(f"{kind.key}_said", []):
            st.info(md(SAID[what], *values), icon=":material/info:")
    return loaded


def _sorted(kind: Kind, loaded: Loaded, good: list[Upload]) -> tuple[list[Upload], list[Upload], list[tuple[str, tuple]]]:
    """The good uploads split into those added now and those whose name is taken by other content (asked
    about); and what to say of those left out because their content is loaded already."""
    if kind.named is None:
        return good, [], []
    held = kind.held(loaded)
    digests = {up.digest for up in held.values()}
    same = [up for up in good if up.digest in digests]
    clashing = [up for up in good if up.digest not in digests and kind.named(up) in held]
    said = [("same", (up.name,)) for up in same]
    return [up for up in good if up not in same and up not in clashing], clashing, said


def _clash(kind: Kind) -> None:
    """The question about uploads named like loaded files: replace them, keep both, or keep the loaded ones."""
    clashing = st.session_state.get(f"{kind.key}_clash")
    if not clashing:
        return
    names = ", ".join(f"{kind.named(up)} ({up.name})" for up in clashing)
    with st.container(border=True, key=f"{kind.key}_clash_box"):
        st.warning(md("Loaded already under the same name, with other content: {}. Replace the loaded run, keep "
                      "both (the new one under a new name), or keep only the loaded one?", names),
                   icon=":material/help:")
        cols = dict(zip((choice for choice, _, _ in CHOICES), st.columns(len(CHOICES))))
        for choice, label, icon in CHOICES:
            cols[choice].button(label, key=f"{kind.key}_clash_{choice}", on_click=_settle, args=(kind, choice), icon=icon,
                       width="stretch")


CHOICES = (("replace", "Replace", ":material/swap_horiz:"), ("both", "Keep both", ":material/library_add:"),
           ("keep", "Keep the loaded one", ":material/block:"))
"""The answers to an upload named like a loaded file: ``(choice, button label, icon)``."""
SAID = {"same": "{} is loaded already (the same content): not added again.",
        "replace": "{} replaced the loaded run of {}.",
        "both": "Kept both: {} added as {}.",
        "keep": "Kept the loaded {}: {} was not added."}
"""What is said after uploads were left out or a clash settled: templates of :func:`md`, by what was done."""


def _settle(kind: Kind, choice: str) -> None:
    """Do what was chosen for the uploads named like loaded files, and say what was done."""
    clashing = st.session_state.pop(f"{kind.key}_clash", [])
    loaded = state.get()
    if choice == "replace":
        state.put(kind.replace(loaded, clashing))
        said = [("replace", (up.name, kind.named(up))) for up in clashing]
    elif choice == "both":
        before = set(kind.held(loaded))
        after = kind.add(loaded, clashing)
        state.put(after)
        added = [name for name in kind.held(after) if name not in before]
        said = [("both", (up.name, name)) for up, name in zip(clashing, added)]
    else:
        said = [("keep", (kind.named(up), up.name)) for up in clashing]
    st.session_state[f"{kind.key}_said"] = said


def _texts(role: str) -> Callable[[Loaded, list[Upload]], Loaded]:
    return lambda loaded, uploads: state.with_texts(loaded, **{role: uploads[-1]})


KINDS = {
    "runs": Kind("data_runs", "Runs", "TREC run files: qid Q0 docid rank score tag (plain or .gz), any number.",
                 state.with_runs, many=True, side_by_side=True, named=lambda up: system_name(up.name),
                 held=state.held_runs, replace=state.replacing_runs),
    "qrels": Kind("data_qrels", "Qrels", "TREC qrels: qid iter docid grade (plain or .gz).",
                  lambda loaded, uploads: state.with_qrels(loaded, uploads[-1]), read=data.read_qrels),
    "topics": Kind("data_topics", "Topics (optional)",
                   "The query texts, shown beside the topic ids on the queries page: TREC topics, TSV (id, text), "
                   "JSONL, or Cranfield/NPL native files.", _texts("topics"), read=data.read_topics),
    "documents": Kind("data_documents", "Documents (optional)",
                      "Document titles and texts, shown in the queries page's drill-down: TREC <DOC> files, JSONL, "
                      "TSV, or Cranfield/NPL native files.", _texts("documents"), read=data.read_documents),
    "judgments": Kind("data_judgments", "More judgment sets (optional)",
                      "Other qrels of the same topics (a crowd's, a language model's), compared with the first on "
                      "the judges page: TREC qrels, plain or .gz, any number.", state.with_judgments,
                      read=data.read_qrels, many=True),
}
"""Every kind of file the data page takes, by name."""
