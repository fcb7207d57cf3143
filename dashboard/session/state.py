"""What one browser session has loaded, its conventions, its review notes, and the view kept in the URL.

Everything lives in ``st.session_state`` (one per browser tab), never in module globals, so people sharing
one server never see each other's files, notes or views. The loaded collection is a frozen :class:`Loaded`
value: pages replace it, never mutate it, and its ``key`` (content digests, names and conventions) keys
every cache.

The view (page, systems, measure, topic, baseline and the options that change a number) is kept by the
widgets themselves in the URL's query parameters (see :mod:`dashboard.widgets`), so a link reproduces it
and it follows the user from page to page.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import streamlit as st

from metrics import Conventions, system_name
from metrics.judgments.sets import set_name

_LOADED = "rankscope_loaded"
_NOTES = "rankscope_notes"
_HASHED_ALONE = 1 << 24  # uploads smaller than this together are hashed one after another (no threads)


class _Bytes:
    """A file's bytes, held, or read once on first use (a stored file is read only when asked for)."""

    def __init__(self, data: bytes | None = None, read: Callable[[], bytes] | None = None) -> None:
        self._data, self._read = data, read

    def __call__(self) -> bytes:
        if self._data is None:
            self._data = self._read()
        return self._data


@dataclass(frozen=True)
class Upload:
    """A file's name and bytes, identified by the SHA-256 of its content.

    The bytes of a stored file are read (and checked against the digest) only when ``data`` is used.
    """

    name: str
    digest: str = ""
    size: int = 0
    _bytes: _Bytes = field(repr=False, compare=False, default_factory=_Bytes)

    @property
    def data(self) -> bytes:
        return self._bytes()

    @classmethod
    def of(cls, name: str, data: bytes) -> "Upload":
        return cls(name=name, digest=hashlib.sha256(data).hexdigest(), size=len(data), _bytes=_Bytes(data))

    @classmethod
    def all_of(cls, files: Sequence[tuple[str, bytes]]) -> list["Upload"]:
        """:meth:`of` each ``(name, data)``, in order, the digests computed side by side: SHA-256 lets go of
        the interpreter on large inputs, so two 250 MB runs are hashed in about the time of one."""
        if len(files) < 2 or sum(len(data) for _, data in files) < _HASHED_ALONE:
            return [cls.of(name, data) for name, data in files]
        with ThreadPoolExecutor(min(len(files), os.cpu_count() or 1), thread_name_prefix="rankscope-hash") as pool:
            return list(pool.map(lambda file: cls.of(*file), files))

    @classmethod
    def stored(cls, name: str, digest: str, size: int, read: Callable[[], bytes]) -> "Upload":
        """A file of the workspace, read by ``read`` on first use."""
        return cls(name=name, digest=digest, size=size, _bytes=_Bytes(read=read))


@dataclass(frozen=True)
class Loaded:
    """The collection a session works on: qrels, named runs, conventions, and where they came from.

    ``source`` is ``"demo"``, ``"uploads"``, ``"example:<name>"`` (a worked example) or ``"ranking"`` (a
    ranking typed in on the learn page). ``collection`` is the id of the workspace collection it was opened
    from or saved as; a change of files clears it and keeps the old id as ``parent``.
    """

    qrels: Upload | None = None
    runs: tuple[tuple[str, Upload], ...] = ()
    conventions: Conventions = Conventions()
    source: str = "demo"
    topics: Upload | None = None  # query texts (optional; never part of ``key``: they change no number)
    documents: Upload | None = None  # document titles and texts (optional)
    collection: str | None = None  # the workspace collection holding exactly these files, once stored
    parent: str | None = None  # the stored collection these files were changed from (a new version's parent)
    # several named judgment sets, the reference first (empty: the qrels alone); ``qrels`` is the one of them
    # every page evaluates under (see judgment_sets, under)
    judges: tuple[tuple[str, Upload], ...] = ()

    @property
    def key(self) -> tuple:
        """Hashable identity of everything a computation depends on."""
        return (self.qrels.digest if self.qrels else None,
                tuple((name, up.digest) for name, up in self.runs),
                tuple(sorted(self.conventions.as_dict().items())))

    @property
    def judges_key(self) -> tuple:
        """Hashable identity of what a comparison of the judgment sets depends on: every set, the runs, the
        conventions."""
        return (tuple((name, up.digest) for name, up in judgment_sets(self)),) + self.key[1:]

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.runs)

    @property
    def ready(self) -> bool:
        return self.qrels is not None and bool(self.runs)

    @property
    def bundled(self) -> bool:
        """The demo collection or a worked example (replaced, not extended, by an upload)."""
        return self.source == "demo" or self.source.startswith("example:")


