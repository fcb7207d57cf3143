"""Static check: text that Streamlit renders as Markdown is either ours, as written, or built by the one helper.

Streamlit reads the body of ``st.markdown``, ``caption``, ``info``, ``warning``, ``error``, ``success``,
``toast``, ``spinner``, titles, expander and tab labels, every widget's label, ``help`` tooltips and
``progress`` texts as Markdown, where ``![](URL)`` makes every visitor's browser fetch URL. So the text given
to any of them in ``dashboard/`` must be one of:

- a string literal (or literals joined with ``+``, or either of two literals: ``"a" if x else "b"``);
- a module constant (an UPPER_CASE name), an item of one, or a loop variable over one;
- a call of :func:`dashboard.widgets.md` with a literal template: the values it is given are escaped,
  whatever they hold;
- the text argument of a helper of :mod:`dashboard.widgets` that hands it on as it is (``start_here``,
  the pickers' labels: :data:`PASS_THROUGH`), which its callers must give as above; likewise the declaration
  of a kind of upload (:data:`dashboard.panels.uploads.KINDS`), whose label and help the uploader shows.

An f-string, ``str.format``, ``%``, or a variable holding any of them, is refused. Text shown with
``st.text``, ``st.code`` or in a table is never read as Markdown and is not checked here.
"""

from __future__ import annotations

import ast
from pathlib import Path
from tests.paths import ROOT

DASHBOARD = ROOT / "dashboard"
# calls whose first argument (or label/body keyword) Streamlit renders as Markdown
MARKDOWN_FIRST = {"markdown", "caption", "info", "warning", "error", "success", "toast", "spinner", "title", "header",
                  "subheader", "expander", "popover", "status", "metric", "button", "download_button", "link_button",
                  "checkbox", "toggle", "radio", "selectbox", "multiselect", "select_slider", "slider", "number_input",
                  "text_input", "text_area", "file_uploader", "date_input", "time_input", "color_picker",
                  "form_submit_button", "pills", "segmented_control", "data_editor_label"}
MARKDOWN_KEYWORDS = {"body", "label", "help", "text"}  # keywords rendered as Markdown (``text``: st.progress)
# helpers of dashboard.widgets whose result is Markdown made by md() from our own text
HELPERS = {"md", "md_marked", "md_paragraphs", "measure_help", "measure_label", "scrolls"}
# helpers of dashboard.widgets that escape what they are given (a message): their callers are not checked
ESCAPING = {"error"}
# helpers of dashboard.widgets that hand these parameters to Streamlit as they are: their callers' arguments
# are checked, and inside them the parameters may be used
PASS_THROUGH = {"start_here": ("text",), "need_two_runs": ("why",), "pick_measures": ("label",),
                "pick_measure": ("label",), "pick_system": ("label",), "pick_systems": ("label",),
                "choose": ("label", "help"), "pick_topic": ("label",), "receive": ("kind",),
                "ask_name": ("label",), "name_input": ("label",)}
# the modules that define them, and the names their callers reach them by
HELPER_MODULES = sorted((DASHBOARD / "widgets").glob("*.py")) + [DASHBOARD / "panels" / "uploads.py",
                                                                  DASHBOARD / "session" / "typed_name.py"]
RECEIVERS = {"widgets", "uploads", "typed_name"}


def _signatures() -> dict[str, list[str]]:
    """The parameter names, in order, of each pass-through helper of :data:`HELPER_MODULES`."""
    found = {}
    for path in HELPER_MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found.update({node.name: [a.arg for a in node.args.args + node.args.kwonlyargs] for node in tree.body
                      if isinstance(node, ast.FunctionDef) and node.name in PASS_THROUGH})
    assert set(found) == set(PASS_THROUGH), "a pass-through helper is no longer where the check looks"
    return found


SIGNATURES = _signatures()


def _upper(node: ast.expr) -> bool:
    """A module constant: an UPPER_CASE name (``X``, ``widgets.X``), or an item of one (``X[key]``)."""
    if isinstance(node, ast.Subscript):
        return _upper(node.value)
    return isinstance(node, (ast.Name, ast.Attribute)) and getattr(node, "id", getattr(node, "attr", "")).isupper()


