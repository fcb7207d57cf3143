"""The layers of ARCHITECTURE.md, checked against every import in the code.

The table between the ``layers`` markers of ARCHITECTURE.md is the one statement of what each package may
import. Imports are read from the source with :mod:`ast`, so an import inside a function, a string given
to ``importlib.import_module`` or ``__import__``, and one guarded by ``TYPE_CHECKING`` all count.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "ARCHITECTURE.md"
_DYNAMIC = {("importlib", "import_module"), ("importlib.util", "find_spec"), (None, "__import__"),
            (None, "import_module"), (None, "find_spec")}


@lru_cache(maxsize=None)
def layers() -> dict[str, dict[str, set[str]]]:
    """``{package: {"may": {...}, "never": {...}}}`` from the table of ARCHITECTURE.md."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- layers:.*?-->(.*?)<!-- end layers -->", text, re.S)
    if block is None:
        raise AssertionError("ARCHITECTURE.md has no <!-- layers --> table")
    table: dict[str, dict[str, set[str]]] = {}
    for line in block.group(1).strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        package = cells[0].strip("`")
        names = [{n.strip().strip("`") for n in cell.split(",") if n.strip()} for cell in cells[2:4]]
        table[package] = {"may": names[0], "never": names[1]}
    return table


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


@lru_cache(maxsize=None)
def all_modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in layers():
        out.update(_modules(package))
    return out


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _typing_only(tree: ast.AST) -> set[int]:
    """Ids of the nodes under ``if TYPE_CHECKING:`` (never run, so never part of an import cycle)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (_dotted(node.test) or "").endswith("TYPE_CHECKING"):
            out.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return out


def imports_of(module: str, path: Path, *, typing: bool = True) -> list[tuple[int, str]]:
    """Every module ``module`` names in an import: ``(line, dotted name)``, relative imports resolved and
    ``from package import submodule`` counted as an import of the submodule; ``typing=False`` leaves out
    the imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = set() if typing else _typing_only(tree)
    is_package = path.name == "__init__.py"
    here = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    known = all_modules()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here[: len(here) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    found.append((node.lineno, f"{base}.{alias.name}"))
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name is None:
                continue
            owner, _, attr = name.rpartition(".")
            if ((owner or None), attr) in _DYNAMIC and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.append((node.lineno, arg.value))
                elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
                    found.append((node.lineno, str(arg.values[0].value).rstrip(".")))
    return found


def test_the_table_names_every_package():
    on_disk = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "benchmarks"}
    assert set(layers()) == on_disk


@pytest.mark.parametrize("package", sorted(layers()))
def test_each_package_imports_only_the_layers_below(package):
    rules = layers()[package]
    allowed = {package} | rules["may"]
    ours = set(layers())
    breaks = []
    for module, path in _modules(package).items():
        for line, name in imports_of(module, path):
            top = name.split(".")[0]
            if (top in ours and top not in allowed) or top in rules["never"]:
                breaks.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
    assert breaks == []


def test_the_checker_sees_hidden_imports(tmp_path):
    """The rules above would catch an import inside a function and one through importlib."""
    source = ("import importlib\n\ndef f():\n    from rankscope.commands import compare\n"
              "    importlib.import_module('dashboard.report')\n    importlib.import_module(f'dashboard.{x}')\n")
    path = tmp_path / "m.py"
    path.write_text(source)
    names = sorted(name for _, name in imports_of("metrics.m", path))
    assert names == ["dashboard", "dashboard.report", "importlib", "rankscope.commands",
                     "rankscope.commands.compare"]


def _graph() -> dict[str, set[str]]:
    known = all_modules()
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        for _, name in imports_of(module, path, typing=False):
            target = name
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                graph[module].add(target)
    return graph