def demo() -> Loaded:
    """The bundled demo collection."""
    from sample_data import demo_paths

    qrels_path, run_paths = demo_paths()
    runs = tuple((system_name(p.name), Upload.of(p.name, p.read_bytes())) for p in run_paths)
    return Loaded(qrels=Upload.of(qrels_path.name, qrels_path.read_bytes()), runs=runs, source="demo")


def example(name: str) -> Loaded:
    """One of the seeds' worked examples (sample_data/teaching) as a collection."""
    from sample_data import teaching_examples

    chosen = teaching_examples()[name]
    runs = tuple((system_name(p.name), Upload.of(p.name, p.read_bytes())) for p in chosen["runs"])
    qrels = chosen["qrels"]
    return Loaded(qrels=Upload.of(qrels.name, qrels.read_bytes()), runs=runs, source=f"example:{name}")


def get() -> Loaded:
    """This session's collection (the demo on first use)."""
    if _LOADED not in st.session_state:
        st.session_state[_LOADED] = demo()
    return st.session_state[_LOADED]


def put(loaded: Loaded) -> None:
    st.session_state[_LOADED] = loaded


def with_qrels(loaded: Loaded, upload: Upload) -> Loaded:
    """Replace the qrels (the reference judgment set, evaluated under from now on); the first own file
    replaces a bundled collection."""
    runs = () if loaded.bundled else loaded.runs
    judges = () if loaded.bundled or not loaded.judges else loaded.judges[1:]
    if judges:
        judges = ((unique_name(set_name(upload.name), {n for n, _ in judges}), upload), *judges)
    return replace(loaded, qrels=upload, runs=runs, judges=judges, source="uploads", **_changed(loaded))


# ---- several judgment sets ----------------------------------------------------------------------------------
def judgment_sets(loaded: Loaded) -> tuple[tuple[str, Upload], ...]:
    """The named judgment sets, the reference first: the qrels alone (named after its file) unless more were
    added."""
    if loaded.judges:
        return loaded.judges
    return ((set_name(loaded.qrels.name), loaded.qrels),) if loaded.qrels is not None else ()


def reference(loaded: Loaded) -> Upload | None:
    """The reference judgment set's file (the qrels, when there is only one set)."""
    sets = judgment_sets(loaded)
    return sets[0][1] if sets else None


def judged_by(loaded: Loaded) -> str | None:
    """The name of the judgment set every page evaluates under."""
    sets = judgment_sets(loaded)
    return next((name for name, up in sets if loaded.qrels is not None and up.digest == loaded.qrels.digest),
                sets[0][0] if sets else None)


def under(loaded: Loaded, name: str) -> Loaded:
    """The same collection evaluated under the judgment set ``name`` (not a change of files)."""
    for set_, up in judgment_sets(loaded):
        if set_ == name:
            return loaded if loaded.qrels is up else replace(loaded, qrels=up)
    return loaded


def _added(named, uploads: list[Upload], name_of) -> list[tuple[str, Upload]]:
    """``named`` (name, upload) pairs with each upload that is not there already (by content), named
    ``name_of(its file name)``, made unique with ``-2``, ``-3``..."""
    out = list(named)
    have, names = {up.digest for _, up in out}, {name for name, _ in out}
    for up in uploads:
        if up.digest in have:
            continue
        name = unique_name(name_of(up.name), names)
        names.add(name)
        have.add(up.digest)
        out.append((name, up))
    return out


def with_judgments(loaded: Loaded, uploads: list[Upload]) -> Loaded:
    """Add judgment sets (a file already a set, by content, is not added twice), each named after its file."""
    sets = _added(judgment_sets(loaded), uploads, set_name)
    if len(sets) == len(judgment_sets(loaded)):
        return loaded
    return replace(loaded, judges=tuple(sets), source="uploads", **_changed(loaded))


def renamed_judgments(loaded: Loaded, old: str, new: str) -> Loaded:
    new = new.strip()
    sets = judgment_sets(loaded)
    if not new or new == old or new in {n for n, _ in sets} or "|" in new:
        return loaded
    return replace(loaded, judges=tuple(((new if n == old else n), up) for n, up in sets))


