"""Topic and document texts: the words behind the ids of qrels and runs.

:func:`read_topics` gives :class:`Topics` (topic id -> query text), :func:`read_documents` gives
:class:`Documents` (document id -> :class:`DocText`). Both accept what the qrels and run readers accept (a
path, plain or gzip, the file's bytes or its text) and tell the format from the content:

=========  ======================================================  ==========================================
format     topics                                                  documents
=========  ======================================================  ==========================================
TREC       ``<top> <num> Number: 401 <title> ... <desc> ...``,     ``<DOC> <DOCNO>id</DOCNO> <TITLE>...</TITLE>
           closing tags optional (``<num>1</num><title>..``);     <TEXT>...</TEXT> </DOC>``; without
           the text is the title, else the description            ``<TEXT>``, all text outside ``<DOCNO>``
SMART      ``.I 001`` ``.W`` text (Cranfield's ``cran.qry``);      ``.I 1`` ``.T`` title ``.A`` ``.B`` ``.W``
           topics are numbered 1, 2, 3 ... by position, as the     text (Cranfield's ``cran.all.1400``); ids
           SMART collections' judgments number them               are the ``.I`` values
TSV        ``qid<TAB>text``                                        ``docid<TAB>text`` or
                                                                   ``docid<TAB>title<TAB>text``
JSONL      ``{"qid"|"query_id"|"id": .., "text"|"query"|"title":   ``{"docid"|"doc_id"|"id"|"_id": ..,
           ..}`` per line                                          "title": .., "text"|"body"|"contents": ..}``
=========  ======================================================  ==========================================

The TREC and SMART formats break lines for layout: their texts come back with runs of white space made
one space, and character references (``&amp;``) decoded to the characters they stand for. TSV and JSONL
texts come back as written, stripped of surrounding white space. Texts are plain strings; nothing here
reads them as markup. A file that cannot be read raises :class:`~metrics.errors.ParseError` naming the
file, the line, what was expected and what was found; an id given twice names both lines. Reading is
linear in the size of the input.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from metrics.checks import Integer, check, refuse, where
from metrics.errors import ParseError, ValidationError
from metrics.io.parsing import clip, line_number
from metrics.io.readers import ReadLimits, _check_text, _load

__all__ = ["DocText", "Documents", "Topics", "read_documents", "read_topics"]

TextSource = str | os.PathLike | bytes | bytearray

TOPIC_ID_KEYS = ("qid", "query_id", "id")
TOPIC_TEXT_KEYS = ("text", "query", "title")
DOC_ID_KEYS = ("docid", "doc_id", "id", "_id")
DOC_TEXT_KEYS = ("text", "body", "contents")
_TOPICS_LAYOUT = 'of topics: TREC "<top>", SMART ".I", "qid<TAB>text" or JSON lines'
_DOCS_LAYOUT = 'of documents: TREC "<DOC>", SMART ".I", "docid<TAB>text" or JSON lines'

# a tag: "<name ...>" or "</name>"; the attributes stop at the next "<" or ">", so a scan stays linear
_TAG = re.compile(r"<(/?)([A-Za-z][\w.-]*)(?:\s[^<>]*)?>")
_SMART_MARK = re.compile(r"\.([A-Z])(?:[ \t]+(.*?))?[ \t]*\Z")
_FIRST = re.compile(r"\s*")
_PREFIX = {name: re.compile(rf"\s*{word}\s*:", re.IGNORECASE)
           for name, word in (("num", "number"), ("title", "topic"), ("desc", "description"),
                              ("narr", "narrative"))}


@dataclass(frozen=True)
class DocText:
    """The text of one document.

    Attributes
    ----------
    title : str
        The title; ``""`` when the file gives none.
    text : str
        The body.
    """

    title: str = ""
    text: str = ""


class _Texts(Mapping):
    """An immutable mapping of ids to texts with the name of the file it was read from."""

    __slots__ = ("_items", "_name")
    _kind = "texts"

    def __init__(self, items: Mapping | Iterable[tuple] = (), name: str = "") -> None:
        items = dict(items)
        for key, value in items.items():
            if not isinstance(key, str):
                raise refuse(f"{self._kind} ids", "strings", key)
            self._check_value(key, value)
        object.__setattr__(self, "_items", items)
        object.__setattr__(self, "_name", str(name))

    @staticmethod
    def _check_value(key: str, value: object) -> None:
        raise NotImplementedError

    @property
    def name(self) -> str:
        """Where the texts came from (the file name), used in messages."""
        return self._name

    def __getitem__(self, key: str):
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self):
        return type(self), (self._items, self._name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._name!r}, {len(self._items)} {self._kind})"


class Topics(_Texts):
    """Topic id -> query text, read by :func:`read_topics`; an immutable mapping with a ``name``.

    Examples
    --------
    >>> t = Topics({"401": "foreign minorities, Germany"}, name="topics.401")
    >>> t["401"], len(t), t.name
    ('foreign minorities, Germany', 1, 'topics.401')
    """

    __slots__ = ()
    _kind = "topics"

    @staticmethod
    def _check_value(key: str, value: object) -> None:
        if not isinstance(value, str):
            raise refuse(where("topics", [key]), "a string", value)


class Documents(_Texts):
    """Document id -> :class:`DocText`, read by :func:`read_documents`; an immutable mapping with a ``name``.

    Examples
    --------
    >>> d = Documents({"d1": DocText("", "a wing in a slipstream")}, name="docs")
    >>> d.preview("d1", words=3), d.preview("nope")
    ('a wing in', '')
    """

    __slots__ = ()
    _kind = "documents"

    @staticmethod
    def _check_value(key: str, value: object) -> None:
        if not isinstance(value, DocText):
            raise refuse(where("documents", [key]), "a DocText", value)

    def preview(self, docid: str, words: int = 30) -> str:
        """A one-line preview of document ``docid``: its title if it has one, else the first ``words``
        words of its text; ``""`` for an id it does not know."""
        words = check("words", words, Integer(0))
        doc = self._items.get(docid)
        if doc is None:
            return ""
        if doc.title.strip():
            return " ".join(doc.title.split())
        return " ".join(doc.text.split(maxsplit=words)[:words])


# --------------------------------------------------------------------------------------------------------
# public readers


def read_topics(source: TextSource, *, name: str | None = None, limits: ReadLimits | None = None) -> Topics:
    """Read topics (queries): TREC topic files, SMART (``.I``/``.W``), ``qid<TAB>text`` or JSON lines.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        A path (plain or gzip), the file's bytes, or its text (a ``str`` containing a newline).
    name : str, optional
        The name used in messages; defaults to the file name.
    limits : metrics.io.ReadLimits, optional
        Lower limits on gzip input (default: ``GZIP_LIMIT``, no ratio check).

    Returns
    -------
    Topics
        Topic id -> query text, in file order.

    Raises
    ------
    ParseError
        On input that cannot be read, naming the file and line.

    Examples
    --------
    >>> read_topics("<top>\\n<num> Number: 401\\n<title> foreign minorities, Germany\\n</top>\\n")["401"]
    'foreign minorities, Germany'
    >>> dict(read_topics(b'{"qid": 1, "text": "wing"}\\n'))
    {'1': 'wing'}
    """
    text, label = _text(source, name, _TOPICS_LAYOUT, limits)
    kind = _sniff(text, label, "top", "TREC topics")
    if kind == "sgml":
        pairs = ((at, _topic(parts, label, lambda at=at: _line(text, at))) for at, parts in
                 _sgml(text, label, "top", ("num", "title", "desc", "narr")))
        items = _collect(pairs, label, "topic", lambda at: _line(text, at))
    elif kind == "smart":
        records = _collect(((number, (ident, fields)) for number, ident, fields in _smart(text, label, "topic")),
                           label, "topic")
        items = {str(i): fields.get("W") or fields.get("T", "") for i, fields in enumerate(records.values(), 1)}
    elif kind == "jsonl":
        items = _collect(_jsonl(text, label, "topic", TOPIC_ID_KEYS, TOPIC_TEXT_KEYS, _topic_json), label, "topic")
    else:
        items = _collect(_tsv(text, label, "topic", (2,), '"qid<TAB>text"', TOPIC_ID_KEYS, TOPIC_TEXT_KEYS,
                              lambda f: f[1].strip()), label, "topic")
    return Topics(items, name=label)


def read_documents(source: TextSource, *, name: str | None = None, limits: ReadLimits | None = None) -> Documents:
    """Read document texts: TREC ``<DOC>`` files, SMART (``.I``/``.T``/``.W``), TSV or JSON lines.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        A path (plain or gzip), the file's bytes, or its text (a ``str`` containing a newline).
    name : str, optional
        The name used in messages; defaults to the file name.
    limits : metrics.io.ReadLimits, optional
        Lower limits on gzip input (default: ``GZIP_LIMIT``, no ratio check).

    Returns
    -------
    Documents
        Document id -> :class:`DocText`, in file order.

    Raises
    ------
    ParseError
        On input that cannot be read, naming the file and line.

    Examples
    --------
    >>> docs = read_documents("d1\\tWings\\tan experimental study of a wing\\n")
    >>> docs["d1"], docs.preview("d1")
    (DocText(title='Wings', text='an experimental study of a wing'), 'Wings')
    """
    text, label = _text(source, name, _DOCS_LAYOUT, limits)
    kind = _sniff(text, label, "doc", "TREC documents")
    if kind == "sgml":
        pairs = ((at, _document(parts, label, lambda at=at: _line(text, at))) for at, parts in
                 _sgml(text, label, "doc", ("docno", "title", "headline", "head", "text")))
        items = _collect(pairs, label, "document", lambda at: _line(text, at))
    elif kind == "smart":
        items = _collect(((number, (ident, DocText(fields.get("T", ""), fields.get("W", ""))))
                          for number, ident, fields in _smart(text, label, "document")), label, "document")
    elif kind == "jsonl":
        items = _collect(_jsonl(text, label, "document", DOC_ID_KEYS, DOC_TEXT_KEYS, _document_json), label,
                         "document")
    else:
        items = _collect(_tsv(text, label, "document", (2, 3), '"docid<TAB>text" or "docid<TAB>title<TAB>text"',
                              DOC_ID_KEYS, ("title", *DOC_TEXT_KEYS),
                              lambda f: DocText(f[1].strip() if len(f) == 3 else "", f[-1].strip())),
                         label, "document")
    return Documents(items, name=label)


# --------------------------------------------------------------------------------------------------------
# bytes to text, and which format


def _text(source: TextSource, name: str | None, layout: str, limits: ReadLimits | None) -> tuple[str, str]:
    """The source's text, with every line ending made LF, and its label."""
    if not isinstance(source, (str, os.PathLike, bytes, bytearray, memoryview)):
        raise ValidationError(f"cannot read {type(source).__name__}: expected a path, bytes or text")
    data, label = _load(source, name, limits=limits)
    _check_text(data, label, layout)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ParseError(label, line_number(data, err.start),
                         f"expected UTF-8 text, found byte 0x{data[err.start]:02x}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n"), label


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _sniff(text: str, label: str, record: str, what: str) -> str:
    start = _FIRST.match(text).end()
    if text.startswith("<", start):
        tag = _TAG.match(text, start)
        if tag is None or tag.group(1) or tag.group(2).lower() != record:
            found = clip(text[start:].split("\n", 1)[0])
            raise ParseError(label, _line(text, start), f'expected {what} starting with "<{record}>", '
                                                        f'found "{found}"')
        return "sgml"
    if text.startswith("{", start):
        return "jsonl"
    end = text.find("\n", start)
    mark = _SMART_MARK.match(text[start:end if end >= 0 else len(text)])
    if mark and mark.group(1) == "I":
        return "smart"
    return "tsv"


