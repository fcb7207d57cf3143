"""The public Python API, as ``rankscope/api.py`` declares it: it exists, it is what the examples use, and it
is what the reference documents.

A module is public when the declaration names it, and its ``__all__`` is its API: every name in it exists
and every function and class has a docstring. Every import and every ``module.name`` of the Python examples
of the README and of the site names a public module and a name of its ``__all__``: the documentation never
teaches an internal name. The reference pages are generated from the same declaration, so they document
each public module and nothing else.
"""

from __future__ import annotations

import ast
import importlib
import re
import inspect
import sys

import pytest

from rankscope.api import GROUPS, PUBLIC_MODULES
from tests.docs import examples

DECLARED = {m.name: m for m in PUBLIC_MODULES}


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_each_public_module_declares_what_it_exports_each_name_documented(name):
    module = importlib.import_module(name)
    assert DECLARED[name].group in GROUPS and DECLARED[name].summary
    assert inspect.getdoc(module), f"{name} has no docstring"
    assert isinstance(getattr(module, "__all__", None), (list, tuple)), f"{name} declares no __all__"
    assert len(set(module.__all__)) == len(module.__all__), f"{name}.__all__ names a name twice"
    for export in module.__all__:
        assert hasattr(module, export), f"{name}.__all__ names {export}, which it does not have"
        value = getattr(module, export)
        if inspect.isclass(value) or inspect.isroutine(value):
            assert inspect.getdoc(value), f"{name}.{export} has no docstring"


def _used(code: str) -> set[str]:
    """The dotted names a piece of Python imports or reads from an imported rankscope module."""
    tree = ast.parse(code)
    used, aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                used.add(alias.name)
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    aliases[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            used.update(f"{node.module}.{alias.name}" for alias in node.names)
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:  # the whole chain, a.b.c, once
            chain = []
            while isinstance(node, ast.Attribute):
                chain.append(node.attr)
                node = node.value
            if isinstance(node, ast.Name) and node.id in aliases:
                used.add(".".join([aliases[node.id], *reversed(chain)]))
    return {u for u in used if u.split(".")[0] in ("metrics", "rankscope", "sample_data", "workspace", "dashboard")}


def is_public(dotted: str) -> bool:
    """A declared module, a name of its ``__all__``, or an attribute of such a name (a method)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        head = ".".join(parts[:i])
        if head in DECLARED:
            return i == len(parts) or parts[i] in importlib.import_module(head).__all__
    return False


def test_the_examples_use_the_public_api_only():
    found = {}
    for page in examples.pages():
        for block in examples.blocks(page):
            if block.language in ("python", "pycon"):
                code = block.text if block.language == "python" else "\n".join(
                    line[4:] for line in block.text.splitlines() if line.startswith((">>> ", "... ")))
                for name in _used(code):
                    found.setdefault(name, block.where())
    assert found, "no Python example found"
    internal = {name: where for name, where in found.items() if not is_public(name)}
    assert internal == {}, f"examples use names outside the public API (rankscope/api.py): {internal}"


def test_the_checks_see_an_internal_name():
    assert _used("import metrics\nmetrics.io.duplicates.decimal_key(1)\nfrom metrics.stats.ties import is_exact") \
        == {"metrics", "metrics.io.duplicates.decimal_key", "metrics.stats.ties.is_exact"}
    assert not is_public("metrics.io.duplicates.decimal_key") and not is_public("metrics.io")
    assert is_public("metrics.stats.ties.is_exact") and is_public("metrics.Rankings.select_queries")


def test_the_reference_documents_every_public_module_and_only_those():
    sys.path.insert(0, str(examples.DOCS / "_ext"))
    try:
        import api_pages
    finally:
        sys.path.remove(str(examples.DOCS / "_ext"))
    written = "\n".join(api_pages.pages().values())
    assert set(re.findall(r"^\.\. automodule:: (\S+)$", written, re.M)) == set(DECLARED)
