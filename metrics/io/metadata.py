"""The ir_metadata block of a run file: a PRIMAD description of how the run was made.

A run may open with a block of comment lines holding YAML, as repro_eval's ``MetadataHandler`` writes it
(ir-metadata.org, schema version 0.1)::

    # ir_metadata.start
    # tag: bm25
    # actor:
    #   team: h2oloo
    # ir_metadata.end
    301 Q0 d1 1 2.5 bm25

The block is read from the first line only; its lines are comments, so the ranking below it is read as if
the block were not there. :func:`find_metadata` returns the block's data (plain dicts, lists, strings,
numbers, booleans and ``None``) or ``None`` for a run without one, and raises
:class:`~metrics.errors.ParseError` with the file, the line, what was expected and what was found for a
block that is unterminated, larger than :data:`MAX_BLOCK_BYTES`, not at the top of the file, not YAML, or
not of the schema's shape (:data:`SCHEMA`).

The YAML is composed with PyYAML's safe loader (no object is ever constructed from a tag), anchors and
aliases are refused (no expansion blow-up), and a key given twice is refused rather than silently
overwritten. Every string passes :func:`metrics.io.redaction.redact` as it is read, so a repository
location with a token in it is never shown, stored or exported. Nothing the file says sizes an allocation: the block is searched for in the first
:data:`MAX_BLOCK_BYTES` bytes only.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

import numpy as np

from metrics.checks import Boolean, Field, Kind, ListOf, MapOf, Object, read
from metrics.errors import ParseError, Refused
from metrics.io.parsing import line_number
from metrics.io.redaction import redact

__all__ = ["MAX_BLOCK_BYTES", "MAX_DEPTH", "META_END", "META_START", "SCHEMA", "TOP_LEVEL", "find_metadata",
           "metadata_rows", "metadata_yaml"]

META_START = "# ir_metadata.start"
"""The first line of a block."""
META_END = "# ir_metadata.end"
"""The last line of a block."""
MAX_BLOCK_BYTES = 64 * 1024
"""The most bytes a block may take, its two marker lines included."""
MAX_DEPTH = 32
"""The deepest nesting of mappings and sequences a block may have (the schema's is 5)."""

_START = META_START.encode()
_CLOSES = re.compile(rb"(?:\r\n|\r|\n)# ir_metadata\.end")
_OPENS = re.compile(rb"# ir_metadata\.start[ \t]*(?:\r\n|\r|\n|\Z)")  # the first line, whole
_LINE_END = re.compile(r"\r\n|\r|\n")
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str",
                                                                 "timestamp", "map", "seq"))
_CONSTRUCTOR = None

# the kinds of value the schema names (its checklists' YAML terms); an empty value (null) is taken for any key
_LONGEST = MAX_BLOCK_BYTES  # no sequence or mapping of a block can hold more items than it has bytes
_SCALAR = Kind((str, int, float, bool, type(None)), "a scalar")
_SCALARS = ListOf(_SCALAR, _LONGEST, what="a sequence of scalars")
_MAPPINGS = ListOf(Kind(dict, "a mapping"), _LONGEST, what="a sequence of mappings")


def _mapping(fields: dict[str, Any]) -> Object:
    """A component: its named keys (none required), and any other key kept unchecked, as the schema lists what
    a component "includes but is not limited to"."""
    return Object({name: Field(rule, required=False, null=True) for name, rule in fields.items()}, extra=True,
                  what="a mapping")


def _scalars(*names: str) -> dict[str, Any]:
    return dict.fromkeys(names, _SCALAR)


SCHEMA = Object({name: Field(rule, required=False, null=True) for name, rule in {
    **_scalars("schema-version", "run-version", "tag"),
    "platform": _mapping({
        "hardware": _mapping({
            "cpu": _mapping(_scalars("model", "architecture", "operation mode", "number of cores")),
            "gpu": _mapping(_scalars("architecture", "number of cores", "ram")),
            "ram": _SCALAR}),
        "operating system": _mapping(_scalars("kernel", "distribution")),
        "software": _mapping({
            "libraries": MapOf(Kind(str, "a language"), ListOf(_SCALAR, _LONGEST, what="a sequence of scalars",
                                                               none=True), _LONGEST, what="a mapping"),
            "retrieval toolkit": _SCALARS})}),
    "research goal": _mapping({
        "venue": _mapping(_scalars("name", "year")),
        "publication": _mapping(_scalars("dblp", "doi", "arxiv", "url", "abstract")),
        "evaluation": _mapping({"reported measures": _SCALARS, "reported_measures": _SCALARS, "baseline": _SCALARS,
                                "significance test": _MAPPINGS})}),
    "implementation": _mapping({
        "executable": _mapping(_scalars("cmd")),
        "source": _mapping({"lang": _SCALARS, "repository": _SCALAR, "commit": _SCALAR})}),
    "method": _mapping({
        "automatic": Boolean(), "score ties": _SCALAR,
        "indexing": _mapping(_scalars("tokenizer", "stemmer", "stopwords")), "retrieval": _MAPPINGS}),
    "actor": _mapping({**_scalars("name", "orcid", "team", "mail", "role", "degree", "github", "twitter"),
                       "fields": _SCALARS}),
    "data": _mapping({
        "test collection": _mapping(_scalars("name", "source", "qrels", "topics", "ir_datasets")),
        "training data": _MAPPINGS, "other": _MAPPINGS}),
}.items()}, what="a mapping of PRIMAD components")
"""The published schema (ir-metadata.org, v0.1), declared once: the kind of value each key holds.

Any key the schema does not name is refused at the top level and kept unchecked below it; an empty value
(YAML ``null``) is taken for any key. A refusal names the key's path from ``ir_metadata`` and its line."""
TOP_LEVEL = tuple(SCHEMA.fields)
"""The keys the schema allows at the top of a block; any other top-level key is refused."""


