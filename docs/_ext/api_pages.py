"""The Python reference, written from the declaration of the public API (:mod:`rankscope.api`).

One page per group of :data:`rankscope.api.GROUPS`; on each, every public module of the group with the
names of its ``__all__``, documented by autodoc from their numpydoc docstrings. A name two public modules
export (``metrics.Measure`` is ``metrics.measures.Measure``) is documented once, in the first, and linked
from the other.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from functools import lru_cache

INDEX = """# Python API

The public API is the modules below, and in each the names its `__all__` lists. They are declared once, in
`rankscope/api.py`: these pages are generated from that declaration, and a test checks that every module
imports, that every function and class has a docstring, and that every example on this site and in the
README imports only from them. Every other module is internal and may change in any release.

`metrics` has no user interface: `pip install rankscope` gives it with numpy, pandas, scipy, pyarrow and
PyYAML alone. `rankscope.notebook` needs the dashboard (`pip install "rankscope[dashboard]"`).

"""


def group_page(group: str) -> str:
    """Where a group's page is, relative to the source folder, without its suffix."""
    return f"reference/python/{group}"


def pages() -> dict[str, str]:
    """Path -> Markdown of every page of the Python reference, the index first."""
    from rankscope.api import GROUPS, PUBLIC_MODULES

    index = [INDEX, "| module | what it is for |", "|---|---|"]
    toctree = ["```{toctree}", ":hidden:", ""]
    out: dict[str, str] = {}
    first = homes()
    for group, title in GROUPS.items():
        modules = [m for m in PUBLIC_MODULES if m.group == group]
        lines = [f"# {title}\n"]
        toctree.append(group)
        for m in modules:
            index.append(f"| {{py:mod}}`{m.name}` | {m.summary} |")
            directives, elsewhere = [f".. automodule:: {m.name}"], []
            for name in exported(m.name):
                home = first[_key(m.name, name)]
                if home == f"{m.name}.{name}":
                    directives.append(directive(m.name, name))
                else:
                    elsewhere.append(f"{{py:obj}}`{name} <{home}>`")
            lines.append("```{eval-rst}\n" + "\n\n".join(directives) + "\n```\n")
            if elsewhere:
                lines.append(f"Also exported by `{m.name}`, documented where first exported: "
                             + ", ".join(elsewhere) + ".\n")
        out[f"{group_page(group)}.md"] = "\n".join(lines) + "\n"
    toctree.append("```")
    return {"reference/python/index.md": "\n".join(index) + "\n\n" + "\n".join(toctree) + "\n", **out}


def directive(module: str, name: str) -> str:
    """The autodoc directive that documents ``module.name`` under that name."""
    obj = getattr(importlib.import_module(module), name)
    if inspect.isclass(obj):
        kind = "autoexception" if issubclass(obj, BaseException) else "autoclass"
        return f".. {kind}:: {module}.{name}\n   :members:"
    if inspect.isroutine(obj):
        return f".. autofunction:: {module}.{name}"
    return f".. autodata:: {module}.{name}"


def exported(module: str) -> list[str]:
    """The names of ``module.__all__``, in its order."""
    return list(importlib.import_module(module).__all__)


def _key(module: str, name: str):
    """What makes two exported names the same object: its identity, or for plain values its name and value
    (two modules exporting the same constant)."""
    obj = getattr(importlib.import_module(module), name)
    return id(obj) if (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)) else (module, name)


@lru_cache(maxsize=None)
def homes() -> dict:
    """Each exported object -> the public name it is documented under: the first module that exports it."""
    from rankscope.api import PUBLIC_MODULES

    out: dict = {}
    for m in PUBLIC_MODULES:
        for name in exported(m.name):
            out.setdefault(_key(m.name, name), f"{m.name}.{name}")
    return out


@lru_cache(maxsize=None)
def public_names() -> frozenset[str]:
    """Every public module and ``module.name`` of an ``__all__``."""
    from rankscope.api import PUBLIC_MODULES

    names = set()
    for m in PUBLIC_MODULES:
        names.add(m.name)
        names.update(f"{m.name}.{n}" for n in exported(m.name))
    return frozenset(names)


def is_public(target: str, module: str | None = None) -> bool:
    """Whether a reference to ``target`` (written in ``module``) names a public object or a member of one.

    Examples
    --------
    >>> is_public("metrics.evaluate"), is_public("metrics.Rankings.select_queries")
    (True, True)
    >>> is_public("metrics.io.ids.decimal_key"), is_public("numpy.ndarray")
    (False, False)
    """
    from rankscope.api import PUBLIC_MODULES

    known, modules = public_names(), {m.name for m in PUBLIC_MODULES}
    for candidate in [target] + ([f"{module}.{target}"] if module else []):
        parts = candidate.split(".")
        prefixes = [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
        if candidate in known or any(p in known and p not in modules for p in prefixes):
            return True
    return False


def documented_as(target: str, module: str | None = None) -> list[str]:
    """The names a reference to ``target`` (written in ``module``) may be documented under: as written,
    relative to the module, and each with its public prefix replaced by the name its object is documented
    under (:func:`homes`); last, for an attribute that numpydoc lists in its class's docstring
    (``SummaryTable.best``), the class."""
    out = []
    for candidate in [target] + ([f"{module}.{target}"] if module else []):
        out.append(candidate)
        parts = candidate.split(".")
        for i in range(len(parts), 1, -1):
            owner, name = ".".join(parts[:i - 1]), parts[i - 1]
            if f"{owner}.{name}" in public_names():
                home = homes().get(_key(owner, name))
                if home:
                    out.append(".".join([home, *parts[i:]]))
                    if i < len(parts):
                        out.append(home)
                break
    return out


def attribute_docstring(dotted: str) -> list[str]:
    """The lines of the docstring written after the assignment of the constant ``dotted`` (``module.NAME``),
    followed through the ``from ... import NAME`` of the modules that re-export it; none when there is none."""
    module, name = dotted.rsplit(".", 1)
    for _ in range(10):  # re-exported at most a few times over
        docs, imports = _source_facts(module)
        if name in docs:
            return list(docs[name])
        if name not in imports:
            return []
        module = imports[name]
    return []


@lru_cache(maxsize=None)
def _source_facts(module: str) -> tuple[dict, dict]:
    """A module's attribute docstrings (name -> lines) and the modules its names are imported from."""
    from sphinx.pycode import ModuleAnalyzer

    analyzer = ModuleAnalyzer.for_module(module)
    docs = {name: lines for (scope, name), lines in analyzer.find_attr_docs().items() if not scope}
    imports = {alias.asname or alias.name: node.module for node in ast.walk(ast.parse(analyzer.code))
               if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}
    return docs, imports