def without_judgments(loaded: Loaded, name: str) -> Loaded:
    """Drop a judgment set other than the reference; evaluated under it, the pages go back to the reference."""
    sets = judgment_sets(loaded)
    kept = tuple((n, up) for n, up in sets[1:] if n != name)
    if len(kept) == len(sets) - 1:
        return loaded
    judges = (sets[0], *kept) if kept else ()
    return replace(loaded, judges=judges, qrels=sets[0][1], source="uploads", **_changed(loaded))


def with_runs(loaded: Loaded, uploads: list[Upload]) -> Loaded:
    """Add runs (a file already loaded, by content, is not added twice); names stay unique."""
    runs = _added(() if loaded.bundled else loaded.runs, uploads, system_name)
    qrels = None if loaded.bundled else loaded.qrels
    judges = () if loaded.bundled else loaded.judges
    return replace(loaded, qrels=qrels, runs=tuple(runs), judges=judges, source="uploads", **_changed(loaded))


def held_runs(loaded: Loaded) -> dict[str, Upload]:
    """``{system: upload}`` of the runs an upload may clash with by name: none in a bundled collection, which
    an upload replaces."""
    return {} if loaded.bundled else dict(loaded.runs)


def replacing_runs(loaded: Loaded, uploads: list[Upload]) -> Loaded:
    """Each upload in place of the loaded run of its system's name (:func:`metrics.system_name`), in that run's
    place; an upload whose name no run holds is added (:func:`with_runs`)."""
    new = {system_name(up.name): up for up in uploads}
    runs = tuple((name, new.pop(name, up)) for name, up in loaded.runs)
    replaced = replace(loaded, runs=runs, source="uploads", **_changed(loaded)) if runs != loaded.runs else loaded
    return with_runs(replaced, list(new.values())) if new else replaced


def with_texts(loaded: Loaded, *, topics: Upload | None = None, documents: Upload | None = None) -> Loaded:
    """Attach the query texts and/or the document texts (the others stay as they are)."""
    return replace(loaded, topics=topics or loaded.topics, documents=documents or loaded.documents)


def renamed(loaded: Loaded, old: str, new: str) -> Loaded:
    new = new.strip()
    if not new or new == old or new in loaded.systems:
        return loaded
    return replace(loaded, runs=tuple(((new if n == old else n), up) for n, up in loaded.runs))


def without(loaded: Loaded, name: str) -> Loaded:
    runs = tuple((n, up) for n, up in loaded.runs if n != name)
    if runs == loaded.runs:
        return loaded
    source = "uploads" if loaded.collection or loaded.parent else loaded.source
    return replace(loaded, runs=runs, source=source, **_changed(loaded))


def _changed(loaded: Loaded) -> dict:
    """A change of files: no longer the stored collection, but a new version of it (or of its parent)."""
    return {"collection": None, "parent": loaded.collection or loaded.parent}


def unique_name(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    i = 2
    while f"{name}-{i}" in taken:
        i += 1
    return f"{name}-{i}"


def with_session(loaded: Loaded, session) -> tuple[Loaded, list[str]]:
    """A session file applied to the loaded collection: its conventions, and its system names for the runs
    whose content it recorded. Returns the new collection and what did not match (files not loaded)."""
    problems = []
    qrels_digest = session.digests.get("qrels")
    if qrels_digest and (loaded.qrels is None or loaded.qrels.digest != qrels_digest):
        problems.append(f"the qrels {session.qrels or ''} of the session is not the one loaded")
    runs = list(loaded.runs)
    by_digest: dict[str, int] = {}
    for i, (_, up) in enumerate(runs):
        by_digest.setdefault(up.digest, i)
    names = {name for name, _ in runs}
    for system, file in session.runs:
        at = by_digest.get(session.digests.get(system) or "")
        if at is None:
            problems.append(f"the run {file} ({system}) of the session is not loaded")
        elif runs[at][0] != system and system not in names:
            names.discard(runs[at][0])
            names.add(system)
            runs[at] = (system, runs[at][1])
    return replace(loaded, runs=tuple(runs), conventions=Conventions.coerce(session.conventions)), problems


# ---- review notes ------------------------------------------------------------------------------------------
def notes() -> dict:
    """This session's review notes ``{topic: {"tags": [...], "comment": str}}`` (normalised)."""
    return st.session_state.setdefault(_NOTES, {})


def put_notes(value: dict) -> None:
    st.session_state[_NOTES] = value