def find_metadata(data: bytes, label: str) -> dict[str, Any] | None:
    """The ir_metadata block at the top of a run's bytes, or ``None`` when the run has none.

    Parameters
    ----------
    data : bytes or mmap.mmap
        The file's bytes (decompressed, without a byte-order mark), as the readers hold them.
    label : str
        The file name used in messages.

    Returns
    -------
    dict or None
        The block's YAML as plain data (keys are strings; dates become ISO strings).

    Raises
    ------
    ParseError
        For a block that is unterminated, past :data:`MAX_BLOCK_BYTES`, not on the first line, not YAML,
        or whose keys hold values of the wrong kind; one line naming the file and line.

    Examples
    --------
    >>> find_metadata(b"# ir_metadata.start\\n# tag: bm25\\n# ir_metadata.end\\n1 Q0 d 1 1 bm25\\n", "r")
    {'tag': 'bm25'}
    >>> find_metadata(b"1 Q0 d 1 1 bm25\\n", "r") is None
    True
    """
    head = bytes(data[:MAX_BLOCK_BYTES + 1])
    if _OPENS.match(head) is None:
        _refuse_late_block(data, label)
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < MAX_BLOCK_BYTES - 3:  # not a character cut by the cap
            line = head[:err.start].count(b"\n") + 1
            raise ParseError(label, line, "expected UTF-8 text in the ir_metadata block, found "
                                          f"byte 0x{head[err.start]:02x}") from None
        text = head[:err.start].decode("utf-8")
    lines = _LINE_END.split(text)
    complete = len(head) <= MAX_BLOCK_BYTES
    for number, line in enumerate(lines[1:], start=2):
        if number == len(lines) and not complete:
            break  # a line cut by the cap
        if line.rstrip(" \t") == META_END:
            metadata = _load_yaml(lines[1:number - 1], label)
            closed = _CLOSES.search(head)
            _refuse_late_block(data, label, closed.end() if closed is not None else 0)
            return metadata
        if not line.startswith("#") and (line.strip() or number < len(lines)):
            raise ParseError(label, number, f'expected "{META_END}" to close the ir_metadata block opened on '
                                            f'line 1, found a line that is not a comment: "{_clip(line)}"')
    if not complete:
        raise ParseError(label, 1, f"expected an ir_metadata block of at most {MAX_BLOCK_BYTES >> 10} KB, "
                                   "found a larger one")
    raise ParseError(label, 1, f'expected "{META_END}" to close the ir_metadata block, found the end of the file')


def _refuse_late_block(data: bytes, label: str, after: int = 0) -> None:
    """Refuse a start marker at the start of any line past byte ``after`` (a block must open the file).

    A memchr for ``#`` first (a ranking has none, mostly: the cost is that one pass), then, only if one
    occurs, one vectorised look at the comment lines: linear in the input, whatever it holds.
    """
    at = data.find(b"#", after)
    if at < 0:
        return
    raw = np.frombuffer(data, dtype=np.uint8)
    where = np.flatnonzero(raw[at:] == ord("#")) + at
    where = where[(where > 0) & (where + len(_START) <= raw.size)]
    before = raw[where - 1]
    where = where[(before == 10) | (before == 13)]  # "#" opening a line
    for k, byte in enumerate(_START):
        where = where[raw[where + k] == byte]
    if where.size:
        line = line_number(data, int(where[0]))
        raise ParseError(label, line, f'expected the ir_metadata block at the top of the file (line 1), '
                                      f'found "{META_START}" on line {line}')


def _load_yaml(lines: list[str], label: str) -> dict[str, Any] | None:
    """The YAML of the block's comment lines (line 2 of the file first), checked against the schema."""
    import yaml  # only for runs with a block: start-up stays fast

    text = []
    for number, line in enumerate(lines, start=2):
        if not line.startswith("#"):
            raise ParseError(label, number, 'expected a comment line ("# ...") inside the ir_metadata block, '
                                            f'found "{_clip(line)}"')
        text.append(line[2:] if line.startswith("# ") else line[1:])
    try:
        _check_events(yaml.parse("\n".join(text), Loader=yaml.SafeLoader), label)  # before the composer recurses
        loader = yaml.SafeLoader("\n".join(text))
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 2 if mark is not None else 1
        raise ParseError(label, line, f"expected YAML in the ir_metadata block, found an error: "
                                      f"{err.problem or err.context}") from None
    except yaml.YAMLError as err:
        raise ParseError(label, 1, f"expected YAML in the ir_metadata block, found an error: {err}") from None
    if node is None:
        return None
    lines: dict[tuple, int] = {}
    data = _value(node, (), label, set(), lines)
    try:
        return read(data, SCHEMA, at="ir_metadata")
    except Refused as err:
        path = err.path
        while path not in lines:  # the deepest part of the path with a line of its own (the root has one)
            path = path[:-1]
        raise ParseError(label, lines[path], str(err)) from None