def _constant(node: ast.expr) -> bool:
    """A literal of ours: a string, literals joined with ``+``, or a module constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _constant(node.left) and _constant(node.right)
    return _upper(node)


def _constant_loop_names(tree: ast.AST) -> set[int]:
    """Ids of the Name nodes that read a loop variable over a module constant (``for label, x in X.items()``)."""
    found = set()
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.For):
            continue
        source = loop.iter
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and not source.args:
            source = source.func.value if source.func.attr in ("items", "keys", "values") else source
        if not _upper(source):
            continue
        names = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        found |= {id(n) for statement in loop.body for n in ast.walk(statement)
                  if isinstance(n, ast.Name) and n.id in names}
    return found


def _allowed(node: ast.expr, handed_on: frozenset[int] = frozenset()) -> bool:
    if id(node) in handed_on or _constant(node) or (isinstance(node, ast.Constant) and node.value is None):
        return True
    if isinstance(node, ast.Attribute) and id(node.value) in handed_on:  # a field of a handed-on declaration
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _allowed(node.left, handed_on) and _allowed(node.right, handed_on)
    if isinstance(node, ast.IfExp):
        return _allowed(node.body, handed_on) and _allowed(node.orelse, handed_on)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name == "md":
            return bool(node.args) and _constant(node.args[0])
        return name in HELPERS
    return False


def _text_arguments(call: ast.Call):
    """The arguments of ``call`` that Streamlit renders as Markdown, if it is such a call."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    receiver = getattr(func.value, "id", None) if isinstance(func, ast.Attribute) else None
    if name in PASS_THROUGH and (receiver in RECEIVERS or receiver is None):
        params = SIGNATURES[name]
        yield from (arg for param, arg in zip(params, call.args) if param in PASS_THROUGH[name])
        yield from (k.value for k in call.keywords if k.arg in PASS_THROUGH[name])
        return
    if not isinstance(func, ast.Attribute) or (receiver == "widgets" and name in ESCAPING):
        return
    if name == "status" and receiver != "st":  # st.status(label); a store's or a class's .status(code) is no text
        return
    if name in MARKDOWN_FIRST and call.args:
        yield call.args[0]
    if name == "tabs" and call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
        yield from call.args[0].elts
    if name == "write" and receiver == "st":
        yield from call.args
    if name in MARKDOWN_FIRST | {"progress", "page_link", "tabs", "write", "update"}:
        yield from (k.value for k in call.keywords if k.arg in MARKDOWN_KEYWORDS)
    else:
        yield from (k.value for k in call.keywords if k.arg == "help")


def violations() -> list[str]:
    found = []
    for path in sorted(DASHBOARD.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        handed_on = _constant_loop_names(tree)  # ids of Name nodes holding our text, and of pass-through parameters
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "md":
                node.body = []  # the helper itself makes the text
            if isinstance(node, ast.FunctionDef) and node.name in PASS_THROUGH and path in HELPER_MODULES:
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Name) and inner.id in PASS_THROUGH[node.name]:
                        handed_on.add(id(inner))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for argument in _text_arguments(node):
                    if not _allowed(argument, frozenset(handed_on)):
                        where = f"{path.relative_to(ROOT)}:{argument.lineno}"
                        found.append(f"{where}: {ast.unparse(node.func)}({ast.unparse(argument)[:70]})")
    return found


def test_markdown_text_is_a_literal_or_built_by_the_helper():
    assert violations() == []


def test_the_check_finds_what_it_forbids():
    def check(source: str) -> bool:
        call = ast.parse(source).body[0].value
        return all(_allowed(a) for a in _text_arguments(call))

    for bad in ('st.caption(f"Topics: {name}")', 'st.error("x: {}".format(name))', 'st.info("%s" % name)',
                'st.warning("Delete " + name)', 'st.spinner(message)', 'col.text_input(f"System {i}", key="k")',
                'st.progress(0.5, text=f"Reading {name}")', 'st.selectbox("x", [], help=f"{h}")',
                'st.tabs([f"{a}", "b"])', 'st.write(name)', 'left.caption(md(template, name))',
                'st.expander(f"About {m}")', 'st.page_link("p.py", label=name)',
                'widgets.start_here(f"{n} systems")', 'widgets.pick_system("a", s, name)',
                'widgets.choose("k", "Test", {}, help=f"{x}")', 'uploads.receive(kind_of_user, loaded, seen)'):
        assert not check(bad), bad
    for good in ('st.caption("Topics")', 'st.caption(widgets.md("Topics: {}", name))', 'st.info(NOTE)',
                 'st.error("a" + "b")', 'st.button("Go" if x else "Stop")', 'st.text(name)', 'st.code(text)',
                 'st.selectbox(md("{}", a), [], help=widgets.measure_help(m))', 'st.progress(0.5)',
                 'widgets.error(err)', 'widgets.pick_system("a", names, "System A")',
                 'widgets.start_here("Where B wins.")', 'st.info(SOURCES[x])',
                 'uploads.receive(uploads.KINDS["runs"], loaded, seen, left)'):
        assert check(good), good