def _collect(pairs: Iterable[tuple[int, tuple[str, object]]], label: str, kind: str,
             line_of: Callable[[int], int] = int) -> dict[str, object]:
    """Ids and values in file order; a repeated id raises, naming both places (``line_of`` turns a place
    into a line number)."""
    items: dict[str, object] = {}
    where: dict[str, int] = {}
    for at, (ident, value) in pairs:
        first = where.setdefault(ident, at)
        if first != at:
            raise ParseError(label, line_of(at), f'expected each {kind} id once, found "{clip(ident)}" again '
                                                 f"(first on line {line_of(first)})")
        items[ident] = value
    return items


def _clean(pieces: list[str] | None) -> str:
    """Pieces of a TREC or SMART field as one line of text: white space runs made one space, character
    references decoded."""
    return html.unescape(" ".join(" ".join(pieces).split())) if pieces else ""


def _check_id(ident: str, label: str, line: int | Callable[[], int], kind: str, where: str) -> str:
    """``ident`` if it is one non-empty word; ``line`` may be a function computing the line (on error only)."""
    if ident and len(ident.split()) == 1:
        return ident
    found = f'"{clip(ident)}"' if ident else "none"
    raise ParseError(label, line() if callable(line) else line,
                     f"expected a {kind} id {'without white space ' if ident else ''}in {where}, found {found}")


