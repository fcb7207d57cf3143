"""Parsing measure names: ir_measures' syntax (``nDCG@10``, ``P(rel=2)@5``) and trec_eval's (``ndcg_cut_10``).

``parse_measure(str(m)) == m`` for every measure ``m``.
"""

from __future__ import annotations

import ast
import difflib
from typing import Any

from metrics.errors import UnknownMeasureError
from metrics.measures.base import REGISTRY, Measure
from metrics.measures.trec_names import parse_trec_name

__all__ = ["parse_measure"]

_MISSING = object()


def parse_measure(text: str) -> Measure:
    """Parse one measure name, ir_measures style (``nDCG@10``) or trec_eval style (``ndcg_cut_10``).

    Raises
    ------
    UnknownMeasureError
        For a name the registry does not know (with close matches) or a malformed expression.
    """
    import metrics.measures  # noqa: F401  (importing the package registers every measure)

    if isinstance(text, Measure):
        return text
    text = text.strip()
    trec = parse_trec_name(text)
    if trec is not None:
        return trec
    return _parse_ir(text)


def _parse_ir(text: str) -> Measure:
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise UnknownMeasureError(_bad(text)) from None
    cutoff = _MISSING
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff = _constant(tree.right, text)
        tree = tree.left
    kwargs: dict[str, Any] = {}
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and not tree.args:
        for kw in tree.keywords:
            if kw.arg is None:
                raise UnknownMeasureError(_bad(text))
            kwargs[kw.arg] = _constant(kw.value, text)
        tree = tree.func
    if not isinstance(tree, ast.Name):
        raise UnknownMeasureError(_bad(text))
    cls = _lookup(tree.id)
    if cutoff is not _MISSING:
        if cls.at not in {p.name for p in cls.params}:
            raise UnknownMeasureError(f"measure {cls.name} takes no @cutoff")
        if cls.at in kwargs:
            raise UnknownMeasureError(f"measure {cls.name}: {cls.at} given twice, in @ and as a parameter")
        kwargs[cls.at] = cutoff
    return cls(**kwargs)


def _constant(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool)):
        return node.value
    if isinstance(node, ast.Tuple):  # e.g. gain_map=((1, 3.0), (2, 9.0))
        return tuple(_constant(item, text) for item in node.elts)
    raise UnknownMeasureError(_bad(text))


def _bad(text: str) -> str:
    return f"cannot parse measure {text!r}: expected Name, Name@cutoff or Name(param=value, ...)@cutoff"


def _lookup(name: str) -> type[Measure]:
    if name in REGISTRY:
        return REGISTRY[name]
    folded = {k.lower(): v for k, v in REGISTRY.items()}
    if name.lower() in folded:
        return folded[name.lower()]
    close = (difflib.get_close_matches(name, list(REGISTRY), n=3, cutoff=0.6)
             or difflib.get_close_matches(name, list(REGISTRY), n=3, cutoff=0.0))
    hint = f"; did you mean {', '.join(close)}?" if close else "; `rankscope measures` lists them"
    raise UnknownMeasureError(f"unknown measure {name!r}{hint}")