def _check_events(events, label: str) -> None:
    """Refuse an alias and nesting deeper than :data:`MAX_DEPTH`, from PyYAML's events (its parser is a
    state machine: no recursion however deep the input)."""
    import yaml

    depth = 0
    for event in events:
        if isinstance(event, yaml.AliasEvent):
            raise ParseError(label, event.start_mark.line + 2, "expected plain YAML in the ir_metadata block, "
                                                               "found an alias of an anchor")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise ParseError(label, event.start_mark.line + 2, f"expected at most {MAX_DEPTH} levels of "
                                                                   "nesting in the ir_metadata block, found more")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def _kind(node) -> str:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a sequence"
    return f'the scalar "{_clip(node.value)}"'


def _value(node, path: tuple, label: str, seen: set[int], lines: dict[tuple, int]) -> Any:
    """Plain data of a composed node, plain YAML checked on the way (no tag is ever constructed into an object),
    with the line of each value's node by its path in ``lines``."""
    import yaml

    if id(node) in seen:  # an alias: the composer hands back the anchored node itself
        raise ParseError(label, node.start_mark.line + 2, "expected plain YAML in the ir_metadata block, "
                                                          "found an anchor used again (an alias)")
    seen.add(id(node))
    if node.tag not in _PLAIN_TAGS:
        raise ParseError(label, node.start_mark.line + 2, "expected plain YAML in the ir_metadata block, "
                                                          f'found the tag "{_clip(node.tag)}"')
    lines[path] = node.start_mark.line + 2
    if isinstance(node, yaml.ScalarNode):
        try:
            value = _constructor().construct_object(node)
        except (ValueError, yaml.YAMLError):  # a date that is no date ("2019-13-45"): kept as written
            return redact(node.value)
        if isinstance(value, (_dt.date, _dt.datetime)):
            return value.isoformat()
        return redact(value) if isinstance(value, str) else value
    if isinstance(node, yaml.SequenceNode):
        return [_value(item, path + (i,), label, seen, lines) for i, item in enumerate(node.value)]
    result: dict[str, Any] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise ParseError(label, key_node.start_mark.line + 2, "expected a scalar key in the ir_metadata "
                                                                  f"block, found {_kind(key_node)}")
        key = key_node.value
        if key in result:
            raise ParseError(label, key_node.start_mark.line + 2, f'expected each key once in the ir_metadata '
                                                                  f'block, found "{_clip(key)}" again')
        result[key] = _value(value_node, path + (key,), label, seen, lines)
    return result


def _constructor():
    """PyYAML's safe constructor, for the scalars of the tags in ``_PLAIN_TAGS`` only."""
    import yaml

    global _CONSTRUCTOR
    if _CONSTRUCTOR is None:
        _CONSTRUCTOR = yaml.constructor.SafeConstructor()
    return _CONSTRUCTOR


def metadata_rows(metadata: dict[str, Any]) -> list[tuple[str, str]]:
    """The block as ``(key path, value)`` rows of text, for a table: a path's parts joined by " › ", a
    sequence of scalars joined by ", ", the items of a sequence of mappings numbered from 1.

    Parameters
    ----------
    metadata : dict
        What :func:`find_metadata` returned.

    Returns
    -------
    list of (str, str)
        Plain text, to be shown as text (never as markup); empty values as "".

    Examples
    --------
    >>> metadata_rows({"tag": "bm25", "actor": {"fields": ["ir", "nlp"]}, "method": {"retrieval": [{"name": "bm25"}]}})
    [('tag', 'bm25'), ('actor › fields', 'ir, nlp'), ('method › retrieval › 1 › name', 'bm25')]
    """
    rows: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [("", metadata)]
    while stack:  # depth first, in the file's order, without recursion
        path, value = stack.pop()
        if isinstance(value, dict):
            items = [(f"{path} › {key}" if path else str(key), item) for key, item in value.items()]
        elif isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
            items = [(f"{path} › {i}", item) for i, item in enumerate(value, start=1)]
        else:
            text = ", ".join(map(_text, value)) if isinstance(value, list) else _text(value)
            rows.append((path, text))
            continue
        stack.extend(reversed(items))
    return rows


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def metadata_yaml(metadata: dict[str, Any]) -> str:
    """The block's data as YAML text, keys in the order of the file.

    Parameters
    ----------
    metadata : dict
        What :func:`find_metadata` returned.

    Returns
    -------
    str

    Examples
    --------
    >>> print(metadata_yaml({"tag": "bm25", "actor": {"team": "h2oloo"}}), end="")
    tag: bm25
    actor:
      team: h2oloo
    """
    import yaml

    return yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=4096)


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