# --------------------------------------------------------------------------------------------------------
# TREC: <top> and <DOC> records


def _sgml(text: str, label: str, record: str, fields: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    """Each ``<record> ... </record>`` as (offset of its opening tag, {field: pieces of text}); text outside
    the named fields goes to field ``""``. A field ends at its closing tag or where the next field starts."""
    tag_name = record.upper() if record == "doc" else record
    opened: int | None = None
    parts: dict[str, list[str]] = {}
    field = ""
    pos = 0
    for tag in _TAG.finditer(text):
        chunk = text[pos:tag.start()]
        pos = tag.end()
        closing, name = bool(tag.group(1)), tag.group(2).lower()
        if opened is None:
            if chunk.strip():
                at = tag.start() - len(chunk) + (len(chunk) - len(chunk.lstrip()))
                raise ParseError(label, _line(text, at), f'expected "<{tag_name}>", found '
                                                         f'"{clip(chunk.strip().split(chr(10))[0])}"')
            if closing or name != record:
                raise ParseError(label, _line(text, tag.start()), f'expected "<{tag_name}>", found "{clip(tag[0])}"')
            opened, parts, field = tag.start(), {}, ""
            continue
        if chunk:
            parts.setdefault(field, []).append(chunk)
        if name == record:
            if not closing:
                raise ParseError(label, _line(text, tag.start()),
                                 f'expected "</{tag_name}>" to close the record opened on line '
                                 f'{_line(text, opened)}, found "{clip(tag[0])}"')
            yield opened, parts
            opened = None
        elif name in fields:
            field = "" if closing else name
    if opened is not None:
        raise ParseError(label, _line(text, opened), f'expected "</{tag_name}>" to close this record, found '
                                                     f"the end of the file")
    rest = text[pos:].strip()
    if rest:
        raise ParseError(label, _line(text, len(text.rstrip()) - len(rest)),
                         f'expected "<{tag_name}>", found "{clip(rest.split(chr(10))[0])}"')


def _unprefixed(parts: dict, field: str) -> str:
    value = _clean(parts.get(field))
    prefix = _PREFIX[field].match(value)
    return value[prefix.end():].strip() if prefix else value


def _topic(parts: dict, label: str, line: Callable[[], int]) -> tuple[str, str]:
    ident = _check_id(_unprefixed(parts, "num"), label, line, "topic", '"<num>"')
    return ident, _unprefixed(parts, "title") or _unprefixed(parts, "desc")


def _document(parts: dict, label: str, line: Callable[[], int]) -> tuple[str, DocText]:
    ident = _check_id(_clean(parts.get("docno")), label, line, "document", '"<DOCNO>"')
    title = _clean(parts.get("title") or parts.get("headline") or parts.get("head"))
    return ident, DocText(title, _clean(parts["text"] if "text" in parts else parts.get("")))


# --------------------------------------------------------------------------------------------------------
# SMART: ".I id" then ".T", ".A", ".B", ".W" ... fields


def _smart(text: str, label: str, kind: str) -> Iterator[tuple[int, str, dict[str, str]]]:
    """Each record as (line of its ``.I``, id, {field letter: text})."""
    ident, number, fields, field = None, 0, {}, ""
    for line_no, line in enumerate(text.split("\n"), start=1):
        mark = _SMART_MARK.match(line) if line.startswith(".") else None
        if mark and mark.group(1) == "I":
            if ident is not None:
                yield number, ident, {k: _clean(v) for k, v in fields.items()}
            ident = _check_id(mark.group(2) or "", label, line_no, kind, '".I"')
            number, fields, field = line_no, {}, ""
        elif ident is None:
            if line.strip():
                raise ParseError(label, line_no, f'expected ".I {kind}-id", found "{clip(line.strip())}"')
        elif mark:
            field = mark.group(1)
            fields.setdefault(field, [])
            if mark.group(2):
                fields[field].append(mark.group(2))
        else:
            fields.setdefault(field, []).append(line)
    if ident is not None:
        yield number, ident, {k: _clean(v) for k, v in fields.items()}


# --------------------------------------------------------------------------------------------------------
# JSON lines and TSV


def _jsonl(text: str, label: str, kind: str, id_keys: tuple[str, ...], text_keys: tuple[str, ...],
           make: Callable) -> Iterator[tuple[int, tuple[str, object]]]:
    expected = f'a JSON object with an id ({", ".join(map(json.dumps, id_keys))})'
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise ParseError(label, number, f"expected {expected}, found invalid JSON ({err.msg} at column "
                                            f"{err.colno})") from None
        if not isinstance(obj, dict):
            raise ParseError(label, number, f"expected {expected}, found a JSON {type(obj).__name__}")
        key = next((k for k in id_keys if k in obj), None)
        if key is None:
            raise ParseError(label, number, f'expected {expected}, found keys "{clip(", ".join(obj))}"')
        ident = obj[key]
        if isinstance(ident, bool) or not isinstance(ident, (str, int)):
            raise ParseError(label, number, f'expected a string or an integer in "{key}", found '
                                            f'"{clip(json.dumps(ident))}"')
        ident = _check_id(str(ident).strip(), label, number, kind, f'"{key}"')
        yield number, (ident, make(obj, text_keys, label, number))


def _string(obj: dict, key: str, label: str, number: int) -> str:
    value = obj[key]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ParseError(label, number, f'expected a string in "{key}", found "{clip(json.dumps(value))}"')
    return value.strip()


def _topic_json(obj: dict, keys: tuple[str, ...], label: str, number: int) -> str:
    key = next((k for k in keys if k in obj), None)
    if key is None:
        raise ParseError(label, number, f'expected a query text ({", ".join(map(json.dumps, keys))}), found '
                                        f'keys "{clip(", ".join(obj))}"')
    return _string(obj, key, label, number)


def _document_json(obj: dict, keys: tuple[str, ...], label: str, number: int) -> DocText:
    key = next((k for k in keys if k in obj), None)
    if key is None and "title" not in obj:
        raise ParseError(label, number, f'expected a text ({", ".join(map(json.dumps, keys))}) or a "title", '
                                        f'found keys "{clip(", ".join(obj))}"')
    title = _string(obj, "title", label, number) if "title" in obj else ""
    return DocText(title, _string(obj, key, label, number) if key else "")


def _tsv(text: str, label: str, kind: str, counts: tuple[int, ...], layout: str, id_names: tuple[str, ...],
         header_names: tuple[str, ...], make: Callable) -> Iterator[tuple[int, tuple[str, object]]]:
    """Tab-separated lines; a first line naming the columns (``qid<TAB>text``) is a header."""
    wanted = " or ".join(map(str, counts))
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) not in counts:
            hint = " (fields are separated by tabs)" if len(fields) == 1 and " " in line.strip() else ""
            raise ParseError(label, number, f"expected {wanted} tab-separated fields {layout}, found "
                                            f"{len(fields)}{hint}")
        ident = fields[0].strip()
        if number == 1 and ident.lower() in id_names and fields[-1].strip().lower() in header_names:
            continue
        yield number, (_check_id(ident, label, number, kind, "field 1"), make(fields))