def _as_run(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports as Python runs them: importing ``a.b.c`` runs the ``__init__`` of ``a`` and ``a.b`` first,
    and a package's ``__init__`` runs what it re-exports; a module's own packages are already running when
    it imports them, so those edges are left out."""
    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        edges = set()
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                step = ".".join(parts[:i])
                if step in graph and step != module and not module.startswith(step + "."):
                    edges.add(step)
        out[module] = edges
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_cycles_between_modules():
    assert _cycles(_as_run(_graph())) == []


def test_a_cycle_through_a_package_init_is_seen():
    """``measures.ndcg`` importing ``evaluate``, which imports ``scale.pool``, whose package ``scale`` imports
    ``measures`` (and so ``measures.ndcg``) is a cycle, although no module names the next one's importer."""
    graph = {"m": set(), "m.measures": {"m.measures.ndcg"}, "m.measures.ndcg": {"m.evaluate"},
             "m.evaluate": {"m.scale.pool"}, "m.scale": {"m.measures"}, "m.scale.pool": set()}
    assert _cycles(_as_run(graph)) == [["m.evaluate", "m.measures", "m.measures.ndcg", "m.scale"]]
    assert _cycles(_as_run({"p": {"p.a"}, "p.a": {"p"}})) == []  # a module importing its own package


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_every_module_and_name_the_document_names_exists():
    """Every dotted name of ours in backquotes (``metrics.stats.ties``, ``workspace.notes.merged``) is a module,
    or a name a module defines."""
    import importlib

    text = DOC.read_text(encoding="utf-8")
    names = set(re.findall(r"`((?:metrics|dashboard|workspace|rankscope|sample_data)(?:\.\w+)+)(?:\([^`]*\))?`", text))
    assert names, "ARCHITECTURE.md names no module"
    missing = []
    for name in sorted(names):
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                found = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attribute in parts[i:]:
                found = getattr(found, attribute, None)
            if found is None:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize("document", ["ARCHITECTURE.md", "pyproject.toml"])
def test_every_path_the_document_names_exists(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    paths = set(re.findall(r"(?<![\w/.])((?:metrics|dashboard|rankscope|sample_data|workspace|tests|benchmarks|docs)/"
                           r"[\w/.-]*\w)", text))
    assert paths, f"{document} names no file"
    ignored = [line.strip().rstrip("/") for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#") and "*" not in line]
    built = {p for p in paths if any(p == i or p.startswith(i + "/") for i in ignored)}  # made by a build, untracked
    assert sorted(p for p in paths - built if not (ROOT / p).exists()) == []


TABLES = {"metrics": "metrics layers", "dashboard": "dashboard layers"}
"""The packages with a parts table of their own in ARCHITECTURE.md, and the marker of each table."""


@lru_cache(maxsize=None)
def floors(package: str = "metrics") -> dict[str, int]:
    """``{part: floor}`` from the parts table of ``package`` in ARCHITECTURE.md."""
    text = DOC.read_text(encoding="utf-8")
    marker = TABLES[package]
    block = re.search(rf"<!-- {marker}:.*?-->(.*?)<!-- end {marker} -->", text, re.S)
    if block is None:
        raise AssertionError(f"ARCHITECTURE.md has no <!-- {marker} --> table")
    out = {}
    for line in block.group(1).strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        out[cells[0].strip("`")] = int(cells[1])
    return out


def part_of(module: str, package: str = "metrics") -> str | None:
    """The longest part of ``package``'s table that is ``module`` or a package holding it."""
    matches = [p for p in floors(package) if module == p or module.startswith(p + ".")]
    return max(matches, key=len) if matches else None


def floor_breaks(modules: dict[str, Path], package: str = "metrics") -> list[str]:
    """Every import, in ``modules``, of a part of ``package`` on the same floor or higher than the importer's."""
    known = all_modules()
    table = floors(package)
    breaks = []
    for module, path in modules.items():
        own = part_of(module, package)
        if own is None:
            continue
        for line, name in imports_of(module, path):
            target = name
            while target and target not in known:
                target = target.rpartition(".")[0]
            if not target.startswith(package + ".") and target != package:
                continue
            other = part_of(target, package)
            if target == package or other == own:
                continue  # the package itself is the public API, above every part
            if other is None or table[other] >= table[own]:
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                breaks.append(f"{where}:{line}: {own} (floor {table[own]}) imports {name} "
                              f"({other}, floor {table.get(other, '?')})")
    return breaks


@pytest.mark.parametrize("package", sorted(TABLES))
def test_every_module_belongs_to_a_part(package):
    modules = set(_modules(package)) - {package}
    assert sorted(m for m in modules if part_of(m, package) is None) == []
    assert sorted(p for p in floors(package) if p not in modules and not any(m.startswith(p + ".") for m in modules)) == []


@pytest.mark.parametrize("package", sorted(TABLES))
def test_each_part_imports_only_lower_floors(package):
    assert floor_breaks(_modules(package), package) == []


def test_no_two_dashboard_modules_share_a_name_but_a_page_s():
    """A file's name says what it holds: two modules of the dashboard share a name only when it is a page's,
    for the page's script and the data and figures drawn for it (the page table names the pages)."""
    from dashboard.pages import PAGES

    page_names = {p.script for p in PAGES}
    seen: dict[str, list[str]] = {}
    for module, path in _modules("dashboard").items():
        if path.name != "__init__.py":
            seen.setdefault(path.stem, []).append(module)
    shared = {name: found for name, found in seen.items() if len(found) > 1}
    assert {name: found for name, found in shared.items() if name not in page_names} == {}
    for name, found in shared.items():
        assert {m.rsplit(".", 1)[0] for m in found} <= {"dashboard.app_pages", "dashboard.data", "dashboard.figures"}, found


def test_the_table_keeps_the_named_rules():
    """The readers import nothing above them, the measures never import the evaluation, statistics never
    import review: loosening the table to let one of these through fails here."""
    f = floors()
    below_io = ("metrics.errors", "metrics.checks", "metrics.registry", "metrics.interpolation", "metrics.io")
    assert all(f["metrics.io"] < f[p] for p in f if p not in below_io)
    assert f["metrics.measures"] < f["metrics.scale"] < f["metrics.evaluate"]
    assert f["metrics.stats"] < f["metrics.review"] and f["metrics.teaching"] < f["metrics.review"]
    assert max(f.values()) == f["metrics.review"]


def test_the_floor_checker_sees_an_upward_import(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from metrics.evaluate import evaluate\n")
    breaks = floor_breaks({"metrics.io.m": path, "metrics.review.m": path})
    assert len(breaks) == 1 and "metrics.io (floor" in breaks[0] and "imports metrics.evaluate" in breaks[0]


def test_the_dashboard_opens_the_workspace_in_one_place():
    """Only ``dashboard/store/opened.py`` opens a workspace; every other part uses the one it hands out."""
    opening = []
    for module, path in _modules("dashboard").items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (_dotted(node.func) or "").rpartition(".")[2] == "open_workspace":
                opening.append(module)
    assert sorted(set(opening)) == ["dashboard.store.opened"]
