"""An ir_metadata block with any one key holding the wrong kind of value is refused in one line naming the
run file, the line and the key's path.

The example holds every key the schema (``SCHEMA``) names, built from the declaration itself, and every key
is made wrong in turn by ``tests/documents.py``: a key added to the schema is covered without a line of
this file changing.
"""

from __future__ import annotations

import re

import pytest
import yaml

from metrics.checks import Boolean, Kind, ListOf, MapOf, Object
from metrics.errors import ParseError
from metrics.io.metadata import SCHEMA, find_metadata
from tests.documents import cases, unreached


def example(rule):
    """A value of every key ``rule`` declares, all the way down."""
    if isinstance(rule, Object):
        return {name: example(field.rule) for name, field in rule._declared.items()}
    if isinstance(rule, ListOf):
        return [example(rule.item)]
    if isinstance(rule, MapOf):
        return {"python": example(rule.values)}
    if isinstance(rule, Boolean):
        return True
    assert isinstance(rule, Kind), rule
    return {"name": "x"} if rule.types is dict else "x"


def block(data) -> bytes:
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    return ("# ir_metadata.start\n" + "".join(f"# {line}\n" for line in text.splitlines())
            + "# ir_metadata.end\n1 Q0 d1 1 2.5 x\n").encode()


EXAMPLE = example(SCHEMA)
CASES = cases(EXAMPLE, SCHEMA, at="ir_metadata")


def test_the_example_reads_back_whole_and_reaches_every_declared_key():
    assert find_metadata(block(EXAMPLE), "r.run") == EXAMPLE
    assert unreached(EXAMPLE, SCHEMA) == []
    assert len(CASES) > 60


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_wrong_key_is_one_line_naming_the_file_the_line_and_its_path(case):
    with pytest.raises(ParseError) as caught:
        find_metadata(block(case.document), "r.run")
    assert re.fullmatch(r"r\.run:\d+: (.*)", str(caught.value)).group(1) == case.message
    assert 2 <= caught.value.line <= block(case.document).count(b"\n")
